# TEACHES: repeated retain_graph=True backwards with hooks counting calls; hook on leaf used twice in graph; hook on nonleaf.
calls = {"leaf": 0, "mid": 0, "vals": []}
x = torch.tensor([1.0, 2.0], requires_grad=True)
def leaf_hook(g):
    calls["leaf"] += 1
    calls["vals"].append(g.tolist())
h = x.register_hook(leaf_hook)
m = x * x
def mid_hook(g):
    calls["mid"] += 1
m.register_hook(mid_hook)
y = (m + x * 3 + x).sum()
for i in range(3):
    y.backward(retain_graph=True)
    note("calls " + str(i), [calls["leaf"], calls["mid"]])
grads("x", x=x)
note("vals", calls["vals"])
h.remove()
y.backward()
note("after remove", [calls["leaf"], calls["mid"]])
grads("x final", x=x)
attempt("after free", lambda: y.backward())
note("calls final", [calls["leaf"], calls["mid"]])
z = torch.tensor(3.0, requires_grad=True)
z.register_hook(lambda g: g * 2)
z.register_hook(lambda g: g + 1)
(z * z + z).backward()
grads("two hooks order", z=z)
q = torch.tensor(1.0, requires_grad=True)
q.register_hook(lambda g: None)
(q * 5).backward()
grads("none hook", q=q)
