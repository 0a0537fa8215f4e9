# TEACHES: nn.Module behaviours in training: parameters()/named_parameters() order and names for
#   Sequential, freezing a layer with requires_grad_(False) (its grads stay None, graph skips it),
#   model.zero_grad() (set_to_none default True), eval() does not disable autograd, tied weights
#   (same Parameter in two places -> one AccumulateGrad, summed grads), parameter count.
# EXPECT: names, probes, grads recorded.
model = torch.nn.Sequential(torch.nn.Linear(2, 3), torch.nn.ReLU(), torch.nn.Linear(3, 1))
with torch.no_grad():
    model[0].weight.copy_(torch.tensor([[0.1, 0.2], [-0.3, 0.4], [0.5, -0.6]]))
    model[0].bias.copy_(torch.tensor([0.1, 0.0, -0.1]))
    model[2].weight.copy_(torch.tensor([[1.0, -1.0, 0.5]]))
    model[2].bias.copy_(torch.tensor([0.2]))
note("names", [n for n, _ in model.named_parameters()])
note("count", sum(p.numel() for p in model.parameters()))
note("requires_grad flags", [p.requires_grad for p in model.parameters()])
model[0].requires_grad_(False)
x = torch.tensor([[1.0, 2.0], [0.5, -1.0]])
out = model(x).sum()
probe("frozen first layer", out=out, w0=model[0].weight, w2=model[2].weight, b2=model[2].bias)
out.backward()
grads("frozen", w0=model[0].weight, b0=model[0].bias, w2=model[2].weight, b2=model[2].bias)
model.zero_grad()
grads("after model.zero_grad()", w2=model[2].weight, b2=model[2].bias)
model.eval()
e = model(x)
probe("eval mode still tracks", e=e)
note("training flags", [model.training, model[0].training])
model.train()
note("training after train()", model.training)
shared = torch.nn.Linear(2, 2, bias=False)
with torch.no_grad():
    shared.weight.copy_(torch.tensor([[1.0, 2.0], [3.0, 4.0]]))
y = shared(shared(torch.tensor([1.0, -1.0])))
probe("tied", y=y, W=shared.weight)
y.sum().backward()
grads("tied", W=shared.weight)
