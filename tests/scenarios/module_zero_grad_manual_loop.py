# TEACHES: manual training loop with module.parameters() update under no_grad, module.zero_grad(), parameters vs named_parameters, requires_grad_(False) freezing.
torch.manual_seed(0)
m = torch.nn.Sequential(torch.nn.Linear(2, 2), torch.nn.Tanh(), torch.nn.Linear(2, 1))
with torch.no_grad():
    m[0].weight.copy_(torch.tensor([[0.2, -0.4], [0.6, 0.1]]))
    m[0].bias.copy_(torch.tensor([0.0, 0.1]))
    m[2].weight.copy_(torch.tensor([[0.5, -0.5]]))
    m[2].bias.fill_(0.2)
x = torch.tensor([[1.0, 2.0], [3.0, -1.0], [0.0, 1.0]])
y = torch.tensor([[1.0], [0.0], [0.5]])
m[0].bias.requires_grad_(False)
for step in range(3):
    m.zero_grad()
    loss = ((m(x) - y) ** 2).mean()
    loss.backward()
    note("grads none", [p.grad is None for p in m.parameters()])
    with torch.no_grad():
        for p in m.parameters():
            if p.grad is not None:
                p -= 0.1 * p.grad
    note("loss", loss.item())
note("params", [p for p in m.parameters()])
note("rg", [(n, p.requires_grad) for n, p in m.named_parameters()])
note("versions", [p._version for p in m.parameters()])
opt = torch.optim.SGD(filter(lambda p: p.requires_grad, m.parameters()), lr=0.1, momentum=0.9)
for _ in range(2):
    opt.zero_grad()
    loss = ((m(x) - y) ** 2).sum()
    loss.backward()
    opt.step()
note("after opt", [p for p in m.parameters()])
probe("loss", loss=loss)
