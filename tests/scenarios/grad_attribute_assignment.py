# TEACHES: assigning .grad by hand: a correct tensor is accepted and accumulated into by the next
#   backward; wrong shape / wrong dtype / non-tensor assignments raise; assigning .grad on a non-leaf
#   is allowed (no warning on set); setting requires_grad attribute directly on leaves and non-leaves.
# EXPECT: messages recorded; accumulation on the user tensor.
a = torch.tensor([1.0, 2.0], requires_grad=True)
g = torch.tensor([10.0, 10.0])
a.grad = g
(a * 3).sum().backward()
grads("accumulated onto assigned", a=a)
note("same object", a.grad is g)

def set_grad(t, v):
    t.grad = v

attempt("wrong shape", lambda: set_grad(a, torch.ones(3)))
attempt("wrong dtype", lambda: set_grad(a, torch.ones(2, dtype=torch.float64)))
attempt("int grad", lambda: set_grad(a, torch.tensor([1, 2])))
attempt("python list", lambda: set_grad(a, [1.0, 2.0]))
h = a * 2
attempt("set non-leaf grad", lambda: set_grad(h, torch.ones(2)))
grads("non-leaf after set", h=h)

def set_rg(t, v):
    t.requires_grad = v

attempt("non-leaf requires_grad = False", lambda: set_rg(h, False))
attempt("non-leaf requires_grad = True", lambda: set_rg(h, True))
b = torch.tensor([1.0])
attempt("leaf requires_grad = True", lambda: set_rg(b, True))
probe("b", b=b)
i = torch.tensor([1])
attempt("int requires_grad = True", lambda: set_rg(i, True))
