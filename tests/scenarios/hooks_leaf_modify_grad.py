# TEACHES: a tensor hook on a leaf sees the incoming gradient and its return value replaces it before
#   accumulation; returning None keeps it; hooks run in registration order; handle.remove() stops it.
# EXPECT: log shows the incoming grads; a.grad doubled then +1; after remove only plain grads.
log = []
a = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)

def h1(g):
    log.append(("h1", g.tolist()))
    return g * 2

def h2(g):
    log.append(("h2", g.tolist()))
    return g + 1

def h3(g):
    log.append(("h3 returns None", g.tolist()))

k1 = a.register_hook(h1)
k2 = a.register_hook(h2)
a.register_hook(h3)
(a * torch.tensor([1.0, 10.0, 100.0])).sum().backward()
note("log", log)
grads("after hooks", a=a)
k1.remove()
k2.remove()
log.clear()
a.grad = None
(a * 3).sum().backward()
note("log after remove", log)
grads("after remove", a=a)
probe("a", a=a)
