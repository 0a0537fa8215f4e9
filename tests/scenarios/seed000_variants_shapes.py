# TEACHES: seed-000 story with other shapes: y = a @ t (1-D @ 2-D: SqueezeBackward4 <- MmBackward0)
#   and y = t.mm(a2) (2-D) reused in a loop; iteration 1 fails with backward-twice; with
#   retain_graph=True both work and grads accumulate; a float64 variant.
# EXPECT: loop fails at i=1 in the plain case; probes show the freed MmBackward0.
t = torch.tensor([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]])
a = torch.tensor([0.5, -0.5, 1.0], requires_grad=True)
y = a @ t
probe("y = a @ t", y=y, a=a)
for i in range(2):
    z = (y * (i + 1)).sum()
    if not attempt("plain iteration %d" % i, lambda: z.backward()):
        break
probe("after failure", y=y, a=a)
grads(a=a)
a2 = torch.tensor([[1.0], [-1.0]], dtype=torch.float64, requires_grad=True)
y2 = t.double().mm(a2)
for i in range(3):
    z2 = y2.pow(2).sum()
    attempt("retain iteration %d" % i, lambda: z2.backward(retain_graph=True))
    grads("retain iteration %d" % i, a2=a2)
probe("y2", y2=y2, a2=a2)
