# TEACHES: requires_grad_() on a view of a tensor that does not require grad is allowed (the view is
#   a leaf); gradients go to the view only; the base can still be modified in place, but the view
#   itself is now "a view of a leaf Variable that requires grad" and in-place on it is rejected.
# EXPECT: v.grad 3; base.add_ ok; v.add_ -> RuntimeError (view-of-leaf message); base all 2.
base = torch.ones(4)
v = base[:2]
v.requires_grad_()
probe("view made requiring", v=v, base=base)
(v * 3).sum().backward()
grads(v=v)
attempt("base.add_(1) after", lambda: base.add_(1))
attempt("v.add_(1) (leaf requiring grad)", lambda: v.add_(1))
note("base", base)
