# TEACHES: grad-mode contexts nest and restore: set_grad_enabled(True) inside no_grad re-enables;
#   set_grad_enabled(False) used as a plain function call changes the global mode until reset;
#   exceptions inside no_grad still restore the mode; bare @torch.no_grad decorator (no parens)
#   and @torch.enable_grad(); no_grad on a generator-free method.
# EXPECT: is_grad_enabled values recorded; requires_grad of results recorded.
a = torch.tensor([1.0, 2.0], requires_grad=True)
log = []
with torch.no_grad():
    with torch.set_grad_enabled(True):
        x = a * 2
        log.append(torch.is_grad_enabled())
    log.append(torch.is_grad_enabled())
    y = a * 2
log.append(torch.is_grad_enabled())
note("modes", log)
probe("nested", x=x, y=y)

def boom():
    with torch.no_grad():
        raise ValueError("inside")

attempt("exception inside no_grad", boom)
note("mode restored after exception", torch.is_grad_enabled())
torch.set_grad_enabled(False)
z = a * 3
note("after set_grad_enabled(False) call", [torch.is_grad_enabled(), z.requires_grad])
torch.set_grad_enabled(True)
note("after set_grad_enabled(True) call", torch.is_grad_enabled())

@torch.enable_grad()
def reenable(t):
    return t * 5

with torch.no_grad():
    r2 = reenable(a)
probe("enable_grad decorator", r2=r2)

def bare_decorator():
    @torch.no_grad
    def bare(t):
        return t * 4

    probe("bare @torch.no_grad", r1=bare(a))

attempt("bare @torch.no_grad (no parentheses)", bare_decorator)

class M:
    @torch.no_grad()
    def step(self, t):
        return t + 1, torch.is_grad_enabled()

r3, mode = M().step(a)
note("method decorator", [r3.requires_grad, mode])
with torch.inference_mode():
    r4 = a * 2
note("inference_mode", [r4.requires_grad, torch.is_grad_enabled()])
