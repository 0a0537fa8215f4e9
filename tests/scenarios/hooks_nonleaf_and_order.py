# TEACHES: a hook on a non-leaf intermediate modifies the gradient flowing further back; the hook
#   sees the total (summed) gradient of all the tensor's uses once; hooks on several tensors fire in
#   backward order (closest to the loss first).
# EXPECT: log order y then x; x.grad uses the hooked (zeroed second element) gradient.
log = []
x = torch.tensor([1.0, 2.0], requires_grad=True)
y = x * 2
z = y * y + y

def hy(g):
    log.append(("y", g.tolist()))
    return g * torch.tensor([1.0, 0.0])

def hx(g):
    log.append(("x", g.tolist()))

x.register_hook(hx)
y.register_hook(hy)
z.register_hook(lambda g: log.append(("z", g.tolist())))
z.sum().backward()
note("log", log)
grads(x=x)
attempt("hook on no-grad tensor", lambda: torch.tensor([1.0]).register_hook(lambda g: g))
