# TEACHES: leaf creation forms: *_like factories copy shape/dtype but not requires_grad (unless
#   asked); full/arange/linspace with requires_grad; clone().detach().requires_grad_(); torch.tensor(t)
#   of an existing tensor warns (UserWarning "To copy construct from a tensor...") and returns a
#   detached leaf copy; Parameter(requires_grad=False); Parameter of a non-leaf is a leaf; an int
#   arange cannot require grad; stack of 0-dim tensors.
# EXPECT: probes; the torch.tensor(t) UserWarning text.
a = torch.tensor([1.0, 2.0], requires_grad=True)
z = torch.zeros_like(a)
o = torch.ones_like(a, requires_grad=True)
f = torch.full((2,), 3.0, requires_grad=True)
ar = torch.arange(0.0, 3.0, 1.0, requires_grad=True)
ls = torch.linspace(0, 1, 3, requires_grad=True)
c = (a * 2).clone().detach().requires_grad_(True)
probe("factories", z=z, o=o, f=f, ar=ar, ls=ls, c=c)
attempt("torch.tensor(a) warns", lambda: note("copy", torch.tensor(a)))
t2 = None

def make():
    global t2
    t2 = torch.tensor(a * 3)

attempt("torch.tensor(nonleaf)", make)
probe("torch.tensor(nonleaf)", t2=t2)
p = torch.nn.Parameter(torch.tensor([1.0]), requires_grad=False)
q = torch.nn.Parameter(a * 2)
probe("parameters", p=p, q=q)
note("types", [type(p).__name__, type(q).__name__, type(a * 2).__name__, type(q * 2).__name__])
attempt("arange int requires_grad", lambda: torch.arange(3, requires_grad=True))
s = torch.stack([torch.tensor(1.0), torch.tensor(2.0)])
probe("stack of 0-dim", s=s)
e = torch.empty(2, 3)
note("empty shape", list(e.shape))
