# TEACHES: seed-003 blog loop variants with exact trajectories: the correct order (zero_grad,
#   backward, step); zero_grad placed between backward and step (grads are None at step -> no
#   learning at all, loss constant); zero_grad omitted (grads accumulate over iterations).
# EXPECT: three loss/weight trajectories recorded.
def make():
    fc = torch.nn.Linear(3, 1)
    with torch.no_grad():
        fc.weight.copy_(torch.tensor([[0.1, -0.2, 0.3]]))
        fc.bias.copy_(torch.tensor([0.05]))
    return fc, torch.optim.SGD(fc.parameters(), lr=0.01)

x = torch.Tensor([1, 2, 3])
t = torch.Tensor([1])
crit = torch.nn.MSELoss()
for mode in ["correct", "zero_grad after backward", "no zero_grad"]:
    fc, opt = make()
    losses = []
    for i in range(4):
        if mode == "correct":
            opt.zero_grad()
        loss = crit(fc(x), t)
        loss.backward()
        if mode == "zero_grad after backward":
            opt.zero_grad()
        opt.step()
        losses.append(loss.item())
    note(mode + " losses", losses)
    note(mode + " weight", fc.weight)
    grads(mode, w=fc.weight, b=fc.bias)
