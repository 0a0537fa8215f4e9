# TEACHES: second derivatives through common ops with create_graph=True: sin, exp, tanh, sigmoid,
#   log, sqrt, division, pow with float exponent; the first gradient's grad_fn names.
# EXPECT: g1 and g2 values per op; g1 has a grad_fn (non-leaf, requires grad).
x = torch.tensor([0.5, 1.5], requires_grad=True)
forms = [("sin", lambda t: t.sin()), ("exp", lambda t: t.exp()), ("tanh", lambda t: t.tanh()),
         ("sigmoid", lambda t: torch.sigmoid(t)), ("log", lambda t: t.log()),
         ("sqrt", lambda t: t.sqrt()), ("reciprocal", lambda t: 1 / t), ("pow 2.5", lambda t: t ** 2.5),
         ("x*x*x", lambda t: t * t * t), ("relu", lambda t: torch.relu(t - 1)),
         ("softmax", lambda t: torch.softmax(t, 0) * torch.tensor([1.0, 2.0]))]
for name, f in forms:
    y = f(x).sum()
    g1, = torch.autograd.grad(y, x, create_graph=True)
    note(name + " g1", g1)
    probe(name + " g1", g1=g1)
    g2, = torch.autograd.grad(g1.sum(), x, allow_unused=True)
    note(name + " g2", g2)
