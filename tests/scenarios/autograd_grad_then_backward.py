# TEACHES: autograd.grad frees the graph like backward does (unless retain_graph), never touches
#   .grad, and a following .backward() on the same graph therefore fails; with retain_graph=True
#   the following backward works and fills .grad.
# EXPECT: g = 2x*y etc; backward after non-retained grad fails; x.grad None until the retained case.
x = torch.tensor([1.0, 2.0], requires_grad=True)
y = torch.tensor([3.0, 4.0], requires_grad=True)
z = (x * x * y).sum()
gx, gy = torch.autograd.grad(z, (x, y))
note("gx, gy", [gx, gy])
probe("gx", gx=gx)
grads("untouched", x=x, y=y)
attempt("z.backward() after autograd.grad", lambda: z.backward())
z2 = (x * x * y).sum()
g2 = torch.autograd.grad(z2, [x], retain_graph=True)
note("type is tuple", type(g2).__name__)
note("len", len(g2))
attempt("z2.backward() after retained grad", lambda: z2.backward())
grads("after z2.backward", x=x, y=y)
