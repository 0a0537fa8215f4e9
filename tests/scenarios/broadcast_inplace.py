# TEACHES: broadcasting in-place (a += b with b broadcast), in-place that would need to grow the target errors, grads to broadcast operand.
b = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
a0 = torch.zeros(2, 3, requires_grad=True)
a = a0.clone()
a += b
note("a", a)
probe("a", a=a)
(a * torch.tensor([[1.0], [2.0]])).sum().backward()
grads("a0 b", a0=a0, b=b)
c = torch.ones(3, requires_grad=True) * 1
attempt("grow target", lambda: c.add_(torch.ones(2, 3)))
d = torch.ones(2, 1) * 1
attempt("grow plain", lambda: d.mul_(torch.ones(2, 3)))
b.grad = None
s = torch.tensor(2.0, requires_grad=True)
e = torch.ones(2, 2) * 1
e *= s
e.sum().backward()
grads("scalar broadcast", s=s)
f = torch.ones(2, 3).clone()
f.sub_(b[None, :], alpha=2)
note("f", [f, f.grad_fn.name(), f.requires_grad])
f.sum().backward()
grads("b alpha", b=b)
g = torch.ones(3, 1, 2)
attempt("grow middle", lambda: g.add_(torch.ones(3, 4, 2)))
