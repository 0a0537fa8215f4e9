# TEACHES: RNN hidden state without detach but with retain_graph=True: every step backprops through
#   the whole history, so gradients grow with the unrolled length; no error because the weights are
#   never modified (no optimizer step).
# EXPECT: all steps ok; W.grad accumulates over the full history.
W = torch.tensor([[0.5, -0.3], [0.2, 0.4]], requires_grad=True)
U = torch.tensor([[1.0, 0.0], [0.0, 1.0]], requires_grad=True)
xs = [torch.tensor([1.0, 0.0]), torch.tensor([0.0, 1.0]), torch.tensor([1.0, 1.0])]
h = torch.zeros(2)
for i, x in enumerate(xs):
    h = torch.tanh(W @ h + U @ x)
    loss = (h ** 2).sum()
    attempt("step %d" % i, lambda: loss.backward(retain_graph=True))
    grads("step %d" % i, W=W, U=U)
probe("final", h=h, W=W, U=U)
