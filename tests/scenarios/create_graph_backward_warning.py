# TEACHES: loss.backward(create_graph=True) warns (UserWarning about the reference cycle) and
#   leaves a .grad that has a grad_fn and requires grad; backpropagating through x.grad then
#   accumulates into x.grad (second-order term added).
# EXPECT: warning text once in the attempt; x.grad requires grad; after x.grad.sum().backward()
#   x.grad = 3x^2 + 6x.
x = torch.tensor([1.0, 2.0], requires_grad=True)
y = (x ** 3).sum()
attempt("backward(create_graph=True)", lambda: y.backward(create_graph=True))
probe("x.grad has a graph", g=x.grad, x=x)
grads("first", x=x)
g = x.grad
attempt("x.grad.sum().backward()", lambda: g.sum().backward())
grads("second", x=x)
note("x.grad is g", x.grad is g)
