import sys

import torch
import torch.nn as nn
from torch.utils.checkpoint import checkpoint

torch.manual_seed(0)
block = nn.Sequential(nn.Linear(4, 8), nn.GELU(), nn.Linear(8, 4))
head = nn.Linear(4, 1)
for _step in range(2):
    x = torch.randn(3, 4, requires_grad=True)
    h = checkpoint(block, x, use_reentrant=True)
    loss = head(h).pow(2).mean()
    loss.backward()
    if "twice" in sys.argv:
        h.sum().backward()     # the checkpoint's saved input was freed by the first
