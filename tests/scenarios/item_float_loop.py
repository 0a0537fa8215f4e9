# TEACHES: loss.item() / float(loss) / loss.tolist() in loops; accumulating python floats vs tensors; int(), bool() of tensors; item on nonscalar errors.
w = torch.tensor([0.5, -0.3], requires_grad=True)
xs = [torch.tensor([1.0, 2.0]), torch.tensor([-1.0, 0.5]), torch.tensor([2.0, 2.0])]
total = 0.0
hist = []
for x in xs:
    loss = ((w * x).sum() - 1.0) ** 2
    loss.backward()
    total += loss.item()
    hist.append(float(loss.detach()))
    with torch.no_grad():
        w -= 0.1 * w.grad
    w.grad.zero_()
note("total", total)
note("hist", hist)
note("w", [w, w.is_leaf, w.requires_grad, w._version])
acc = 0
for x in xs:
    acc = acc + (w * x).sum()
note("acc tensor", [acc.grad_fn.name(), acc.requires_grad])
acc.backward()
grads("w", w=w)
attempt("item nonscalar", lambda: w.item())
note("one-element item", torch.tensor([[3.5]]).item())
note("int", int(torch.tensor(2.7)))
note("bool", bool(torch.tensor(0.0)))
attempt("bool multi", lambda: bool(torch.tensor([1.0, 2.0])))
attempt("float multi", lambda: float(torch.tensor([1.0, 2.0])))
attempt("float requires grad", lambda: note("float rg", float(w.sum())))
note("tolist scalar", w.sum().tolist())
