# TEACHES: integer tensors in autograd code: int / int -> float, int // int stays int, sum of ints is
#   int64, mean() of an int tensor errors, sum(dtype=float32), an int tensor as the exponent /
#   multiplier of a float leaf (grads only for the float), float() then requires_grad_(), softmax of
#   an int tensor is NotImplementedError, arange(dtype=float32, requires_grad=True) is fine.
# EXPECT: dtypes, values, messages recorded.
i = torch.tensor([1, 2, 3])
j = torch.tensor([2, 2, 2])
note("dtypes", [str((i / j).dtype), str((i // j).dtype), str(i.sum().dtype), str((i * 1.0).dtype),
                str((i > 1).dtype), str(i.argmax().dtype), str(torch.arange(3).dtype),
                str(torch.arange(3.0).dtype), str((i + torch.tensor(1.5)).dtype)])
note("values", [i / j, i // j, i.sum()])
attempt("int mean", lambda: i.mean())
attempt("int sum(dtype=float)", lambda: note("sum float", i.sum(dtype=torch.float32)))
x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
y = (x ** i).sum() + (x * j).sum() + (i.float() * x).sum()
probe("mixed", y=y, x=x)
y.backward()
grads(x=x)
f = i.float().requires_grad_()
(f * f).sum().backward()
grads(f=f)
attempt("int tensor in softmax", lambda: torch.softmax(i, 0))
attempt("requires_grad float from int arange", lambda: torch.arange(3, dtype=torch.float32, requires_grad=True))
