import torch
import torch.nn as nn
import torch.nn.functional as F


class Classifier(nn.Module):
    def __init__(self, vocab=11, d=8):
        super().__init__()
        self.emb = nn.Embedding(vocab, d)
        self.pos = nn.Parameter(torch.zeros(1, 5, d))
        layer = nn.TransformerEncoderLayer(d, 2, 16, dropout=0.0, batch_first=True)
        self.enc = nn.TransformerEncoder(layer, 2, enable_nested_tensor=False)
        self.head = nn.Linear(d, 3)

    def forward(self, tokens, pad):
        h = self.enc(self.emb(tokens) + self.pos, src_key_padding_mask=pad)
        return self.head(h.mean(1))


torch.manual_seed(0)
model = Classifier()
opt = torch.optim.AdamW(model.parameters(), lr=1e-3)
for _step in range(2):
    tokens = torch.randint(0, 11, (2, 5))
    pad = torch.tensor([[False] * 5, [False] * 3 + [True] * 2])
    labels = torch.tensor([0, 1])
    opt.zero_grad()
    loss = F.cross_entropy(model(tokens, pad), labels)
    loss.backward()
    torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
    opt.step()
