# TEACHES: newer cross_entropy forms: label_smoothing (graph root AddBackward0) and class-probability
#   (float) targets (root DivBackward1), plus nn.CrossEntropyLoss(label_smoothing=...).
# EXPECT: values, grad_fn names and grads recorded.
F = torch.nn.functional
x = torch.tensor([[1.0, 2.0, 0.5], [0.0, -1.0, 3.0]], requires_grad=True)
target = torch.tensor([2, 1])
forms = [("ce label_smoothing", lambda: F.cross_entropy(x, target, label_smoothing=0.1)),
         ("ce prob targets", lambda: F.cross_entropy(x, torch.tensor([[0.2, 0.3, 0.5], [1.0, 0.0, 0.0]]))),
         ("CrossEntropyLoss(label_smoothing=0.2, reduction='sum')",
          lambda: torch.nn.CrossEntropyLoss(label_smoothing=0.2, reduction="sum")(x, target))]
for name, f in forms:
    x.grad = None
    out = f()
    note(name, [out, out.grad_fn.name()])
    out.backward()
    grads(name, x=x)
