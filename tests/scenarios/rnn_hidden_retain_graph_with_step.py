# TEACHES: RNN without detach, retain_graph=True AND an optimizer step each iteration. Step 0's
#   MvBackward0 for W @ h0 did not save W (h0 = zeros does not require grad), so step 1 works; step 1's
#   W @ h1 saved W at version 1, so after the second step() the backward of step 2 reaches it and
#   fails with the leaf-form version error ("[torch.FloatTensor [2, 2]] is at version 2; expected
#   version 1 instead.").
# EXPECT: steps 0 and 1 ok; step 2 fails.
W = torch.nn.Parameter(torch.tensor([[0.5, -0.3], [0.2, 0.4]]))
U = torch.nn.Parameter(torch.tensor([[1.0, 0.0], [0.0, 1.0]]))
opt = torch.optim.SGD([W, U], lr=0.1)
xs = [torch.tensor([1.0, 0.0]), torch.tensor([0.0, 1.0]), torch.tensor([1.0, 1.0])]
h = torch.zeros(2)
for i, x in enumerate(xs):
    h = torch.tanh(W @ h + U @ x)
    loss = (h ** 2).sum()
    opt.zero_grad()
    ok = attempt("step %d" % i, lambda: loss.backward(retain_graph=True))
    if not ok:
        break
    opt.step()
    note("W step %d" % i, W)
note("W._version", W._version)
