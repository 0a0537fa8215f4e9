# TEACHES: in-place on a view of a non-leaf rewrites the base's history: base.grad_fn becomes
#   CopySlices and the view's grad_fn is regenerated; gradients flow correctly (zeroed where
#   overwritten); the graph with CopySlices is single-use.
# EXPECT: probe names; grads: positions written by the view op get gradient via the new value.
a = torch.tensor([1.0, 2.0, 3.0, 4.0], requires_grad=True)
b = torch.tensor([10.0, 20.0], requires_grad=True)
base = a * 1
view = base[1:3]
view.mul_(b)
probe("after view.mul_", base=base, view=view, a=a, b=b)
note("versions", [base._version, view._version])
loss = (base * torch.tensor([1.0, 2.0, 3.0, 4.0])).sum()
attempt("backward", lambda: loss.backward())
grads(a=a, b=b)
attempt("backward again", lambda: loss.backward())
