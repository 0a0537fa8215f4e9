# TEACHES: in-place op on a tensor that does not require grad with an operand that does: the target
#   becomes a non-leaf (AddBackward0 / MulBackward0 with None for its old history); its version
#   increments; backward reaches the operand only; in-place on a plain leaf used as accumulator in
#   a loop (acc += x * w) builds a chain.
# EXPECT: probes and grads.
w = torch.tensor([2.0, 3.0], requires_grad=True)
t = torch.ones(2)
t.add_(w)
probe("t.add_(w)", t=t, w=w)
note("version", t._version)
t.mul_(w)
probe("then mul_(w)", t=t, w=w)
t.sum().backward()
grads("t", w=w)
w.grad = None
acc = torch.zeros(2)
for k in range(3):
    acc += w * (k + 1)
probe("accumulator", acc=acc, w=w)
note("acc version", acc._version)
acc.sum().backward()
grads("acc", w=w)
