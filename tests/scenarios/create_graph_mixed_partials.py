# TEACHES: mixed partial derivatives: d/dy (d/dx f) for f = x^2 y^3 + x y; Hessian-vector product of
#   a quadratic form through matmul; gradient-penalty style loss (||grad||^2) backpropagated into
#   the parameters with .backward().
# EXPECT: exact mixed partials; Hv = (A + A^T) v; penalty grads.
x = torch.tensor(2.0, requires_grad=True)
y = torch.tensor(3.0, requires_grad=True)
f = x ** 2 * y ** 3 + x * y
dfdx, dfdy = torch.autograd.grad(f, (x, y), create_graph=True)
note("dfdx, dfdy", [dfdx, dfdy])
d2, = torch.autograd.grad(dfdx, y, retain_graph=True)
note("d2f/dydx", d2)
d2xx, = torch.autograd.grad(dfdx, x)
note("d2f/dx2", d2xx)

A = torch.tensor([[2.0, 1.0], [0.0, 3.0]])
v = torch.tensor([1.0, -1.0])
w = torch.tensor([0.5, 0.25], requires_grad=True)
q = w @ (A @ w)
g, = torch.autograd.grad(q, w, create_graph=True)
probe("grad of quadratic", g=g, w=w)
Hv, = torch.autograd.grad(g @ v, w)
note("Hv", Hv)

p = torch.tensor([1.0, -2.0], requires_grad=True)
inp = torch.tensor([0.3, 0.7], requires_grad=True)
out = (torch.tanh(p * inp)).sum()
gi, = torch.autograd.grad(out, inp, create_graph=True)
penalty = (gi ** 2).sum()
penalty.backward()
grads("penalty grads", p=p, inp=inp)
