import sys

import torch
import torch.nn as nn
import torch.nn.functional as F

FIX = "fix" in sys.argv                  # the diagnosis's first fix: plain numbers kept

torch.manual_seed(0)
net = nn.Sequential(nn.Conv2d(1, 4, 3), nn.BatchNorm2d(4), nn.ReLU(), nn.Dropout2d(0.3),
                    nn.Flatten(), nn.Linear(4 * 4 * 4, 3))
opt = torch.optim.RMSprop(net.parameters(), lr=1e-3)
sched = torch.optim.lr_scheduler.StepLR(opt, 1, 0.5)
history = []
for _epoch in range(2):
    net.train()
    out = net(torch.randn(2, 1, 6, 6))
    loss = F.cross_entropy(out, torch.tensor([0, 2]), label_smoothing=0.1)
    opt.zero_grad()
    loss.backward()
    opt.step()
    sched.step()
    history.append(loss.item() if FIX else loss)     # without .item(): every graph kept
    net.eval()
    with torch.no_grad():
        acc = (net(torch.randn(2, 1, 6, 6)).argmax(1) == 0).float().mean()
total = sum(history)
if not FIX:
    total.backward()
