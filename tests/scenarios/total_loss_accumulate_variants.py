# TEACHES: total_loss accumulation idioms: `total += loss` keeps every iteration's graph (one
#   backward at the end works; grads = sum); `total += loss.item()` is a float; calling backward
#   on each loss AND on the total afterwards fails (graphs already freed); torch.stack(losses).mean().
# EXPECT: values recorded; error for the reuse case.
w = torch.tensor([1.0, -1.0], requires_grad=True)
data = [torch.tensor([1.0, 2.0]), torch.tensor([0.5, 0.5]), torch.tensor([-1.0, 3.0])]
total = 0
for x in data:
    total += ((w * x).sum() - 1) ** 2
probe("total", total=total, w=w)
total.backward()
grads("sum of losses", w=w)
w.grad = None
running = 0.0
for x in data:
    loss = ((w * x).sum() - 1) ** 2
    loss.backward()
    running += loss.item()
note("running float", [running, type(running).__name__])
grads("per-iteration backward", w=w)
w.grad = None
losses = []
total = torch.tensor(0.0)
for x in data:
    loss = ((w * x).sum() - 1) ** 2
    losses.append(loss)
    total = total + loss
    loss.backward()
attempt("total.backward() after per-loss backwards", lambda: total.backward())
w.grad = None
m = torch.stack([((w * x).sum() - 1) ** 2 for x in data]).mean()
probe("stack mean", m=m)
m.backward()
grads("stack mean", w=w)
