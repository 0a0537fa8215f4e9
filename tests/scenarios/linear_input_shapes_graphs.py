# TEACHES: nn.Linear graph shapes for 1-D, 2-D and 3-D inputs, with and without bias, with an input
#   that requires grad; and after a backward without retain, which nodes are freed (probe).
# EXPECT: names recorded (ViewBackward0/AddmmBackward0/MmBackward0/UnsqueezeBackward0/TBackward0...).
lin = torch.nn.Linear(3, 2)
nob = torch.nn.Linear(3, 2, bias=False)
with torch.no_grad():
    lin.weight.copy_(torch.tensor([[0.1, 0.2, 0.3], [-0.1, 0.0, 0.4]]))
    lin.bias.copy_(torch.tensor([0.5, -0.5]))
    nob.weight.copy_(torch.tensor([[1.0, 0.0, -1.0], [0.5, 0.5, 0.5]]))
x1 = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
x2 = torch.tensor([[1.0, 2.0, 3.0], [0.0, 1.0, 0.0]])
x3 = torch.arange(12.0).reshape(2, 2, 3)
for name, out in [("1-D input requires grad", lin(x1)), ("2-D", lin(x2)), ("3-D", lin(x3)),
                  ("no bias 1-D", nob(x1)), ("no bias 3-D", nob(x3))]:
    probe(name, out=out, x1=x1, w=lin.weight, b=lin.bias, wn=nob.weight)
    out.sum().backward()
    probe(name + " after backward", out=out)
grads(x1=x1, w=lin.weight, b=lin.bias, wn=nob.weight)
