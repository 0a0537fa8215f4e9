# TEACHES: a shared intermediate whose node saves nothing (AddBackward0) can be backwarded through
#   again after another loss's backward freed its own multiplication nodes; only the nodes that saved
#   tensors are single-use.
# EXPECT: loss_mul ok, loss_sum ok (AddBackward0 + SumBackward0 save nothing), loss_mul again fails.
a = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
y = a + 1
loss_mul = (y * y).sum()
loss_sum = y.sum()
attempt("loss_mul.backward()", lambda: loss_mul.backward())
grads("after loss_mul", a=a)
attempt("loss_sum.backward()", lambda: loss_sum.backward())
grads("after loss_sum", a=a)
attempt("loss_sum.backward() again", lambda: loss_sum.backward())
grads("after loss_sum twice", a=a)
attempt("loss_mul.backward() again", lambda: loss_mul.backward())
probe("final", loss_mul=loss_mul, loss_sum=loss_sum, y=y, a=a)
