# TEACHES: softmax/log_softmax along dim 0, -1 and on 3-D input; softmax without dim warns
#   (implicit dimension choice); cross_entropy with ignore_index / weight; nll_loss reduction='none'; l1/smooth_l1/bce/bce_with_logits values
#   and grads.
# EXPECT: values, grad_fn names and grads recorded.
F = torch.nn.functional
x = torch.tensor([[1.0, 2.0, 0.5], [0.0, -1.0, 3.0]], requires_grad=True)
for name, f in [("softmax dim0", lambda: F.softmax(x, dim=0)), ("softmax dim-1", lambda: torch.softmax(x, -1)),
                ("log_softmax dim0", lambda: x.log_softmax(0)), ("3d softmax dim1", lambda: x.reshape(1, 2, 3).softmax(1))]:
    x.grad = None
    out = f()
    (out * torch.arange(6.0).reshape(out.shape)).sum().backward()
    note(name, [out, out.grad_fn.name()])
    grads(name, x=x)
attempt("F.softmax without dim", lambda: note("implicit", F.softmax(x)))
target = torch.tensor([2, 1])
forms = [("ce ignore_index", lambda: F.cross_entropy(x, target, ignore_index=1)),
         ("ce weight", lambda: F.cross_entropy(x, target, weight=torch.tensor([1.0, 2.0, 0.5]))),
         ("nll none", lambda: F.nll_loss(x.log_softmax(1), target, reduction="none").sum()),
         ("l1", lambda: F.l1_loss(x, torch.ones(2, 3))),
         ("smooth_l1", lambda: F.smooth_l1_loss(x, torch.ones(2, 3))),
         ("bce", lambda: F.binary_cross_entropy(torch.sigmoid(x), torch.tensor([[1.0, 0.0, 1.0], [0.0, 0.0, 1.0]]))),
         ("bce_with_logits", lambda: F.binary_cross_entropy_with_logits(x, torch.tensor([[1.0, 0.0, 1.0], [0.0, 0.0, 1.0]])))]
for name, f in forms:
    x.grad = None
    out = f()
    note(name, [out, out.grad_fn.name()])
    out.backward()
    grads(name, x=x)
attempt("ce float target of wrong shape", lambda: F.cross_entropy(x, torch.tensor([1.0, 2.0])))
attempt("ce target out of range", lambda: F.cross_entropy(x, torch.tensor([0, 3])))
attempt("ce batch mismatch", lambda: F.cross_entropy(x, torch.tensor([0, 1, 2])))
