# TEACHES: retain_grad() on a non-leaf base and on a view of it, then an in-place op on the view:
#   base.grad_fn becomes CopySlices and the view's grad_fn AsStridedBackward0; both retained grads
#   are gradients w.r.t. the LATEST versions (base.grad includes the view's use: [1, 3, 4, 4]; the
#   view's grad is [1, 1]).
# EXPECT: grads recorded; probe shows CopySlices / AsStridedBackward0.
x = torch.tensor([1.0, 2.0, 3.0, 4.0], requires_grad=True)
base = x * 2
base.retain_grad()
v = base[1:3]
v.retain_grad()
v.mul_(10)
loss = (base * torch.tensor([1.0, 2.0, 3.0, 4.0])).sum() + v.sum()
loss.backward()
grads("retained", base=base, v=v, x=x)
probe("graph", base=base, v=v, x=x)
