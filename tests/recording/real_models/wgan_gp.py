import torch
import torch.nn as nn

torch.manual_seed(0)
G = nn.Sequential(nn.Linear(2, 8), nn.Tanh(), nn.Linear(8, 3))
D = nn.Sequential(nn.Linear(3, 8), nn.Tanh(), nn.Linear(8, 1))
opt_d = torch.optim.Adam(D.parameters(), lr=1e-4, betas=(0.0, 0.9))
opt_g = torch.optim.Adam(G.parameters(), lr=1e-4, betas=(0.0, 0.9))
for _step in range(2):
    real = torch.randn(4, 3)
    fake = G(torch.randn(4, 2)).detach()
    alpha = torch.rand(4, 1)
    interp = (alpha * real + (1 - alpha) * fake).requires_grad_(True)
    (grad,) = torch.autograd.grad(D(interp).sum(), interp, create_graph=True)
    gp = ((grad.norm(2, dim=1) - 1) ** 2).mean()
    d_loss = D(fake).mean() - D(real).mean() + 10 * gp
    opt_d.zero_grad()
    d_loss.backward()
    opt_d.step()
    opt_g.zero_grad()
    g_loss = -D(G(torch.randn(4, 2))).mean()
    g_loss.backward()
    opt_g.step()
