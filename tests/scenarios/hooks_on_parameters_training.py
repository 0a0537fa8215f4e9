# TEACHES: gradient clipping via hooks on nn.Linear parameters during an SGD loop; the hook fires on
#   every backward; zero_grad(set_to_none=False) keeps zero tensors (not None).
# EXPECT: clipped grads; exact weight trajectory; grads are zeros (not None) after zero_grad(False).
lin = torch.nn.Linear(2, 1)
with torch.no_grad():
    lin.weight.copy_(torch.tensor([[0.3, -0.6]]))
    lin.bias.copy_(torch.tensor([0.2]))
calls = []
for p in lin.parameters():
    p.register_hook(lambda g: (calls.append(1), g.clamp(-0.5, 0.5))[1])
opt = torch.optim.SGD(lin.parameters(), lr=0.5)
X = torch.tensor([[1.0, 2.0], [3.0, -1.0]])
Y = torch.tensor([[2.0], [-1.0]])
for i in range(3):
    opt.zero_grad(set_to_none=False)
    grads("iteration %d after zero_grad(False)" % i, w=lin.weight, b=lin.bias)
    loss = torch.nn.functional.mse_loss(lin(X), Y)
    loss.backward()
    grads("iteration %d clipped" % i, w=lin.weight, b=lin.bias)
    opt.step()
    note("iteration %d loss" % i, loss.item())
note("hook calls", len(calls))
note("weight", lin.weight)
