# TEACHES: two heads on a shared nn.Linear trunk: (a) loss = l1 + l2, one backward; (b) separate
#   backwards without retain -> second fails; (c) separate with retain on the first -> grads equal to
#   (a); (d) autograd.grad of each head w.r.t. the trunk weight with retain.
# EXPECT: (a) == (c); (b) error; (d) per-head grads sum to (a).
trunk = torch.nn.Linear(2, 3)
h1 = torch.nn.Linear(3, 1)
h2 = torch.nn.Linear(3, 1)
with torch.no_grad():
    trunk.weight.copy_(torch.tensor([[0.2, -0.1], [0.4, 0.3], [-0.5, 0.1]]))
    trunk.bias.copy_(torch.tensor([0.0, 0.1, -0.1]))
    h1.weight.copy_(torch.tensor([[1.0, -1.0, 0.5]]))
    h1.bias.copy_(torch.tensor([0.0]))
    h2.weight.copy_(torch.tensor([[0.3, 0.3, -0.3]]))
    h2.bias.copy_(torch.tensor([0.5]))
x = torch.tensor([[1.0, 2.0], [-1.0, 0.5]])
y1 = torch.tensor([[1.0], [0.0]])
y2 = torch.tensor([[0.0], [1.0]])
mse = torch.nn.MSELoss()

def losses():
    f = torch.relu(trunk(x))
    return mse(h1(f), y1), mse(h2(f), y2)

l1, l2 = losses()
(l1 + l2).backward()
grads("(a) summed", W=trunk.weight, b=trunk.bias)
trunk.zero_grad()
l1, l2 = losses()
attempt("(b) l1.backward()", lambda: l1.backward())
attempt("(b) l2.backward()", lambda: l2.backward())
grads("(b)", W=trunk.weight, b=trunk.bias)
trunk.zero_grad()
l1, l2 = losses()
attempt("(c) l1 retain", lambda: l1.backward(retain_graph=True))
attempt("(c) l2", lambda: l2.backward())
grads("(c)", W=trunk.weight, b=trunk.bias)
l1, l2 = losses()
g1, = torch.autograd.grad(l1, trunk.weight, retain_graph=True)
g2, = torch.autograd.grad(l2, trunk.weight)
note("(d) per head", [g1, g2])
probe("(d) l1 after grads", l1=l1)
