# TEACHES: more torch.autograd.functional forms: tuple inputs and outputs, jvp and vhp (double
#   backward trick), create_graph=True results that stay in the graph, strict mode errors, and v
#   of the wrong size.
# EXPECT: values, requires_grad flags and error messages recorded.
AF = torch.autograd.functional
x = torch.tensor([1.0, 2.0])
y = torch.tensor([0.5, -1.0])
note("jacobian tuple", AF.jacobian(lambda a, b: (a * b, (a ** 2).sum()), (x, y)))
note("hessian tuple", AF.hessian(lambda a, b: (a * b * b).sum(), (x, y)))
note("jvp", AF.jvp(lambda t: t ** 2, x, torch.tensor([1.0, 1.0])))
note("vhp", AF.vhp(lambda t: (t ** 3).sum(), x, torch.tensor([1.0, 0.0])))
note("vjp tuple", AF.vjp(lambda a, b: a * b, (x, y), torch.tensor([1.0, 2.0])))
w = torch.tensor([1.0, 2.0], requires_grad=True)
jac = AF.jacobian(lambda t: t ** 3, w, create_graph=True)
note("create_graph", [jac.requires_grad, jac.grad_fn is not None])
jac.sum().backward()
grads("through jacobian", w=w)
attempt("strict independent", lambda: AF.jacobian(lambda a, b: a * 2, (x, y), strict=True))
attempt("strict no grad output", lambda: AF.vjp(lambda a: torch.ones(2), x, torch.ones(2),
                                                strict=True))
attempt("v wrong size", lambda: AF.vjp(lambda a: a * 2, x, torch.ones(3)))
attempt("v missing", lambda: AF.vjp(lambda a: a * 2, x))
attempt("hessian of a vector", lambda: AF.hessian(lambda a: a * 2, x))
attempt("not a tensor", lambda: AF.jacobian(lambda a: a, [x]))
note("unused input", AF.jacobian(lambda a, b: a * 2, (x, y)))
