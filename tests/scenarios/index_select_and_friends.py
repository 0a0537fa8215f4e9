# TEACHES: narrow / flip / repeat / index_select / masked_select / roll / take gradients and node
#   names (duplicated indices accumulate).
# EXPECT: names and grads recorded.
A = torch.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]], requires_grad=True)
forms = [("narrow", lambda: A.narrow(1, 1, 2)), ("flip", lambda: A.flip(0)),
         ("repeat", lambda: A.repeat(2, 1)),
         ("index_select", lambda: A.index_select(1, torch.tensor([2, 0, 2]))),
         ("masked_select", lambda: A.masked_select(A > 2.5)), ("roll", lambda: A.roll(1, 1)),
         ("take", lambda: torch.take(A, torch.tensor([0, 5, 5])))]
for name, f in forms:
    A.grad = None
    out = f()
    note(name, [list(out.shape), out.grad_fn.name()])
    (out * torch.arange(1.0, out.numel() + 1).reshape(out.shape)).sum().backward()
    grads(name, A=A)
