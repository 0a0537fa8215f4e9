# TEACHES: interaction of retain_grad() and a register_hook on the same non-leaf: the retained .grad
#   reflects the hook's modification regardless of registration order in torch 2.x (retain_grad's
#   hook always runs last).
# EXPECT: y1.grad / y2.grad both = hooked gradient (x10).
x = torch.tensor([1.0, 2.0], requires_grad=True)
y1 = x * 3
y1.retain_grad()
y1.register_hook(lambda g: g * 10)
y2 = x * 4
y2.register_hook(lambda g: g * 10)
y2.retain_grad()
(y1 + y2).sum().backward()
grads("retained", y1=y1, y2=y2)
grads("leaf", x=x)
