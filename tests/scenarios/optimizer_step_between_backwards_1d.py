# TEACHES: the same story with a 1-D input to nn.Linear (ViewBackward0 over AddmmBackward0 after an
#   unsqueeze) and a single layer whose input does not require grad: step() between backwards is
#   then harmless (no parameter saved), so the retained second backward succeeds and grads add up.
# EXPECT: both backwards ok; grads doubled.
lin = torch.nn.Linear(3, 2)
with torch.no_grad():
    lin.weight.copy_(torch.tensor([[0.1, 0.2, -0.1], [0.3, -0.2, 0.4]]))
    lin.bias.copy_(torch.tensor([0.0, 0.1]))
opt = torch.optim.SGD(lin.parameters(), lr=0.1)
x = torch.tensor([1.0, 2.0, 3.0])
out = lin(x)
loss = (out ** 2).sum()
probe("graph", loss=loss, out=out, w=lin.weight, b=lin.bias)
attempt("first", lambda: loss.backward(retain_graph=True))
opt.step()
attempt("second after step", lambda: loss.backward())
grads(w=lin.weight, b=lin.bias)
note("weight", lin.weight)
