# TEACHES: autograd.grad(create_graph=True) retains the original graph, so a plain y.backward()
#   afterwards works; but that plain backward frees the original graph's saved tensors, which the
#   first-order gradient g's own graph still references, so g.sum().backward() then fails.
# EXPECT: y.backward ok; every later backward through g fails with backward-twice; x.grad stays
#   None after the failed g.sum().backward().
x = torch.tensor([1.0, 2.0], requires_grad=True)
y = (x.exp() * x).sum()
g, = torch.autograd.grad(y, x, create_graph=True)
note("g", g)
attempt("y.backward() after create_graph grad", lambda: y.backward())
grads("x after y.backward", x=x)
x.grad = None
attempt("g.sum().backward()", lambda: g.sum().backward())
grads("x after g.sum().backward", x=x)
s = g.sum()
attempt("s.backward()", lambda: s.backward())
attempt("s.backward() again", lambda: s.backward())
probe("g graph after", g=g, x=x)
