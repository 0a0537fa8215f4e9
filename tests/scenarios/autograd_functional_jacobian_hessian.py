# TEACHES: torch.autograd.functional.jacobian / hessian / vjp / hvp for small functions.
# EXPECT: exact matrices recorded.
AF = torch.autograd.functional
x = torch.tensor([1.0, 2.0])
note("jacobian", AF.jacobian(lambda t: torch.stack([t[0] * t[1], t[0] ** 2]), x))
note("hessian", AF.hessian(lambda t: (t ** 3).sum() + t[0] * t[1], x))
note("vjp", AF.vjp(lambda t: t * t, x, torch.tensor([1.0, 0.5])))
note("hvp", AF.hvp(lambda t: (t ** 3).sum(), x, torch.tensor([1.0, 1.0])))
