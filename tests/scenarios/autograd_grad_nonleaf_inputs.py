# TEACHES: autograd.grad can differentiate w.r.t. a non-leaf intermediate; the gradient stops there
#   (leaves are not filled); differentiating w.r.t. the output itself gives grad_outputs (ones).
# EXPECT: dz/dh = w; dz/dz = 1; leaves' .grad stay None.
x = torch.tensor([1.0, -2.0], requires_grad=True)
w = torch.tensor([3.0, 4.0])
h = x.exp()
z = (h * w).sum()
gh, = torch.autograd.grad(z, h, retain_graph=True)
note("dz/dh", gh)
gz, = torch.autograd.grad(z, z, retain_graph=True)
note("dz/dz", gz)
gxh = torch.autograd.grad(z, [x, h])
note("dz/dx and dz/dh together", gxh)
grads(x=x)
probe("h after grad", h=h, z=z, x=x)
