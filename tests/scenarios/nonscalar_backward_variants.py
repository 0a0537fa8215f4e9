# TEACHES: backward on non-scalar outputs: gradient= must match the output shape exactly (a
#   broadcastable one is rejected), any single-element output (e.g. shape (1, 1)) is allowed
#   implicitly, a 0-dim gradient for a 0-dim output is fine but a (1,) one is a shape mismatch.
# EXPECT: mismatch messages with torch.Size; (1,1) allowed; y.backward(torch.ones_like(y)) works.
x = torch.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True)
y = x * 2
attempt("implicit on 2x2", lambda: y.backward(retain_graph=True))
attempt("gradient shape (2,)", lambda: y.backward(torch.ones(2), retain_graph=True))
attempt("gradient shape (1, 2)", lambda: y.backward(torch.ones(1, 2), retain_graph=True))
attempt("ones_like", lambda: y.backward(torch.ones_like(y), retain_graph=True))
grads("after ones_like", x=x)
x.grad = None
one = (x.sum() * 1).reshape(1, 1)
attempt("(1,1) implicit", lambda: one.backward())
grads("(1,1)", x=x)
x.grad = None
attempt("gradient kwarg weights", lambda: y.backward(gradient=torch.tensor([[1.0, 0.0], [0.5, 2.0]])))
grads("weighted", x=x)
s = (x * 3).sum()
attempt("scalar with explicit 0-dim gradient", lambda: s.backward(torch.tensor(2.0)))
grads("scalar explicit", x=x)
z = x.sum()
attempt("scalar with (1,) gradient", lambda: z.backward(torch.tensor([2.0])))
