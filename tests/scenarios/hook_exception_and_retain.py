# TEACHES: a tensor hook that raises aborts backward with that exception; grads already accumulated
#   by nodes that ran before it stay (y's AccumulateGrad ran first); hooks fire on every backward of
#   a retained graph, in backward order; a hook registered after the graph was built still fires.
# EXPECT: ValueError propagated; x.grad None, y.grad 3; call log b, a, b, a.
calls = []
x = torch.tensor([1.0, 2.0], requires_grad=True)
y = torch.tensor([3.0], requires_grad=True)
h = x * 2
loss = (h * h).sum() + (y * 3).sum()

def bad(g):
    raise ValueError("hook failed")

h.register_hook(bad)
attempt("backward with raising hook", lambda: loss.backward(retain_graph=True))
grads("after failure", x=x, y=y)
a = torch.tensor([1.0, 2.0], requires_grad=True)
b = a * a
l2 = b.sum()
b.register_hook(lambda g: calls.append("b"))
a.register_hook(lambda g: calls.append("a"))
l2.backward(retain_graph=True)
l2.backward(retain_graph=True)
note("calls", calls)
grads(a=a)
