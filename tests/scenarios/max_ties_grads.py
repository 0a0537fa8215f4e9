# TEACHES: grads of x.max() with ties (full reduction splits evenly), max(dim) with ties (first index), min, amax ties, median.
x = torch.tensor([1.0, 3.0, 3.0, 2.0], requires_grad=True)
x.max().backward()
grads("max ties", x=x)
x.grad = None
x.min().backward()
grads("min", x=x)
x.grad = None
v, i = x.max(0)
note("idx", i)
v.backward()
grads("max dim ties", x=x)
x.grad = None
x.amax().backward()
grads("amax ties", x=x)
x.grad = None
y = torch.tensor([[2.0, 2.0], [2.0, 1.0]], requires_grad=True)
y.max().backward()
grads("2d max ties", y=y)
y.grad = None
y.amax(1).sum().backward()
grads("amax dim", y=y)
y.grad = None
torch.max(y, torch.tensor([[2.0, 0.0], [3.0, 1.0]])).sum().backward()
grads("max binary ties", y=y)
y.grad = None
y.max(dim=1, keepdim=True).values.sum().backward()
grads("max keepdim", y=y)
x.grad = None
attempt("median", lambda: x.median().backward())
grads("median", x=x)
x.grad = None
torch.maximum(x, x.detach()).sum().backward()
grads("maximum with self", x=x)
