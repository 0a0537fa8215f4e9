# TEACHES: nn.Sequential with ReLU/Tanh/Sigmoid/Dropout; eval mode disables dropout; named_parameters order; module.zero_grad() sets None.
torch.manual_seed(0)
m = torch.nn.Sequential(torch.nn.Linear(2, 3), torch.nn.ReLU(), torch.nn.Dropout(0.5),
                        torch.nn.Linear(3, 2), torch.nn.Tanh(), torch.nn.Linear(2, 1), torch.nn.Sigmoid())
note("names", [n for n, _ in m.named_parameters()])
note("shapes", [list(p.shape) for p in m.parameters()])
with torch.no_grad():
    for i, p in enumerate(m.parameters()):
        p.copy_(torch.linspace(-0.5, 0.5, p.numel()).reshape(p.shape) * (i + 1) * 0.3)
note("training", m.training)
m.eval()
note("training after eval", [m.training, m[2].training])
x = torch.tensor([[1.0, -2.0], [0.5, 0.25]])
out = m(x)
probe("out", out=out)
out.sum().backward()
for n, p in m.named_parameters():
    note("grad " + n, p.grad)
m.zero_grad()
note("after zero_grad", [p.grad is None for p in m.parameters()])
out2 = m(x)
out2.mean().backward()
m.zero_grad(set_to_none=False)
note("after zero_grad False", [p.grad for p in m.parameters()])
m.train()
note("train", m[2].training)
with torch.no_grad():
    d = torch.nn.Dropout(0.0)(x)
note("dropout p=0", d)
note("requires grad under no_grad", m(x).requires_grad)
