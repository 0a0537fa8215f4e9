# TEACHES: seed-003 "temp.append(h)" variants: appending h.detach() and later adding temp[0].mean()
#   is fine; appending the LOSS itself and summing the list each iteration fails at iteration 1
#   (backward-twice through the old loss graph); appending loss.item() is fine.
# EXPECT: detach variant 3 ok iterations; loss-list variant fails at 1; item variant ok.
fc = torch.nn.Linear(2, 1)
with torch.no_grad():
    fc.weight.copy_(torch.tensor([[0.5, -0.5]]))
    fc.bias.copy_(torch.tensor([0.0]))
opt = torch.optim.SGD(fc.parameters(), lr=0.1)
x = torch.tensor([1.0, 2.0])
temp = []
for i in range(3):
    h = fc(x)
    temp.append(h.detach())
    out = h + temp[0].mean()
    loss = (out ** 2).sum()
    opt.zero_grad()
    attempt("detach variant %d" % i, lambda: loss.backward())
    opt.step()
history = []
for i in range(3):
    loss = (fc(x) ** 2).sum()
    history.append(loss)
    total = sum(history)
    opt.zero_grad()
    if not attempt("loss-list variant %d" % i, lambda: total.backward()):
        break
    opt.step()
logged = []
for i in range(3):
    loss = (fc(x) ** 2).sum()
    logged.append(loss.item())
    opt.zero_grad()
    loss.backward()
    opt.step()
note("logged", logged)
note("weight", fc.weight)
