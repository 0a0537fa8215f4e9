# TEACHES: register_hook on a leaf used twice in the graph fires once with summed grad; on intermediate used twice; retain_grad + hook.
seen = []
x = torch.tensor([2.0, 3.0], requires_grad=True)
x.register_hook(lambda g: seen.append(("x", g.tolist())))
a = x * 2
b = x.exp()
(a + b).sum().backward()
note("seen", seen)
grads("x", x=x)
seen.clear()
m = x * x
m.register_hook(lambda g: seen.append(("m", g.tolist())))
m.retain_grad()
out = (m * 3 + m.sin()).sum()
out.backward()
note("seen mid", seen)
note("m grad", m.grad)
seen.clear()
x.grad = None
p = x[0] * x[1] + x[0]
p.backward()
note("seen index", seen)
grads("x idx", x=x)
seen.clear()
x.grad = None
y = x.clone()
y.register_hook(lambda g: seen.append(("y", g.tolist())) or g * 10)
y2 = y * y
y2.sum().backward()
note("seen y", seen)
grads("x via clone hook", x=x)
