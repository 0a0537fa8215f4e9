# TEACHES: detach_() turns a non-leaf into a leaf in place (grad_fn None, requires_grad False);
#   detach_() on a view errors; requires_grad_(False) on a leaf then True again; a detached tensor
#   used later does not reach the original leaf; detach() result shares storage (mutations visible).
# EXPECT: probes, messages, values.
a = torch.tensor([1.0, 2.0], requires_grad=True)
h = a * 3
h.detach_()
probe("after detach_", h=h)
v = (a * 2).view(2)
attempt("detach_ on a view", lambda: v.detach_())
probe("view after failed detach_", v=v)
b = torch.tensor([3.0], requires_grad=True)
b.requires_grad_(False)
probe("b off", b=b)
b.requires_grad_(True)
probe("b on", b=b)
d = a.detach()
d[0] = 100.0
note("a sees detach mutation", a)
loss = (h * a).sum() + (d * a).sum()
loss.backward()
grads(a=a)
note("requires_grad of sum of detached", (h + d).requires_grad)
