# TEACHES: the forward side of nn.Module hooks: pre-hooks that return one value (wrapped in a
#   tuple), a tuple, or (args, kwargs) with with_kwargs=True, and the error for anything else;
#   prepend order; a handle used as a context manager; always_call forward hooks after a failure
#   (they get the arguments as the pre-hooks left them and the result if forward had returned;
#   their own errors become a warning); hooks removed or added while a call runs.
# EXPECT: logs of calls and arguments, outputs, two RuntimeErrors, one warning.
log = []
class Scale(torch.nn.Module):
    def forward(self, a, b=None, scale=1.0):
        log.append(("forward", b is None, scale))
        return a * scale
m = Scale()
h1 = m.register_forward_pre_hook(lambda mod, args: log.append(("pre1", len(args))))
h2 = m.register_forward_pre_hook(lambda mod, args: args[0] + 1)
h3 = m.register_forward_pre_hook(lambda mod, args, kw: log.append(("pre kw", sorted(kw))),
                                 with_kwargs=True)
h4 = m.register_forward_pre_hook(lambda mod, args: log.append(("pre first",)), prepend=True)
note("handle ids step by one", [h2.id - h1.id, h3.id - h2.id, h4.id - h3.id])
x = torch.tensor([1.0, 2.0])
note("pre-hooked", m(x, scale=3.0))
h5 = m.register_forward_pre_hook(lambda mod, args, kw: ((args[0] * 0,), {"scale": 5.0}),
                                 with_kwargs=True)
note("args and kwargs replaced", m(x))
note("pre log", log)
log.clear()
for h in (h1, h2, h3, h4, h5):
    h.remove()
h5.remove()
bad = m.register_forward_pre_hook(lambda mod, args, kw: 3, with_kwargs=True)
attempt("kwargs pre-hook returns a number", lambda: m(x))
bad.remove()
bad = m.register_forward_pre_hook(lambda mod, args, kw: (1, 2, 3), with_kwargs=True)
attempt("kwargs pre-hook returns a 3-tuple", lambda: m(x))
bad.remove()
m.register_forward_pre_hook(lambda mod, args: (args[0], None))
with m.register_forward_hook(lambda mod, args, out: out + 100):
    note("inside with", m(x))
note("after with", m(x))
log.clear()

class Fails(torch.nn.Module):
    def forward(self, a):
        raise ValueError("forward failed")
f = Fails()
f.register_forward_pre_hook(lambda mod, args: (args[0] * 2,))
f.register_forward_hook(lambda mod, args, out: log.append("plain hook"))
f.register_forward_hook(lambda mod, args, out: log.append(("always", args[0].tolist(), out)),
                        always_call=True)
f.register_forward_hook(lambda mod, args, kw, out: log.append(("always kw", sorted(kw), out)),
                        always_call=True, with_kwargs=True)
def broken(mod, args, out):
    raise KeyError("hook failed too")
f.register_forward_hook(broken, always_call=True)
attempt("forward raises", lambda: f(x))
note("always_call after forward failed", log)
log.clear()

g = Scale()
g.register_forward_hook(lambda mod, args, out: log.append(("before", out.tolist())),
                        always_call=True)
def failing(mod, args, out):
    raise RuntimeError("forward hook failed")
g.register_forward_hook(failing)
g.register_forward_hook(lambda mod, args, out: log.append(("after", out.tolist())),
                        always_call=True)
attempt("forward hook raises", lambda: g(x))
note("always_call after a hook failed", log)
log.clear()

k = Scale()
handles = []
handles.append(k.register_forward_hook(lambda mod, a, o: (log.append("first"),
                                                          handles[1].remove())))
handles.append(k.register_forward_hook(lambda mod, a, o: log.append("second")))
k(x)
k(x)
note("removed during a call", log)
log.clear()
n = torch.nn.Identity()
def adds_backward_hook(mod, args):
    if not log:
        mod.register_full_backward_hook(lambda mm, gi, go: log.append("backward hook"))
    log.append("pre")
n.register_forward_pre_hook(adds_backward_hook)
w = torch.tensor([1.0, 2.0], requires_grad=True)
(n(w) * 1).sum().backward()
note("added during first call", list(log))
(n(w) * 1).sum().backward()
note("second call", log)
