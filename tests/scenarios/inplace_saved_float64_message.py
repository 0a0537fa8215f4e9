# TEACHES: the version-counter error names the tensor type and shape: DoubleTensor for float64,
#   multi-dim shapes [2, 2], and the producing op (output 0 of Tanh / Sigmoid / Pow); a leaf saved by
#   mul and modified under no_grad gives the message without "output 0 of".
# EXPECT: exact messages; probe shows "modified".
x = torch.tensor([[0.1, 0.2], [0.3, 0.4]], dtype=torch.float64, requires_grad=True)
t = x.tanh()
loss = (t * 2).sum()
t.add_(1)
probe("tanh result modified", loss=loss, t=t, x=x)
attempt("backward", lambda: loss.backward())
s = torch.sigmoid(x)
s.mul_(3)
attempt("sigmoid result modified", lambda: s.sum().backward())
p = x * 1
q = p ** 2
p.sub_(1)
attempt("pow input modified", lambda: q.sum().backward())
w = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
c = torch.tensor([2.0, 2.0, 2.0], requires_grad=True)
out = (w * c).sum()
with torch.no_grad():
    w.mul_(2)
    w.mul_(2)
attempt("leaf modified twice under no_grad", lambda: out.backward())
grads(w=w, c=c)
note("w._version", w._version)
