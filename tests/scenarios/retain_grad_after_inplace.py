# TEACHES: retain_grad() on an intermediate that is later modified in place: the retained grad is
#   the gradient w.r.t. the tensor's latest version; retain_grad twice is harmless; retains_grad
#   stays True after in-place.
# EXPECT: h.grad = gradient w.r.t. h after mul_(2) (i.e. the loss's grad wrt modified h).
x = torch.tensor([1.0, 2.0], requires_grad=True)
h = x * 3
h.retain_grad()
h.retain_grad()
h.mul_(2)
note("retains_grad after mul_", h.retains_grad)
loss = (h * torch.tensor([5.0, 7.0])).sum()
loss.backward()
grads("h and x", h=h, x=x)
probe("graph", h=h, x=x)
