# TEACHES: modifying a saved non-leaf through .data bypasses the version counter (no error, silently
#   different gradient), while the same in-place op under torch.no_grad() still bumps the version and
#   backward fails; detach_() on a saved tensor keeps the node's saved copy usable.
# EXPECT: .data case ok with the modified value used; no_grad case -> version error "output 0 of Exp".
x = torch.tensor([0.5, 1.0], requires_grad=True)
y = x.exp()
z = (y * y).sum()
y.data.mul_(2)
note("y._version after .data.mul_", y._version)
attempt(".data modified: backward", lambda: z.backward())
grads(".data case", x=x)
x.grad = None
y2 = x.exp()
z2 = (y2 * y2).sum()
with torch.no_grad():
    y2.mul_(2)
note("y2._version after no_grad mul_", y2._version)
attempt("no_grad modified: backward", lambda: z2.backward())
y3 = x.exp()
z3 = (y3 * 3).sum()
y3.detach_()
probe("y3 after detach_", y3=y3, z3=z3)
attempt("backward after detach_ of an intermediate", lambda: z3.backward())
grads("after detach_ case", x=x)
