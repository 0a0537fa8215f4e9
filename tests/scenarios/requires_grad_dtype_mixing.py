# TEACHES: dtype promotion with grads: float32 leaf * float64 leaf -> float64 result, each leaf's
#   .grad keeps its own dtype; int tensor * float leaf -> float result requiring grad; a python float
#   scalar keeps float32; float64 * python scalar stays float64; grads on int-mixed ops.
# EXPECT: dtypes (as str) and grads recorded.
a = torch.tensor([1.0, 2.0], requires_grad=True)
b = torch.tensor([0.1, 0.2], dtype=torch.float64, requires_grad=True)
i = torch.tensor([3, 4])
y = a * b
z = i * a
w = b * 2.5
u = a / i
note("dtypes", [str(y.dtype), str(z.dtype), str(w.dtype), str(u.dtype), str((i / 2).dtype),
                str((i * 1.5).dtype), str((i + i).dtype), str((i // 2).dtype)])
probe("mixed", y=y, z=z, u=u, a=a, b=b)
(y.sum() + z.sum() + w.sum() + u.sum()).backward()
grads(a=a, b=b)
note("grad dtypes", [str(a.grad.dtype), str(b.grad.dtype)])
attempt("int tensor requires_grad=True via factory", lambda: torch.tensor([1, 2], requires_grad=True))
attempt("float() of int tensor then requires_grad_", lambda: note("ok", i.float().requires_grad_().dtype == torch.float32))
attempt("int in-place with float result", lambda: i.add_(0.5))
attempt("int in-place mul_ by float leaf", lambda: i.mul_(a))
