# TEACHES: a hook that modifies its gradient argument in place (without returning) — for a leaf the
#   incoming gradient buffer is what gets accumulated, so the in-place change is visible; a hook
#   returning a wrong-shaped tensor is an error.
# EXPECT: a.grad reflects the in-place change; shape error message recorded.
a = torch.tensor([1.0, 2.0], requires_grad=True)

def inplace_hook(g):
    g.mul_(0)
    g.add_(7)

a.register_hook(inplace_hook)
(a * a).sum().backward()
grads(a=a)
b = torch.tensor([1.0, 2.0], requires_grad=True)
b.register_hook(lambda g: torch.ones(3))
attempt("hook returns wrong shape", lambda: (b * 2).sum().backward())
grads(b=b)
