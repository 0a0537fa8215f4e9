# TEACHES: views of a non-leaf share its version counter: modifying the base in place after taking
#   a view makes a node that saved the view fail ("output 0 of AsStrided"); modifying a view makes
#   nodes that saved the base fail ("output 0 of torch::autograd::CopySlices"); detach() shares the
#   counter too (detach().zero_() breaks the saved exp result: "output 0 of Exp").
# EXPECT: three version errors with exact messages.
a = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
base = a.exp()
v = base[:2]
y = v * v
base.add_(1)
attempt("saved view, base modified", lambda: y.sum().backward())
base2 = a * 2
z = base2 * base2
base2[0:1].mul_(3)
attempt("saved base, view modified", lambda: z.sum().backward())
e = a.exp()
f = e * 2
e.detach().zero_()
attempt("detach().zero_() on saved exp result", lambda: f.sum().backward())
note("e", e)
note("versions", [a._version, base._version, v._version, base2._version, e._version])
