import torch
import torch.nn as nn
from torch.utils.checkpoint import checkpoint

torch.manual_seed(0)
block = nn.Sequential(nn.Linear(4, 8), nn.GELU(), nn.Linear(8, 4))
head = nn.Linear(4, 1)
opt = torch.optim.SGD([*block.parameters(), *head.parameters()], lr=0.1)
for _step in range(2):
    x = torch.randn(3, 4, requires_grad=True)
    h = checkpoint(block, x, use_reentrant=False)
    loss = head(h).pow(2).mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
