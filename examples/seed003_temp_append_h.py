# Seed 003: "an intermediate kept for the next batch" (shared/seeds/003_99530df6b5a171b8.txt),
# as a plain PyTorch script (the comments translated; `loss.data[0]` is `loss.item()` today).
#
# What it shows: `h` of the first iteration is kept in `temp` and used by every later forward.
# The first `loss.backward()` frees the saved tensors of h's graph, so the second iteration's
# backward reaches them and raises
#   RuntimeError: Trying to backward through the graph a second time, ...
# Fix: keep `h.detach()` (no gradient should flow into the old batch).
import torch
import torch.nn as nn
from torch.autograd import Variable

torch.manual_seed(0)
# the input and the target
a = torch.Tensor([1, 2, 3])
t = torch.Tensor([1])
# the network
fc1 = nn.Linear(3, 5)
fc2 = nn.Linear(5, 1)
loss_func = nn.MSELoss()
# the optimizer
sgd = torch.optim.SGD(params=list(fc1.parameters()) + list(fc2.parameters()), lr=0.01)

# an intermediate kept for later
temp = []

# ten iterations
for i in range(10):
    input = Variable(a)
    target = Variable(t)
    h = fc1(input)
    out = fc2(h)
    temp.append(h)  # keep the intermediate for the next forward
    if i != 0:
        out = out + temp[0].mean()  # from the second iteration on, use the kept value
    loss = loss_func(out, target)
    sgd.zero_grad()
    loss.backward()
    sgd.step()
    print(i, loss.item())
