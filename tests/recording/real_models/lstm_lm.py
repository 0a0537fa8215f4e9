import sys

import torch
import torch.nn as nn
import torch.nn.functional as F

FIX = "fix" in sys.argv


class LM(nn.Module):
    def __init__(self, vocab=10, d=6):
        super().__init__()
        self.emb = nn.Embedding(vocab, d)
        self.rnn = nn.LSTM(d, d, batch_first=True)
        self.out = nn.Linear(d, vocab)
        self.out.weight = self.emb.weight

    def forward(self, x, state):
        h, state = self.rnn(self.emb(x), state)
        return self.out(h), state


torch.manual_seed(0)
model = LM()
opt = torch.optim.SGD(model.parameters(), lr=0.1)
stream = torch.randint(0, 10, (2, 13))
state = None
for i in range(3):
    chunk = stream[:, i * 4:i * 4 + 5]
    if FIX and state is not None:
        state = tuple(s.detach() for s in state)
    logits, state = model(chunk[:, :-1], state)
    loss = F.cross_entropy(logits.reshape(-1, 10), chunk[:, 1:].reshape(-1))
    opt.zero_grad()
    loss.backward()
    opt.step()
