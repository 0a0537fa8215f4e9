# TEACHES: the checks of torch.autograd.functional: arguments that are not Tensors, v of the wrong
#   count or size, v left out when it cannot be, functions of vhp/hvp/hessian that do not return
#   one scalar, bad strategies, strict mode per function (outputs independent of an input, linear
#   functions, constant outputs) with and without create_graph, and empty tuples.
# EXPECT: values and error messages recorded.
AF = torch.autograd.functional
x = torch.tensor([1.0, 2.0])
y = torch.tensor([0.5, -1.0])
s = torch.tensor(3.0)
for name in ("vjp", "jvp", "vhp", "hvp"):
    fn = getattr(AF, name)
    attempt(name + " list input", lambda: fn(lambda t: t.sum(), [x], x))
    attempt(name + " number in tuple", lambda: fn(lambda a, b: a.sum(), (x, 3), x))
    attempt(name + " v a list", lambda: fn(lambda t: t.sum(), x, [x]))
    attempt(name + " output not a tensor", lambda: fn(lambda t: 3, x, x))
    attempt(name + " v count", lambda: fn(lambda a, b: (a * b).sum(), (x, y), (x,)))
    attempt(name + " v two for one", lambda: fn(lambda t: t * 1, x, (x, x)))
    attempt(name + " v size in tuple",
            lambda: fn(lambda a, b: (a * b).sum(), (x, y), (x, torch.ones(3))))
    attempt(name + " v size", lambda: fn(lambda t: (t * 2).sum(), x, torch.ones(3)))
    attempt(name + " v missing", lambda: fn(lambda t: t * 2, x))
    attempt(name + " v missing, scalar", lambda: note(name + " scalar", fn(lambda t: t * t, s)))
    attempt(name + " vector output", lambda: fn(lambda t: t * 2, x, x))
    attempt(name + " tuple output", lambda: fn(lambda t: (t.sum(),), x, x))
for name in ("jacobian", "hessian"):
    fn = getattr(AF, name)
    attempt(name + " list output", lambda: fn(lambda t: [t], x))
    attempt(name + " strict and vectorize", lambda: fn(lambda t: (t ** 3).sum(), x, strict=True,
                                                       vectorize=True))
    attempt(name + " tuple output", lambda: fn(lambda t: (t.sum(), t.sum()), x))
attempt("jacobian strategy", lambda: AF.jacobian(lambda t: t, x, strategy="sideways"))
attempt("jacobian forward-mode graph",
        lambda: AF.jacobian(lambda t: t, x, strategy="forward-mode", create_graph=True))
attempt("hessian strategy",
        lambda: AF.hessian(lambda t: t.sum(), x, outer_jacobian_strategy="bad"))
attempt("jacobian of an empty input", lambda: AF.jacobian(lambda t: t * 2, torch.ones(0)))
attempt("jacobian with no outputs", lambda: AF.jacobian(lambda t: (), x))
attempt("vjp with no inputs", lambda: AF.vjp(lambda: torch.ones(()), ()))
note("jvp with no inputs", AF.jvp(lambda: torch.ones(()), (), ()))

lin = lambda t: t * 2
lin_sum = lambda t: (t * 2).sum()
cubic = lambda t: (t ** 3).sum()
first_only = lambda a, b: (a * 2).sum()
const = lambda t: torch.ones(())
for name in ("vjp", "jvp", "vhp", "hvp"):
    fn = getattr(AF, name)
    v = torch.ones(()) if name == "vjp" else torch.ones(2)
    for cg in (False, True):
        tag = f"{name} create_graph={cg}: "
        attempt(tag + "linear", lambda: fn(lin, x, torch.ones(2), strict=True, create_graph=cg))
        attempt(tag + "linear sum", lambda: fn(lin_sum, x, v, strict=True, create_graph=cg))
        attempt(tag + "cubic", lambda: note(tag + "cubic", fn(cubic, x, v, strict=True,
                                                             create_graph=cg)))
        attempt(tag + "unused input", lambda: fn(first_only, (x, y), v if name == "vjp" else
                                                  (v, v), strict=True, create_graph=cg))
        attempt(tag + "constant", lambda: fn(const, x, v, strict=True, create_graph=cg))
        attempt(tag + "unused input, not strict",
                lambda: note(tag + "zeros", fn(first_only, (x, y), v if name == "vjp" else
                                               (v, v), create_graph=cg)))
for name in ("jacobian", "hessian"):
    fn = getattr(AF, name)
    for cg in (False, True):
        tag = f"{name} create_graph={cg}: "
        attempt(tag + "linear", lambda: fn(lin if name == "jacobian" else lin_sum, x, strict=True,
                                           create_graph=cg))
        attempt(tag + "quadratic", lambda: note(tag + "quadratic", fn(
            lambda t: (t ** 2).sum(), x, strict=True, create_graph=cg)))
        attempt(tag + "unused input", lambda: fn(first_only, (x, y), strict=True,
                                                 create_graph=cg))
        attempt(tag + "constant", lambda: fn(const, x, strict=True, create_graph=cg))
        attempt(tag + "one input linear", lambda: fn(lambda a, b: (a * a).sum() + (b * 2).sum(),
                                                     (x, y), strict=True, create_graph=cg))
