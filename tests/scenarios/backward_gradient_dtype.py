# TEACHES: backward's gradient argument: a float64 or an int64 gradient for a float32 output is
#   accepted (cast); a python list is rejected with a TypeError.
# EXPECT: x.grad 2 then 4; TypeError "gradients can be either Tensors or None, but got float".
x = torch.tensor([1.0, 2.0], requires_grad=True)
y = x * 2
attempt("float64 gradient for float32 output", lambda: y.backward(torch.tensor([1.0, 1.0], dtype=torch.float64), retain_graph=True))
grads("a", x=x)
attempt("int gradient for float32 output", lambda: y.backward(torch.tensor([1, 1]), retain_graph=True))
grads("b", x=x)
attempt("python list gradient", lambda: y.backward([1.0, 1.0], retain_graph=True))
