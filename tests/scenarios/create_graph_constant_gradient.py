# TEACHES: when the first derivative does not depend on x (y = 3x), the create_graph gradient does
#   not require grad, so differentiating it again errors (does-not-require-grad) even with
#   allow_unused; for y = x*x the second derivative is 2; relu's create_graph gradient DOES have a
#   graph and its second derivative is zeros; that grad call freed g3's graph, so a second attempt
#   fails with backward-twice; a cross-term d(dL/dx)/db.
# EXPECT: messages and values recorded.
x = torch.tensor([1.0, -2.0], requires_grad=True)
g, = torch.autograd.grad((3 * x).sum(), x, create_graph=True)
probe("g of 3x", g=g)
attempt("grad of constant g", lambda: torch.autograd.grad(g.sum(), x))
attempt("grad of constant g allow_unused", lambda: torch.autograd.grad(g.sum(), x, allow_unused=True))
g2, = torch.autograd.grad((x * x).sum(), x, create_graph=True)
note("second of x*x", torch.autograd.grad(g2.sum(), x))
g3, = torch.autograd.grad(torch.relu(x * 2).sum(), x, create_graph=True)
probe("g of relu", g3=g3, x=x)
attempt("second of relu", lambda: note("relu second", torch.autograd.grad(g3.sum(), x)))
attempt("second of relu allow_unused",
        lambda: note("relu second allow_unused", torch.autograd.grad(g3.sum(), x, allow_unused=True)))
b = torch.tensor([1.0, 1.0], requires_grad=True)
g4 = torch.autograd.grad((x * b).sum(), [x, b], create_graph=True)
probe("cross", g4x=g4[0], g4b=g4[1], x=x, b=b)
note("d(dL/dx)/db", torch.autograd.grad(g4[0].sum(), b))
