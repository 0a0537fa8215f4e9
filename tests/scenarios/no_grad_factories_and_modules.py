# TEACHES: inside no_grad: factories with requires_grad=True still make requiring leaves; a Linear
#   forward gives a result with no grad_fn; backward on it fails; requires_grad_() on a no_grad
#   result makes it a leaf that then gets gradients; Parameter created under no_grad requires grad;
#   ops mixing that leaf with others outside the block track normally.
# EXPECT: probes and messages.
lin = torch.nn.Linear(2, 1)
with torch.no_grad():
    lin.weight.copy_(torch.tensor([[1.0, -1.0]]))
    lin.bias.copy_(torch.tensor([0.5]))
    leaf = torch.ones(2, requires_grad=True)
    out = lin(torch.tensor([[1.0, 2.0]]))
    p = torch.nn.Parameter(torch.zeros(2))
    q = leaf * 2
probe("inside", leaf=leaf, out=out, p=p, q=q)
attempt("out.sum().backward()", lambda: out.sum().backward())
out.requires_grad_()
(out * 3).sum().backward()
grads(out=out, w=lin.weight)
r = (leaf * p + q).sum()
probe("outside", r=r, leaf=leaf, p=p, q=q)
r.backward()
grads(leaf=leaf, p=p)
