# Seed 001: "retain_graph=True, then a plain backward" (shared/seeds/001_a50811ad6278870a.txt),
# as a plain PyTorch script.
#
# What it shows: the first backward keeps the graph's saved tensors (retain_graph=True), the
# second one frees them, so a third backward through the same `y` raises
#   RuntimeError: Trying to backward through the graph a second time, ...
import torch

x = torch.tensor(2.0, requires_grad=True)
y = x * x  # y = x^2

# First backward pass: keep the graph
y.backward(retain_graph=True)
print("x.grad after the first backward:", x.grad.item())

# Second backward pass on the same graph: gradients accumulate, then the graph is freed
y.backward()
print("x.grad after the second backward:", x.grad.item())

# Third: the saved tensors are gone
y.backward()
