# TEACHES: in-place ops on a leaf under no_grad, then backward through an older graph -> version error text for leaves.
w = torch.tensor([1.0, 2.0], requires_grad=True)
y = (w * w).sum()
with torch.no_grad():
    w.sub_(0.1 * torch.ones(2))
note("w version", w._version)
attempt("backward old graph", lambda: y.backward())
grads("w", w=w)
w2 = torch.tensor([1.0, 2.0], requires_grad=True)
y2 = (w2 * 3).sum()
with torch.no_grad():
    w2.mul_(2)
y2.backward()
grads("unsaved ok", w2=w2)
w3 = torch.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True)
x = torch.tensor([[1.0], [1.0]])
y3 = (w3 @ x).sum()
with torch.no_grad():
    w3[0, 0] = 10.0
attempt("matmul saved mat", lambda: y3.backward())
y4 = (x.t() @ w3).sum()
with torch.no_grad():
    w3.zero_()
attempt("matmul other side", lambda: y4.backward())
grads("w3", w3=w3)
p = torch.nn.Parameter(torch.tensor([0.5, -0.5]))
out = torch.sigmoid(p).sum()
with torch.no_grad():
    p.add_(1)
attempt("sigmoid result saved ok?", lambda: out.backward())
grads("p", p=p)
q = torch.nn.Parameter(torch.tensor([0.5, -0.5]))
out = torch.tanh(q * 2).sum() + (q.exp()).sum()
with torch.no_grad():
    q.data.add_(1)
out.backward()
grads("q via .data", q=q)
