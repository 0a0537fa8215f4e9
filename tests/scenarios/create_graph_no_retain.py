# TEACHES: retain_graph=False with create_graph=True; double backward; grad of grad; freed state.
x = torch.tensor([1.0, 2.0], requires_grad=True)
y = (x ** 3).sum()
(g,) = torch.autograd.grad(y, x, create_graph=True, retain_graph=False)
probe("g", g=g)
note("g", g)
attempt("backward y again", lambda: y.backward())
g.sum().backward()
grads("x second", x=x)
x.grad = None
z = (x.sin() * x).sum()
attempt("backward create_graph no retain", lambda: z.backward(create_graph=True, retain_graph=False))
gx = x.grad
note("gx rg", [gx.requires_grad, gx.grad_fn is not None])
probe("gx", gx=gx)
x.grad = None
attempt("double backward after create_graph no retain (sin freed)", lambda: gx.sum().backward())
grads("second via backward", x=x)
attempt("z again", lambda: z.backward())
w = torch.tensor(2.0, requires_grad=True)
f = w ** 4
(d1,) = torch.autograd.grad(f, w, create_graph=True)
(d2,) = torch.autograd.grad(d1, w, create_graph=True)
(d3,) = torch.autograd.grad(d2, w)
note("derivs", [d1, d2, d3])
attempt("d2 graph freed", lambda: torch.autograd.grad(d2, w))
