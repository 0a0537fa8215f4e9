# TEACHES: grad_fn names produced by in-place ops on non-leaves (AddBackward0, MulBackward0,
#   DivBackward0, PowBackward0, ClampBackward1, ExpBackward0, CopySlices for index/fill, the
#   masked_fill_ / fill_ / copy_ forms) and the _version after each.
# EXPECT: grad_fn name list and versions recorded; backward fails: the saved exp_ result was
#   modified by later in-place ops (version error names Exp).
a = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
b = torch.tensor([0.5, 0.5, 0.5], requires_grad=True)
t = a * 1
names = []
ops = [("add_", lambda: t.add_(b)), ("mul_", lambda: t.mul_(b)), ("div_", lambda: t.div_(2)),
       ("pow_", lambda: t.pow_(2)), ("clamp_", lambda: t.clamp_(min=0.3)), ("exp_", lambda: t.exp_()),
       ("sub_ alpha", lambda: t.sub_(b, alpha=2)), ("neg_", lambda: t.neg_()),
       ("masked_fill_", lambda: t.masked_fill_(torch.tensor([True, False, False]), 0.0)),
       ("fill_ on slice", lambda: t[2:].fill_(1.0)), ("copy_ on slice", lambda: t[1:2].copy_(b[0:1]))]
for name, op in ops:
    op()
    names.append([name, t.grad_fn.name(), t._version])
note("names", names)
probe("chain", t=t, a=a, b=b)
attempt("backward (exp_ result was modified later)", lambda: t.sum().backward())
grads(a=a, b=b)
u = a * 1
for name, op in [("add_", lambda: u.add_(b)), ("mul_", lambda: u.mul_(b)), ("div_", lambda: u.div_(2)),
                 ("pow_", lambda: u.pow_(2)), ("clamp_", lambda: u.clamp_(min=0.3))]:
    op()
a.grad = None
b.grad = None
attempt("backward without exp_", lambda: u.sum().backward())
grads(a=a, b=b)
