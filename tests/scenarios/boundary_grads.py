# TEACHES: clamp at boundaries, abs at 0, relu at 0, sqrt at 0 (inf grads), pow with negative base and integer exponent, sign, hardtanh boundaries.
x = torch.tensor([-1.0, 0.0, 0.5, 1.0, 2.0], requires_grad=True)
x.clamp(0.0, 1.0).sum().backward()
grads("clamp", x=x)
x.grad = None
x.clamp(min=0.0).sum().backward()
grads("clamp min", x=x)
x.grad = None
x.abs().sum().backward()
grads("abs", x=x)
x.grad = None
x.relu().sum().backward()
grads("relu", x=x)
x.grad = None
torch.nn.functional.relu(x).sum().backward()
grads("F.relu", x=x)
x.grad = None
z = torch.tensor([0.0, 4.0], requires_grad=True)
z.sqrt().sum().backward()
grads("sqrt", z=z)
z.grad = None
(z.sqrt() * 0).sum().backward()
grads("sqrt * 0", z=z)
z.grad = None
(z ** 0.5).sum().backward()
grads("pow half", z=z)
z.grad = None
(z ** 0).sum().backward()
grads("pow 0", z=z)
n = torch.tensor([-2.0, -0.5, 0.0, 3.0], requires_grad=True)
(n ** 3).sum().backward()
grads("neg base int exp", n=n)
n.grad = None
(n ** 2.0).sum().backward()
grads("neg base float 2", n=n)
n.grad = None
p = n ** 1.5
note("p nan", p)
p.sum().backward()
grads("neg base 1.5", n=n)
n.grad = None
(n ** -1).sum().backward()
grads("pow -1", n=n)
n.grad = None
attempt("hardtanh", lambda: torch.nn.functional.hardtanh(x * 1).sum().backward())
grads("hardtanh", x=x)
x.grad = None
x.sign().sum().backward()
grads("sign", x=x)
x.grad = None
torch.pow(2.0, x).sum().backward()
grads("scalar base", x=x)
x.grad = None
torch.nn.functional.leaky_relu(x, 0.1).sum().backward()
grads("leaky", x=x)
x.grad = None
z.log().sum().backward()
grads("log 0", z=z)
