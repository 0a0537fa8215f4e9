# TEACHES: second-order through matmul + mse_loss + mean (a MAML-like inner step): the adapted
#   weights w' = w - lr * grad carry a graph back to w; the outer loss backprops through it.
# EXPECT: exact inner grad, adapted weights and outer gradient on w.
w = torch.tensor([[0.5, -0.5], [0.25, 1.0]], requires_grad=True)
X = torch.tensor([[1.0, 2.0], [0.0, 1.0], [1.0, -1.0]])
Y = torch.tensor([[1.0, 0.0], [0.5, 0.5], [0.0, 1.0]])
inner = torch.nn.functional.mse_loss(X @ w, Y)
g, = torch.autograd.grad(inner, w, create_graph=True)
w2 = w - 0.1 * g
note("inner grad", g)
note("adapted", w2)
probe("adapted graph", w2=w2, w=w)
outer = torch.nn.functional.mse_loss(X @ w2, Y * 2)
outer.backward()
grads("outer", w=w)
