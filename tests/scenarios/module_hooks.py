# TEACHES: nn.Module forward hooks and full backward hooks in a training step: forward hook sees
#   (module, input tuple, output) and can replace the output; full backward hook sees grad_input /
#   grad_output tuples.
# EXPECT: logs of shapes and values.
lin = torch.nn.Linear(2, 1)
with torch.no_grad():
    lin.weight.copy_(torch.tensor([[1.0, -1.0]]))
    lin.bias.copy_(torch.tensor([0.5]))
log = []
hf = lin.register_forward_hook(lambda m, inp, out: log.append(("fwd", len(inp), out.tolist())))
hb = lin.register_full_backward_hook(
    lambda m, gin, gout: log.append(("bwd", [None if g is None else g.tolist() for g in gin],
                                     [g.tolist() for g in gout])))
x = torch.tensor([[1.0, 2.0]], requires_grad=True)
lin(x).sum().backward()
note("log", log)
grads(x=x, w=lin.weight)
hf.remove()
hb.remove()
lin.register_forward_hook(lambda m, inp, out: out * 2)
note("replaced output", lin(x))
