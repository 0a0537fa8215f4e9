# TEACHES: backward(inputs=[...]) accumulates only into the listed tensors; others keep None;
#   a non-leaf in inputs gets its .grad populated (no warning on access); inputs=[] errors.
# EXPECT: only b.grad filled first; then a.grad; h.grad filled via inputs.
a = torch.tensor([1.0, 2.0], requires_grad=True)
b = torch.tensor([3.0, 4.0], requires_grad=True)
h = a * b
loss = (h * h).sum()
attempt("backward(inputs=[b])", lambda: loss.backward(inputs=[b], retain_graph=True))
grads("only b", a=a, b=b)
attempt("backward(inputs=[a])", lambda: loss.backward(inputs=[a], retain_graph=True))
grads("then a", a=a, b=b)
attempt("backward(inputs=[h])", lambda: loss.backward(inputs=[h], retain_graph=True))
grads("h populated", h=h)
attempt("backward(inputs=[])", lambda: loss.backward(inputs=[], retain_graph=True))
attempt("backward(inputs=a) single tensor", lambda: loss.backward(inputs=a))
grads("end", a=a, b=b)
