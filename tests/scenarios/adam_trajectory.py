# TEACHES: Adam on a small regression: exact parameter and loss trajectory over 5 steps with default
#   betas; state contents after steps (step count, exp_avg shapes); Adam with weight_decay and
#   amsgrad=False; zero_grad default sets grads to None.
# EXPECT: exact trajectories.
w = torch.nn.Parameter(torch.tensor([[0.5, -0.3]]))
b = torch.nn.Parameter(torch.tensor([0.1]))
opt = torch.optim.Adam([w, b], lr=0.1)
X = torch.tensor([[1.0, 2.0], [2.0, 0.5], [-1.0, 1.0]])
Y = torch.tensor([[1.0], [2.0], [0.0]])
for i in range(5):
    opt.zero_grad()
    grads("zeroed %d" % i, w=w, b=b)
    loss = ((X @ w.t() + b - Y) ** 2).mean()
    loss.backward()
    opt.step()
    note("step %d" % i, [loss.item(), w, b])
st = opt.state[w]
note("state step", float(st["step"]))
note("exp_avg", st["exp_avg"])
note("exp_avg_sq", st["exp_avg_sq"])
w2 = torch.nn.Parameter(torch.tensor([1.0, -1.0]))
opt2 = torch.optim.Adam([w2], lr=0.05, betas=(0.8, 0.9), weight_decay=0.1)
for i in range(3):
    opt2.zero_grad()
    (w2 ** 2).sum().backward()
    opt2.step()
    note("wd step %d" % i, w2)
