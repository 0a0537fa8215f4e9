# TEACHES: SGD variants: momentum, dampening, nesterov, weight_decay, maximize; per-parameter-group
#   learning rates; changing lr in param_groups mid-training.
# EXPECT: exact trajectories.
def run(label, **kw):
    p = torch.nn.Parameter(torch.tensor([1.0, -2.0]))
    opt = torch.optim.SGD([p], lr=0.1, **kw)
    traj = []
    for i in range(4):
        opt.zero_grad()
        ((p - torch.tensor([0.5, 0.5])) ** 2).sum().backward()
        opt.step()
        traj.append(p.tolist())
    note(label, traj)

run("plain")
run("momentum 0.9", momentum=0.9)
run("momentum + dampening", momentum=0.9, dampening=0.5)
run("nesterov", momentum=0.9, nesterov=True)
run("weight_decay", weight_decay=0.1)
run("maximize", maximize=True)
a = torch.nn.Parameter(torch.tensor([1.0]))
b = torch.nn.Parameter(torch.tensor([1.0]))
opt = torch.optim.SGD([{"params": [a]}, {"params": [b], "lr": 0.5}], lr=0.1)
for i in range(3):
    opt.zero_grad()
    (a * 2 + b * 3).sum().backward()
    opt.step()
    if i == 0:
        for g in opt.param_groups:
            g["lr"] = g["lr"] * 0.1
    note("groups step %d" % i, [a, b])
note("param_groups lrs", [g["lr"] for g in opt.param_groups])
