# Seed 000: the forum thread "Backpropagation - Graph is reused while it shouldn't"
# (shared/seeds/000_b239ade5570d4be5.txt), as a plain PyTorch script.
#
# What it shows: `y = t @ a` is built once, outside the loop, so every iteration's graph hangs off
# the same MvBackward0 node. The first loss.backward() frees that node's saved tensors along with
# the rest of the graph it ran, so iteration 2 raises
#   RuntimeError: Trying to backward through the graph a second time, ...
# Fixes: recompute `t @ a` inside the loop, use `y.detach()`, or `retain_graph=True`.
import torch

measure = torch.nn.MSELoss()

x = torch.tensor([1, 0], dtype=torch.float64)
t = torch.eye(2, dtype=torch.float64, requires_grad=True)
a = torch.ones(2, dtype=torch.float64, requires_grad=True)
y = t @ a

for __ in range(2):
    x_out = t @ (x + y)  # Raises `RuntimeError` later on.
    # x_out = t @ (x + t @ a)  # Works fine.
    loss = measure(x_out, x)
    print("loss:", loss.item())
    loss.backward()
