# TEACHES: backward twice across various ops: which saved buffers are freed (exp, sigmoid, tanh, relu, matmul, div, pow, neg, sum, view); error text; second backward succeeds for ops without saved tensors.
x = torch.tensor([0.5, -1.0], requires_grad=True)
W = torch.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True)
ops = {
    "exp": lambda: x.exp(), "sigmoid": lambda: x.sigmoid(), "tanh": lambda: x.tanh(),
    "relu": lambda: x.relu(), "matmul": lambda: W @ x, "div": lambda: x / 2,
    "div tensor": lambda: 1 / (x + 3), "pow": lambda: x ** 2, "neg": lambda: -x, "add scalar": lambda: x + 1,
    "view": lambda: x.view(2, 1), "mul const": lambda: x * 3, "mul tensor const": lambda: x * torch.tensor([2.0, 3.0]),
    "sum": lambda: x.sum().expand(2), "mean": lambda: x.mean().expand(2), "sub": lambda: x - W[0],
    "log": lambda: (x + 2).log(), "t": lambda: W.t()[0], "softmax": lambda: torch.softmax(x, 0),
    "abs": lambda: x.abs(), "clamp": lambda: x.clamp(0, 1), "index": lambda: x[[1, 0]],
}
for name, fn in ops.items():
    x.grad = None
    W.grad = None
    y = fn().sum()
    y.backward()
    attempt(name + " second", lambda: y.backward())
    grads(name, x=x, W=W)
