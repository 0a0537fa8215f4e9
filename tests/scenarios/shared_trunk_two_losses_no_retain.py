# TEACHES: two losses built on a shared MvBackward0 trunk. The first backward (no retain) frees the
#   trunk's saved tensors; the second loss's backward then fails with backward-twice even though its
#   own head node (MulBackward0) is still alive. Nodes run before the failing one still did their work:
#   w's AccumulateGrad ran first, so w.grad IS filled by the failed backward.
# EXPECT: loss1 ok; loss2 -> RuntimeError backward-twice; a.grad from loss1 only, w.grad = y.
t = torch.tensor([[1.0, 2.0], [3.0, 4.0]])
a = torch.tensor([0.5, -1.0], requires_grad=True)
w = torch.tensor([2.0, 3.0], requires_grad=True)
y = t @ a
loss1 = y.sum()
loss2 = (y * w).sum()
probe("before", loss1=loss1, loss2=loss2, a=a, w=w)
attempt("loss1.backward()", lambda: loss1.backward())
probe("after loss1", loss1=loss1, loss2=loss2, a=a, w=w)
attempt("loss2.backward()", lambda: loss2.backward())
grads("after failure", a=a, w=w)
attempt("loss1.backward() again (Sum/Mv: Mv freed)", lambda: loss1.backward())
