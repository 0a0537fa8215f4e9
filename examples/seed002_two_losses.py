# Seed 002: "d and e over one c" (shared/seeds/002_ee01955fc9aff419.txt), as a plain PyTorch
# script (the seed's `Variable` still imports; it is a plain tensor today).
#
# What it shows: `d` and `e` are two losses over the same `c`. `d.backward()` frees the saved
# tensors of the part they share, so `e.backward()` raises
#   RuntimeError: Trying to backward through the graph a second time, ...
# Fixes: `(d + e).backward()`, or `d.backward(retain_graph=True)` first.
import torch
from torch.autograd import Variable

a = Variable(torch.rand(1, 4), requires_grad=True)
b = a**2
c = b*2
d = c.mean()
e = c.sum()

d.backward()
e.backward()
