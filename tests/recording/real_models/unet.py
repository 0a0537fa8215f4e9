import torch
import torch.nn as nn
import torch.nn.functional as F


class UNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.down1 = nn.Sequential(nn.Conv2d(1, 4, 3, padding=1), nn.ReLU())
        self.down2 = nn.Sequential(nn.Conv2d(4, 8, 3, padding=1), nn.ReLU())
        self.up1 = nn.ConvTranspose2d(8, 4, 2, stride=2)
        self.dec1 = nn.Sequential(nn.Conv2d(8, 4, 3, padding=1), nn.ReLU())
        self.up2 = nn.Upsample(scale_factor=2, mode="bilinear", align_corners=False)
        self.out = nn.Conv2d(4 + 1, 1, 1)

    def forward(self, x):
        d1 = self.down1(x)
        d2 = self.down2(F.max_pool2d(d1, 2))
        u1 = self.dec1(torch.cat([self.up1(d2), d1], dim=1))
        u2 = F.interpolate(F.avg_pool2d(u1, 2), scale_factor=2, mode="nearest")
        u2 = self.up2(F.avg_pool2d(u2, 2))
        return self.out(torch.cat([u2, x], 1))


torch.manual_seed(0)
net = UNet()
opt = torch.optim.Adam(net.parameters(), lr=1e-3)
for _step in range(2):
    x = torch.randn(2, 1, 8, 8)
    target = (x > 0).float()
    opt.zero_grad()
    loss = F.binary_cross_entropy_with_logits(net(x), target)
    loss.backward()
    opt.step()
