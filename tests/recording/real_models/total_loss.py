import sys

import torch

FIX = "fix" in sys.argv                  # the diagnosis's first fix: plain numbers kept

torch.manual_seed(0)
w = torch.randn(3, requires_grad=True)
total_loss = 0
for _step in range(3):
    loss = (w * torch.randn(3)).sum() ** 2
    if FIX:
        loss.backward()
        total_loss += loss.item()
    else:
        total_loss += loss          # keeps every earlier step's graph
        total_loss.backward()
