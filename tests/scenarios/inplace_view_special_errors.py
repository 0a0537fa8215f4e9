# TEACHES: special in-place/view errors: writing into an expanded tensor (overlapping memory);
#   modifying an output of a multi-view op (unbind/split/chunk) in place; modifying in grad mode a
#   view created under no_grad whose base requires grad; a no-grad leaf saved by mul then modified
#   (leaf-form version error).
# EXPECT: exact messages.
a = torch.tensor([1.0, 2.0], requires_grad=True)
e = (a * 1).expand(3, 2)
attempt("expanded add_", lambda: e.add_(1))
h = a * 2
u0, u1 = h.unbind(0)
attempt("unbind output mul_", lambda: u0.mul_(2))
s0, s1 = (a * 3).split(1)
attempt("split output add_", lambda: s0.add_(1))
c0, c1 = (a * 3).chunk(2)
attempt("chunk output add_", lambda: c1.add_(1))
base = a * 4
with torch.no_grad():
    v = base[:1]
attempt("view made in no_grad, modified in grad mode", lambda: v.mul_(2))
with torch.no_grad():
    attempt("same view modified under no_grad", lambda: v.mul_(2))
note("base", base)
c = torch.tensor([3.0, 4.0])
y = a * c
c.add_(1)
attempt("saved no-grad leaf modified", lambda: y.sum().backward())
d = torch.tensor([1.0, 1.0], requires_grad=True)
z = d * d
d.detach().mul_(5)
attempt("saved requires-grad leaf modified via detach", lambda: z.sum().backward())
