# TEACHES: gradients of a broadcast operand are summed over the broadcast dims; accumulation
#   across backwards adds; .grad keeps the leaf's shape and dtype; grad.zero_() resets in place (same
#   tensor object), grad = None resets by removal.
# EXPECT: bias grad summed over rows; doubled after the second pass; zeros after zero_(); identity kept.
W = torch.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]], requires_grad=True)
bias = torch.tensor([0.1, 0.2, 0.3], requires_grad=True)
s = torch.tensor([[2.0], [3.0]], requires_grad=True)
out = ((W + bias) * s).sum()
out.backward()
grads("first", W=W, bias=bias, s=s)
g_before = bias.grad
((W + bias) * s).sum().backward()
grads("second", W=W, bias=bias, s=s)
note("same grad object after accumulation", bias.grad is g_before)
bias.grad.zero_()
note("same object after zero_", bias.grad is g_before)
grads("after zero_", bias=bias)
s.grad = None
((W + bias) * s).mean().backward()
grads("after mean", W=W, bias=bias, s=s)
note("grad shapes", [list(W.grad.shape), list(bias.grad.shape), list(s.grad.shape)])
