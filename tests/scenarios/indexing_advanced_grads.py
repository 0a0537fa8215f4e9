# TEACHES: gradients and node names of indexing forms: negative index, step slices, list index with
#   duplicates (gradients accumulate), boolean mask, 2-D fancy indexing, index with a LongTensor of
#   shape (2, 2), None/ellipsis, gather.
# EXPECT: grad_fn names recorded per form and the grads.
A = torch.tensor([[1.0, 2.0, 3.0, 4.0], [5.0, 6.0, 7.0, 8.0], [9.0, 10.0, 11.0, 12.0]],
                 requires_grad=True)
forms = [("A[-1]", lambda: A[-1]), ("A[:, -2]", lambda: A[:, -2]), ("A[::2, 1::2]", lambda: A[::2, 1::2]),
         ("A[[0, 0, 2]]", lambda: A[[0, 0, 2]]), ("A[A > 6]", lambda: A[A > 6]),
         ("A[[0, 2], [1, 3]]", lambda: A[[0, 2], [1, 3]]),
         ("A[torch.tensor([[0, 1], [1, 1]])]", lambda: A[torch.tensor([[0, 1], [1, 1]])]),
         ("A[None, 1]", lambda: A[None, 1]), ("A[..., 1:3]", lambda: A[..., 1:3]),
         ("A[1:, [0, 3]]", lambda: A[1:, [0, 3]]),
         ("gather", lambda: A.gather(1, torch.tensor([[0, 0], [1, 3], [2, 2]]))),
         ("A[-2:, :-1]", lambda: A[-2:, :-1]), ("A[1][2]", lambda: A[1][2])]
for name, f in forms:
    A.grad = None
    out = f()
    note(name + " shape/grad_fn", [list(out.shape), out.grad_fn.name()])
    (out * torch.arange(1.0, out.numel() + 1).reshape(out.shape)).sum().backward()
    grads(name, A=A)
probe("gather graph", g=A.gather(1, torch.tensor([[0], [1], [2]])), A=A)
attempt("index out of range", lambda: A[3])
attempt("index out of range dim 1", lambda: A[0, -5])
attempt("list index out of range", lambda: A[[0, 5]])
attempt("too many indices", lambda: A[0, 0, 0])
