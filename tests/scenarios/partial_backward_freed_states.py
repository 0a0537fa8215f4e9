# TEACHES: only the nodes a backward actually executes release their saved tensors: autograd.grad
#   w.r.t. an intermediate leaves the nodes behind it alive; backward(inputs=[...]) executes only
#   the needed part; an in-place change to a tensor no node saved (sigmoid saves its result, not its
#   input) is harmless; a backward that fails midway (version error at MulBackward0) leaves the
#   nodes it had already run freed and the rest alive.
# EXPECT: probes show per-node alive/freed.
x = torch.tensor([0.5, 1.5], requires_grad=True)
w = torch.tensor([2.0, -1.0], requires_grad=True)
h = x.exp()
z = (h * w).sin().sum()
torch.autograd.grad(z, h)
probe("after grad w.r.t. h", z=z, h=h, x=x, w=w)
attempt("h.sum().backward() still works (ExpBackward0 alive)", lambda: h.sum().backward())
grads(x=x, w=w)
x.grad = None
h2 = x.exp()
z2 = (h2 * w).tanh().sum()
z2.backward(inputs=[w])
probe("after backward(inputs=[w])", z2=z2, h2=h2, x=x, w=w)
grads("inputs=[w]", x=x, w=w)
a = x * 1
b = a.sigmoid()
c = (b * b).sum()
a.add_(1)
probe("before failing backward", c=c, x=x)
attempt("sigmoid input modified: harmless", lambda: c.backward())
probe("after", c=c, x=x)
a2 = x * 1
b2 = a2 * a2
c2 = b2.exp().sum()
a2.mul_(2)
attempt("fails at MulBackward0", lambda: c2.backward())
probe("partially freed", c2=c2, x=x)
