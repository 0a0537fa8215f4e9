# TEACHES: retain_graph applies per call: retain, retain, retain_graph=False (same as the default),
#   then anything fails, including backward(retain_graph=True) and autograd.grad with
#   retain_graph=True on the freed graph.
# EXPECT: three backwards ok (x.grad = 3 * 2cos(x)), fourth and autograd.grad fail; grads unchanged.
x = torch.tensor([0.5, 1.5], requires_grad=True)
y = torch.sin(x) * 2
loss = y.sum()
attempt("1 retain", lambda: loss.backward(retain_graph=True))
attempt("2 retain", lambda: loss.backward(retain_graph=True))
grads("after 2", x=x)
attempt("3 retain_graph=False", lambda: loss.backward(retain_graph=False))
grads("after 3", x=x)
probe("freed", loss=loss, x=x)
attempt("4 retain_graph=True on freed graph", lambda: loss.backward(retain_graph=True))
attempt("autograd.grad on freed graph", lambda: torch.autograd.grad(loss, x, retain_graph=True))
grads("final", x=x)
