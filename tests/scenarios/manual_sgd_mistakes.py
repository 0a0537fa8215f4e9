# TEACHES: manual parameter updates: `w -= lr * w.grad` outside no_grad -> leaf in-place error;
#   `w = w - lr * w.grad` makes w a non-leaf (next iteration's w.grad is None with the warning);
#   the correct no_grad update plus w.grad.zero_(); `w.data -= lr * w.grad.data` idiom.
# EXPECT: messages; the non-leaf w; correct trajectories.
w = torch.tensor([1.0, -1.0], requires_grad=True)
x = torch.tensor([2.0, 3.0])

def bad_inplace():
    global w
    w -= 0.1 * w.grad

((w * x).sum() ** 2).backward()
attempt("w -= lr * w.grad", bad_inplace)
w = w - 0.1 * w.grad
probe("rebound w", w=w)
((w * x).sum() ** 2).backward()
grads("non-leaf w", w=w)
w = torch.tensor([1.0, -1.0], requires_grad=True)
for i in range(3):
    loss = ((w * x).sum() - 1) ** 2
    loss.backward()
    with torch.no_grad():
        w -= 0.01 * w.grad
    w.grad.zero_()
    note("no_grad step %d" % i, [loss.item(), w])
w2 = torch.tensor([1.0, -1.0], requires_grad=True)
for i in range(3):
    loss = ((w2 * x).sum() - 1) ** 2
    loss.backward()
    w2.data -= 0.01 * w2.grad.data
    w2.grad.data.zero_()
note(".data idiom", w2)
note("versions", [w._version, w2._version])
probe("w2 still leaf", w2=w2)
