# TEACHES: reduction gradients at edge cases: max()/min() over all elements with ties (gradient is
#   split evenly among the tied maxima), max(dim) with ties (first index wins), maximum with ties
#   (half each), amax with ties, abs/relu at exactly 0, clamp at the boundary, sqrt at 0, prod with a
#   zero, std/var, norm, logsumexp, cumsum.
# EXPECT: grads recorded.
t = torch.tensor([[3.0, 1.0, 3.0], [0.0, 3.0, -2.0]], requires_grad=True)
forms = [("max()", lambda: t.max()), ("min()", lambda: t.min()), ("max(dim=1).values", lambda: t.max(dim=1).values.sum()),
         ("max(dim=0)[0]", lambda: t.max(0)[0].sum()), ("amax(1)", lambda: t.amax(1).sum()),
         ("maximum(t, 3)", lambda: torch.maximum(t, torch.full((2, 3), 3.0)).sum()),
         ("abs", lambda: t.abs().sum()), ("relu", lambda: t.relu().sum()),
         ("clamp(0, 3)", lambda: t.clamp(0.0, 3.0).sum()), ("sqrt", lambda: (t * t).sqrt().sum()),
         ("prod()", lambda: t.prod()), ("prod(dim=1)", lambda: t.prod(1).sum()),
         ("std()", lambda: t.std()), ("var(dim=1)", lambda: t.var(1).sum()),
         ("var unbiased False", lambda: t.var(unbiased=False)), ("norm()", lambda: t.norm()),
         ("norm(dim=1)", lambda: t.norm(dim=1).sum()), ("logsumexp(1)", lambda: t.logsumexp(1).sum()),
         ("cumsum(1)", lambda: (t.cumsum(1) * torch.tensor([1.0, 2.0, 3.0])).sum()),
         ("mean((0,1))", lambda: t.mean((0, 1))), ("sum(-1, keepdim)", lambda: (t.sum(-1, keepdim=True) ** 2).sum())]
for name, f in forms:
    t.grad = None
    out = f()
    note(name, [out, out.grad_fn.name()])
    out.backward()
    grads(name, t=t)
z = torch.tensor([0.0, 0.0], requires_grad=True)
z.norm().backward()
grads("norm at zero", z=z)
z.grad = None
z.sqrt().sum().backward()
grads("sqrt at zero", z=z)
note("argmax ties", [t.argmax(), t.argmax(dim=1), t.max(dim=1).indices])
