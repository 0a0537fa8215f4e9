# TEACHES: conversions on tensors that require grad: .item() (no warning), .tolist() (no warning),
#   float()/int()/bool() (float warns once per process), .numpy() errors, item() of a multi-element
#   tensor errors; conversions on 0-dim/1-element tensors and int tensors; round-tripping .tolist()
#   of a 2-D tensor.
# EXPECT: values, warnings and messages recorded.
x = torch.tensor([2.5], requires_grad=True)
y = x * 2
note("item", y.item())
note("tolist", y.tolist())
attempt("float(y)", lambda: note("float", float(y)))
attempt("float(y) again (warn once)", lambda: note("float again", float(y)))
attempt("int(y)", lambda: note("int", int(y)))
attempt("bool(y)", lambda: note("bool", bool(y)))
attempt("y.numpy()", lambda: y.numpy())
note("y.detach().numpy().tolist()", y.detach().numpy().tolist())
m = torch.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True)
attempt("m.item()", lambda: m.item())
attempt("float(m)", lambda: float(m))
attempt("bool(m)", lambda: bool(m > 0))
note("m.tolist()", m.tolist())
note("int tensor item", torch.tensor(7).item())
note("sum().item() type", type(m.sum().item()).__name__)
note("int sum item type", type(torch.tensor([1, 2]).sum().item()).__name__)
note("len(m)", len(m))
attempt("len(0-dim)", lambda: len(torch.tensor(1.0)))
note("m.numel, dim, size", [m.numel(), m.dim(), list(m.size()), m.size(0), m.shape[1]])
