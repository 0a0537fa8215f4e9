# TEACHES: seed-001 with y = (x * x).mean() (MulBackward0 saves self and other = the same tensor):
#   retain, retain, plain, then the 4th fails; grads accumulate linearly; x.grad.zero_() then a
#   fresh graph resets; a 0-dim x ** 2 backwarded twice with retain.
# EXPECT: x.grad = x, 2x, 3x then backward-twice; after zero_ and a fresh graph x again; s.grad 12.
x = torch.tensor([1.0, 3.0], requires_grad=True)
y = (x * x).mean()
probe("graph", y=y, x=x)
attempt("1", lambda: y.backward(retain_graph=True))
grads("1", x=x)
attempt("2", lambda: y.backward(retain_graph=True))
grads("2", x=x)
attempt("3", lambda: y.backward())
grads("3", x=x)
attempt("4", lambda: y.backward())
probe("freed", y=y, x=x)
x.grad.zero_()
y = (x * x).mean()
y.backward()
grads("fresh after zero_", x=x)
s = torch.tensor(3.0, requires_grad=True)
q = s ** 2
q.backward(retain_graph=True)
q.backward(retain_graph=True)
grads("scalar 2 passes", s=s)
