# TEACHES: hooks on autograd nodes: grad_fn.register_prehook(fn(grad_outputs)) and
#   grad_fn.register_hook(fn(grad_inputs, grad_outputs)) see tuples; a prehook can replace the
#   incoming gradient; post hook can replace grad_inputs; tensor.register_post_accumulate_grad_hook
#   fires after .grad is updated.
# EXPECT: log of tuples (None for no-grad slots) and final grads.
log = []
x = torch.tensor([1.0, 2.0], requires_grad=True)
c = torch.tensor([3.0, 4.0])
y = x * c
y.grad_fn.register_prehook(lambda go: log.append(("pre", [g.tolist() for g in go])))
y.grad_fn.register_hook(lambda gi, go: log.append(("post", [None if g is None else g.tolist() for g in gi],
                                                   [g.tolist() for g in go])))
y.sum().backward()
note("log", log)
grads(x=x)
log.clear()
x.grad = None
z = x * c
z.grad_fn.register_prehook(lambda go: (go[0] * 10,))
z.grad_fn.register_hook(lambda gi, go: (gi[0] + 1, gi[1]))
z.sum().backward()
grads("replaced", x=x)
x.grad = None
x.register_post_accumulate_grad_hook(lambda t: log.append(("post-acc", t.grad.tolist())))
(x * 2).sum().backward()
(x * 2).sum().backward()
note("post-acc log", log)
