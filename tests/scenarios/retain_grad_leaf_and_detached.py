# TEACHES: retain_grad() on a tensor that does not require grad raises; on a leaf it is a no-op;
#   retain_grad on a non-leaf used twice accumulates both paths.
# EXPECT: RuntimeError "can't retain_grad on Tensor that has requires_grad=False"; y.grad = sum of
#   both uses.
c = torch.tensor([1.0, 2.0])
attempt("c.retain_grad() on no-grad tensor", lambda: c.retain_grad())
x = torch.tensor([1.0, 2.0], requires_grad=True)
y = x ** 2
y.retain_grad()
z = (y * 3 + y.exp()).sum()
z.backward()
grads(y=y, x=x)
note("retains_grad", [x.retains_grad, y.retains_grad])
