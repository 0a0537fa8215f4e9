# TEACHES: torch.stack of views; cat of slices; unbind; grads accumulating to shared base.
x = torch.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]], requires_grad=True)
rows = [x[0], x[1], x[0]]
s = torch.stack(rows)
probe("stack", s=s)
(s * torch.arange(9.0).reshape(3, 3)).sum().backward()
grads("x", x=x)
x.grad = None
cols = x.t().unbind(0)
note("unbind names", [c.grad_fn.name() for c in cols])
st = torch.stack(cols, dim=1)
note("st", st)
(st ** 2).sum().backward()
grads("unbind", x=x)
x.grad = None
c = torch.cat([x[:, :1], x[:, 2:], x[:, 1:2]], dim=1)
probe("cat", c=c)
c.backward(torch.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]))
grads("cat", x=x)
x.grad = None
d = torch.stack([x.view(-1), x.reshape(6), x.flatten()], dim=-1)
note("d shape", list(d.shape))
d.sum().backward()
grads("three views", x=x)
attempt("stack mismatched", lambda: torch.stack([x[0], x[0, :2]]))
