# TEACHES: more nn.Module hook forms: forward pre-hooks (replacing the input), forward hooks with
#   kwargs, hook order with prepend, full backward pre-hooks (replacing grad_output), a full
#   backward hook replacing grad_input, the graph a full backward hook adds
#   (BackwardHookFunctionBackward around inputs and outputs), the hook when no input requires
#   grad (a warning), and mixing full and non-full backward hooks (an error).
# EXPECT: logs, graphs, grads and messages recorded.
log = []
lin = torch.nn.Linear(2, 1)
with torch.no_grad():
    lin.weight.copy_(torch.tensor([[1.0, -1.0]]))
    lin.bias.copy_(torch.tensor([0.5]))
x = torch.tensor([[1.0, 2.0]], requires_grad=True)
h1 = lin.register_forward_pre_hook(lambda m, inp: (inp[0] * 2,))
h2 = lin.register_forward_hook(lambda m, inp, out: log.append(("fwd a", out.tolist())))
h3 = lin.register_forward_hook(lambda m, inp, out: log.append(("fwd b", out.tolist())),
                               prepend=True)
h4 = lin.register_full_backward_pre_hook(lambda m, gout: (gout[0] * 10,))
h5 = lin.register_full_backward_hook(lambda m, gin, gout: (gin[0] + 1,))
out = lin(x)
probe("hooked", out=out, x=x, w=lin.weight, b=lin.bias)
note("out", [out.is_leaf, out.grad_fn.name()])
attempt("inplace on hooked output", lambda: out.relu_())
out.sum().backward()
grads("hooked", x=x, w=lin.weight, b=lin.bias)
note("log", log)
for h in (h1, h2, h3, h4, h5):
    h.remove()
log.clear()
lin.zero_grad()
lin.register_full_backward_hook(lambda m, gin, gout: log.append(
    ("no input grad", list(gin), [g.tolist() for g in gout])))
attempt("no input grad backward", lambda: lin(torch.tensor([[1.0, 2.0]])).sum().backward())
note("no input grad", log)
grads("no input grad", w=lin.weight)
attempt("mixing hooks", lambda: lin.register_backward_hook(lambda m, gi, go: None))
lin2 = torch.nn.Linear(2, 1)
lin2.register_forward_hook(lambda m, args, kwargs, out: log.append(("kw", sorted(kwargs))),
                           with_kwargs=True)
lin2(input=x)
note("with kwargs", log[-1])
