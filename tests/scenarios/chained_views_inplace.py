# TEACHES: chained views (view of a slice of a transpose) with in-place; grad_fn names; versions.
x = torch.arange(12.0).reshape(3, 4).requires_grad_()
b = x * 1
t = b.t()
s = t[1:3]
v = s.reshape(-1) if False else s[:, 0:2]
note("shapes", [list(t.shape), list(s.shape), list(v.shape)])
v.mul_(10)
note("versions", [b._version, t._version, s._version, v._version])
note("names", [b.grad_fn.name(), t.grad_fn.name(), s.grad_fn.name(), v.grad_fn.name()])
probe("b", b=b)
note("b", b)
(b * torch.arange(12.0).reshape(3, 4)).sum().backward()
grads("x", x=x)
x.grad = None
b2 = x.exp()
d = b2.t()[0]
d.zero_()
attempt("exp saved result", lambda: b2.sum().backward())
x.grad = None
c = x.clone()
c.t()[1:, :2].unsqueeze(0).add_(torch.ones(1, 3, 2))
c.sum().backward()
grads("clone chain", x=x)
note("c names", c.grad_fn.name())
y = x.detach().clone()
yv = y.t()[0]
yv.fill_(-1)
note("y plain", y)
