# TEACHES: a custom torch.autograd.Function with ctx.save_for_backward: node name is
#   "<ClassName>Backward", saved_tensors in backward, gradient values, mark_non_differentiable-free
#   simple case; the node is single-use like built-ins.
# EXPECT: name "MyCubeBackward"; grad = 3x^2 * upstream.
class MyCube(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x ** 3

    @staticmethod
    def backward(ctx, g):
        (x,) = ctx.saved_tensors
        return 3 * x ** 2 * g

x = torch.tensor([1.0, 2.0], requires_grad=True)
y = MyCube.apply(x)
probe("custom", y=y, x=x)
note("name", y.grad_fn.name())
y.sum().backward(retain_graph=True)
grads(x=x)
attempt("second backward with retain", lambda: y.sum().backward())
attempt("third backward", lambda: y.sum().backward())
