# TEACHES: backward(create_graph=True) leaves a .grad with a graph (torch::autograd::CopyBackwards);
#   optimizer.zero_grad(set_to_none=False) then detaches it in place and zeroes it (same object, no
#   grad_fn, requires_grad False); a later plain backward accumulates into it; the module form
#   model.zero_grad(set_to_none=False) gives zero tensors.
# EXPECT: probes of the grads, values.
p = torch.nn.Parameter(torch.tensor([1.0, 2.0]))
opt = torch.optim.SGD([p], lr=0.1)
attempt("backward(create_graph=True)", lambda: (p ** 3).sum().backward(create_graph=True))
g = p.grad
probe("grad with graph", g=p.grad)
opt.zero_grad(set_to_none=False)
probe("after zero_grad(False)", g=p.grad)
note("same object", p.grad is g)
grads(p=p)
(p ** 2).sum().backward()
grads("after plain backward", p=p)
lin = torch.nn.Linear(1, 1)
with torch.no_grad():
    lin.weight.fill_(2.0)
    lin.bias.fill_(0.5)
lin(torch.tensor([[3.0]])).sum().backward()
lin.zero_grad(set_to_none=False)
grads("module zero_grad(False)", w=lin.weight, b=lin.bias)
