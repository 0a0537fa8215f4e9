# TEACHES: .grad on non-leaf results of view ops (view, slicing, transpose) warns and is None;
#   retain_grad() on a view works; a detached tensor is a leaf (no warning, None).
# EXPECT: warnings for v and s, none for r (retain_grad) and d.
a = torch.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True)
v = a.view(4)
s = a[0]
r = a.t()
r.retain_grad()
d = (a * 2).detach()
loss = (v * torch.tensor([1.0, 2.0, 3.0, 4.0])).sum() + s.sum() + (r * r).sum()
loss.backward()
grads("v", v=v)
grads("s", s=s)
grads("r (retain_grad)", r=r)
grads("d (detached leaf)", d=d)
grads("a", a=a)
note("is_leaf", [v.is_leaf, s.is_leaf, r.is_leaf, d.is_leaf])
