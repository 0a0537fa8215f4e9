# TEACHES: _version of parameters through a training setup: nn.Linear init (kaiming/uniform in-place
#   init bumps versions), copy_ under no_grad, each optimizer step (SGD, SGD+momentum, Adam, AdamW
#   with weight decay), zero_grad; the version error after an AdamW step quotes these numbers.
# EXPECT: version lists recorded; error message with the exact version numbers.
lin = torch.nn.Linear(2, 2)
note("after init", [lin.weight._version, lin.bias._version])
with torch.no_grad():
    lin.weight.copy_(torch.tensor([[1.0, 0.5], [-0.5, 1.0]]))
    lin.bias.copy_(torch.tensor([0.1, -0.1]))
note("after copy_", [lin.weight._version, lin.bias._version])
x = torch.tensor([[1.0, 2.0]], requires_grad=True)
for name, opt in [("SGD", torch.optim.SGD(lin.parameters(), lr=0.1)),
                  ("SGD momentum", torch.optim.SGD(lin.parameters(), lr=0.1, momentum=0.9, weight_decay=0.01)),
                  ("Adam", torch.optim.Adam(lin.parameters(), lr=0.1)),
                  ("AdamW", torch.optim.AdamW(lin.parameters(), lr=0.1, weight_decay=0.1))]:
    for i in range(2):
        opt.zero_grad()
        lin(x).pow(2).sum().backward()
        opt.step()
    note(name + " versions", [lin.weight._version, lin.bias._version])
    note(name + " weight", lin.weight)
    note(name + " grad version", lin.weight.grad._version)
opt = torch.optim.AdamW(lin.parameters(), lr=0.1, weight_decay=0.1)
loss = lin(x).pow(2).sum()
loss.backward(retain_graph=True)
opt.step()
attempt("backward after AdamW step", lambda: loss.backward())
note("x.grad version", x.grad._version)
