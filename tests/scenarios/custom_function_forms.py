# TEACHES: more custom torch.autograd.Function forms: several outputs (one non-differentiable, one
#   not a tensor: backward still gets one gradient per output, zeros materialized), non-tensor
#   arguments (their gradient must be None), an input returned as is (a view with the custom node),
#   mark_dirty (the input's history is rebased), setup_context, saving an output, create_graph
#   through the user's backward, and the errors for wrong gradients.
# EXPECT: node names, graphs, grads and error messages recorded.
log = []


class Split(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, k):
        idx = torch.tensor([1, 0])
        ctx.mark_non_differentiable(idx)
        ctx.k = k
        return x * k, idx, 3

    @staticmethod
    def backward(ctx, g, gi, gk):
        log.append(("split", g.tolist(), gi.tolist(), gk))
        return g * ctx.k, None


x = torch.tensor([1.0, 2.0], requires_grad=True)
y, i, k = Split.apply(x, 2.0)
probe("split", y=y, i=i, x=x)
note("needs", [y.grad_fn.needs_input_grad, i.requires_grad, k])
y.sum().backward()
grads("split", x=x)


class Ident(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        return x

    @staticmethod
    def backward(ctx, g):
        return g * 3


x.grad = None
v = Ident.apply(x)
note("ident", [v.is_leaf, v.grad_fn.name(), v._base is x])
attempt("ident inplace", lambda: v.mul_(2))
(v * v).sum().backward()
grads("ident", x=x)


class Twice(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        x.mul_(2)
        ctx.mark_dirty(x)
        return x

    @staticmethod
    def backward(ctx, g):
        return g * 2


x.grad = None
a = x.clone()
r = Twice.apply(a)
note("dirty", [r is a, a.grad_fn.name(), a._version])
probe("dirty", a=a, x=x)
a.sum().backward()
grads("dirty", x=x)
attempt("dirty leaf", lambda: Twice.apply(torch.ones(2, requires_grad=True)))


class Exp(torch.autograd.Function):
    @staticmethod
    def forward(x):
        return x.exp()

    @staticmethod
    def setup_context(ctx, inputs, output):
        ctx.save_for_backward(output)

    @staticmethod
    def backward(ctx, g):
        (out,) = ctx.saved_tensors
        return g * out


x.grad = None
e = Exp.apply(x)
(g,) = torch.autograd.grad(e.sum(), x, create_graph=True)
probe("exp create_graph", g=g, x=x)
g.sum().backward()
grads("exp second order", x=x)
e2 = Exp.apply(x)
e2.add_(1)
attempt("saved output modified", lambda: e2.sum().backward())


class Bad(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, n):
        return x * n

    @staticmethod
    def backward(ctx, g):
        return g, g


class Shape(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        return x * 1

    @staticmethod
    def backward(ctx, g):
        return torch.ones(3)


class Many(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        return x * 1

    @staticmethod
    def backward(ctx, g):
        return g, g


class NotTensor(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x, 3)
        return x * 1


attempt("grad for a non-tensor input", lambda: Bad.apply(x, 2).sum().backward())
attempt("grad of a wrong shape", lambda: Shape.apply(x).sum().backward())
attempt("too many grads", lambda: Many.apply(x).sum().backward())
attempt("save a non-tensor", lambda: NotTensor.apply(x))
note("log", log)
