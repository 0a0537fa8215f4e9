import sys

import torch
import torch.nn as nn
import torch.nn.functional as F

DETACH = "detach" in sys.argv            # the diagnosis's first fix
RECOMPUTE = "recompute" in sys.argv      # its second

torch.manual_seed(0)
G = nn.Sequential(nn.Linear(2, 8), nn.ReLU(), nn.Linear(8, 3))
D = nn.Sequential(nn.Linear(3, 8), nn.LeakyReLU(0.2), nn.Linear(8, 1))
opt_g = torch.optim.Adam(G.parameters(), lr=1e-3, betas=(0.5, 0.999))
opt_d = torch.optim.Adam(D.parameters(), lr=1e-3, betas=(0.5, 0.999))
ones, zeros = torch.ones(4, 1), torch.zeros(4, 1)
for _step in range(2):
    real = torch.randn(4, 3) + 1
    fake = G(torch.randn(4, 2))
    opt_d.zero_grad()
    d_fake = D(fake.detach()) if DETACH else D(fake)
    d_loss = F.binary_cross_entropy_with_logits(D(real), ones) + \
        F.binary_cross_entropy_with_logits(d_fake, zeros)
    d_loss.backward()
    opt_d.step()
    opt_g.zero_grad()
    if RECOMPUTE:
        fake = G(torch.randn(4, 2))
    g_loss = F.binary_cross_entropy_with_logits(D(fake), ones)
    g_loss.backward()
    opt_g.step()
