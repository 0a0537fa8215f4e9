import sys

import torch
import torch.nn as nn
import torch.nn.functional as F

BUG = "bug" in sys.argv
FIX = "fix" in sys.argv                  # the diagnosis's first fix


class Block(nn.Module):
    def __init__(self, c):
        super().__init__()
        self.conv1 = nn.Conv2d(c, c, 3, padding=1, bias=False)
        self.bn1 = nn.BatchNorm2d(c)
        self.conv2 = nn.Conv2d(c, c, 3, padding=1, bias=False)
        self.bn2 = nn.BatchNorm2d(c)

    def forward(self, x):
        identity = x
        out = F.relu(self.bn1(self.conv1(x)))
        out = self.bn2(self.conv2(out))
        if BUG:
            out = F.relu(out)
            if FIX:
                return out + identity
            out += identity
            return out
        out += identity
        return F.relu(out)


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.stem = nn.Conv2d(3, 4, 3, padding=1)
        self.block = Block(4)
        self.pool = nn.AdaptiveAvgPool2d(1)
        self.fc = nn.Linear(4, 3)

    def forward(self, x):
        x = self.block(self.stem(x))
        return self.fc(torch.flatten(self.pool(x), 1))


torch.manual_seed(0)
net = Net()
opt = torch.optim.SGD(net.parameters(), lr=0.1, momentum=0.9)
for _step in range(2):
    x = torch.randn(2, 3, 6, 6)
    y = torch.tensor([0, 2])
    opt.zero_grad()
    loss = F.cross_entropy(net(x), y)
    loss.backward()
    opt.step()
