# TEACHES: full backward hooks and backward pre-hooks on modules whose arguments and results mix
#   tensors and other values (None in those slots), a namedtuple result (kept as such), the
#   errors for hooks returning the wrong number of gradients, hooks when no argument requires
#   grad (they fire at the outputs, with a warning), a dict result (warning, no hook), the
#   identity module, tensors passed by keyword (not seen), and the warnings of legacy
#   register_backward_hook hooks.
# EXPECT: hook logs, graphs, grads, error messages and warnings recorded.
import collections
log = []
def fmt(gs):
    return [None if g is None else g.tolist() for g in gs]
class Mixed(torch.nn.Module):
    def forward(self, a, flag, b):
        return a * b, flag, a + b
m = Mixed()
m.register_full_backward_pre_hook(lambda mod, go: log.append(("pre", fmt(go))))
m.register_full_backward_hook(lambda mod, gi, go: log.append(("full", fmt(gi), fmt(go))))
m.register_full_backward_hook(lambda mod, gi, go: log.append(("full first",)), prepend=True)
a = torch.tensor([1.0, 2.0], requires_grad=True)
b = torch.tensor([3.0, 4.0], requires_grad=True)
o1, flag, o2 = m(a, "x", b)
probe("mixed", o1=o1, o2=o2, a=a, b=b)
(o1.sum() + 2 * o2.sum()).backward()
note("both outputs", log)
log.clear()
o1, flag, o2 = m(a, 7, torch.tensor([3.0, 4.0]))
o2.sum().backward()
note("one argument requires grad", log)
log.clear()

Pair = collections.namedtuple("Pair", "p q")
class PairOut(torch.nn.Module):
    def forward(self, a):
        return Pair(a * 2, a * 3)
pm = PairOut()
pm.register_full_backward_hook(lambda mod, gi, go: log.append(("pair", fmt(gi), fmt(go))))
pair = pm(a)
note("namedtuple result", [type(pair).__name__, pair.q.grad_fn.name()])
pair.q.sum().backward()
note("pair log", log)
log.clear()

lin = torch.nn.Linear(2, 2)
xi = torch.ones(1, 2, requires_grad=True)
h = lin.register_full_backward_hook(lambda mod, gi, go: (None, None))
attempt("too many grad_input", lambda: lin(xi).sum().backward())
h.remove()
h = lin.register_full_backward_pre_hook(lambda mod, go: (None, None, None))
attempt("too many grad_output", lambda: lin(xi).sum().backward())
h.remove()
h = lin.register_full_backward_hook(lambda mod, gi, go: (torch.ones(1, 2),))
attempt("no input grad, hook returns a tensor", lambda: lin(torch.ones(1, 2)).sum().backward())
h.remove()
h = lin.register_full_backward_hook(lambda mod, gi, go: (None,))
attempt("no input grad, hook returns (None,)", lambda: lin(torch.ones(1, 2)).sum().backward())
h.remove()
h = lin.register_full_backward_pre_hook(lambda mod, go: (go[0] * 0,))
out = lin(xi)
probe("pre-hook only", out=out, xi=xi)
out.sum().backward()
grads("grad_output zeroed", xi=xi)
h.remove()

class AsDict(torch.nn.Module):
    def forward(self, a):
        return {"y": a * 2}
d = AsDict()
d.register_full_backward_hook(lambda mod, gi, go: log.append("dict hook"))
attempt("dict result", lambda: d(xi)["y"].sum().backward())
note("dict log", log)
ident = torch.nn.Identity()
ident.register_full_backward_hook(lambda mod, gi, go: log.append(("identity", fmt(gi), fmt(go))))
yi = ident(xi)
probe("identity", yi=yi, xi=xi)
(yi * 3).sum().backward()
attempt("in-place on hooked output", lambda: ident(xi).mul_(2))
class ByKeyword(torch.nn.Module):
    def forward(self, a, b=None):
        return a * b
kw = ByKeyword()
kw.register_full_backward_hook(lambda mod, gi, go: log.append(("keyword", fmt(gi), fmt(go))))
kw(xi, b=torch.tensor([[2.0, 2.0]], requires_grad=True)).sum().backward()
note("identity and keyword logs", log)
log.clear()

class Double(torch.nn.Module):
    def forward(self, a):
        return a * 2
class TwoNodes(torch.nn.Module):
    def forward(self, a):
        return a * 2, a + 1
class ListOut(torch.nn.Module):
    def forward(self, a):
        return [a * 2]
class TakesNumber(torch.nn.Module):
    def forward(self, a, k):
        return a * k
x = torch.tensor([[1.0, 2.0]], requires_grad=True)
for name, mod, run in [
        ("legacy, leaf input", Double(), lambda mm: mm(x).sum()),
        ("legacy, different nodes", TwoNodes(), lambda mm: sum(o.sum() for o in mm(x * 1))),
        ("legacy, list result", ListOut(), lambda mm: mm(x * 1)[0].sum()),
        ("legacy, number argument", TakesNumber(), lambda mm: mm(x * 1, 3.0).sum()),
        ("legacy, nested dict", AsDict(), lambda mm: mm(x * 1)["y"].sum())]:
    mod.register_backward_hook(lambda mm, gi, go: log.append((len(gi), len(go))))
    attempt(name, lambda: run(mod).backward())
note("legacy logs", log)
lin2 = torch.nn.Linear(2, 1)
lin2.register_backward_hook(lambda mm, gi, go: None)
attempt("full after legacy", lambda: lin2.register_full_backward_hook(lambda mm, gi, go: None))
