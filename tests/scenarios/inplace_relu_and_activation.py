# TEACHES: in-place activations on intermediates: relu_() (saves its result, fine for backward),
#   F.relu(inplace=True), sigmoid_ then using the result in mul, and the error when relu_ overwrites
#   a tensor that an earlier mul had saved (message names "output 0 of Relu": the tensor's latest
#   producer).
# EXPECT: grad_fn names ReluBackward0 / SigmoidBackward0; the last case raises the version error.
x = torch.tensor([-1.0, 0.5, 2.0], requires_grad=True)
h = x * 2
h.relu_()
probe("relu_", h=h, x=x)
h.sum().backward()
grads("relu_", x=x)
x.grad = None
h2 = torch.nn.functional.relu(x * 3, inplace=True)
probe("F.relu inplace", h2=h2)
h2.sum().backward()
grads("F.relu inplace", x=x)
x.grad = None
h3 = x * 1
h3.sigmoid_()
(h3 * h3).sum().backward()
grads("sigmoid_", x=x)
h4 = x * 1
e = h4 * h4
h4.relu_()
attempt("mul input overwritten by relu_", lambda: e.sum().backward())
