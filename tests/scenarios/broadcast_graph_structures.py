# TEACHES: graph structure of broadcasting / 0-dim / dtype-cast expressions: a 0-dim parameter times a
#   vector (grad shape []), (2,1) + (3,) outer-style add, float64 cast in the middle (ToCopyBackward0),
#   expand + mul, unsqueeze/squeeze chains; grads reduce back to each leaf's shape.
# EXPECT: probes and grads.
s = torch.tensor(2.0, requires_grad=True)
col = torch.tensor([[1.0], [2.0]], requires_grad=True)
row = torch.tensor([0.5, -1.0, 3.0], requires_grad=True)
y = (s * (col + row)).double().sum() * 2
probe("broadcast", y=y, s=s, col=col, row=row)
y.backward()
grads(s=s, col=col, row=row)
note("grad shapes", [list(s.grad.shape), list(col.grad.shape), list(row.grad.shape)])
note("y dtype", str(y.dtype))
z = row.unsqueeze(0).expand(2, 3) * col
q = z.unsqueeze(-1).squeeze(-1).mean(0)
probe("expand chain", q=q, row=row, col=col)
q.sum().backward()
grads("expand chain", row=row, col=col)
