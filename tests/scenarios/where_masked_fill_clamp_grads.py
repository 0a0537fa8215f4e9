# TEACHES: gradients through selection ops: torch.where with both branches requiring grad (each gets
#   grads only where selected), masked_fill (filled slots get 0), clamp with tensor bounds
#   (ClampBackward0), clamp_min/clamp_max, torch.where producing NaN-safe grads (the classic
#   where(x > 0, sqrt(x), 0) NaN-gradient trap).
# EXPECT: grads recorded, including the nan in the trap.
x = torch.tensor([-1.0, 0.5, 2.0, 4.0], requires_grad=True)
y = torch.tensor([10.0, 20.0, 30.0, 40.0], requires_grad=True)
w = torch.where(x > 1, x * 2, y)
probe("where", w=w, x=x, y=y)
w.sum().backward()
grads("where", x=x, y=y)
x.grad = None
mf = x.masked_fill(x < 1, 0.0)
probe("masked_fill", mf=mf)
(mf * 3).sum().backward()
grads("masked_fill", x=x)
x.grad = None
lo = torch.tensor([0.0, 1.0, 1.0, 1.0])
cl = x.clamp(min=lo)
note("clamp tensor", [cl, cl.grad_fn.name()])
cl.sum().backward()
grads("clamp tensor", x=x)
x.grad = None
(x.clamp_min(0.5).sum() + x.clamp_max(2.0).sum()).backward()
grads("clamp_min + clamp_max", x=x)
x.grad = None
trap = torch.where(x > 0, x.sqrt(), torch.zeros(4))
trap.sum().backward()
grads("where/sqrt trap", x=x)
