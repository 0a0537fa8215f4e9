# TEACHES: GAN mistakes: (1) D trained on fake without detach -> G's params receive gradients from the
#   D loss; (2) then g_loss on the SAME fake after d_loss.backward() freed the generator part ->
#   backward-twice; (3) with retain_graph on d_loss and d_opt.step() in between -> version error on D
#   (saved by MulBackward0 of D * fake).
# EXPECT: G.grad not None after D step; case 2 error; case 3 version error.
def make():
    G = torch.nn.Parameter(torch.tensor([[1.0, 0.5], [-0.5, 1.0]]))
    D = torch.nn.Parameter(torch.tensor([0.3, -0.2]))
    return G, D, torch.optim.SGD([G], lr=0.1), torch.optim.SGD([D], lr=0.1)

z = torch.tensor([1.0, 2.0])
G, D, g_opt, d_opt = make()
fake = G @ z
d_loss = torch.sigmoid((D * fake).sum())
attempt("d_loss.backward() no detach", lambda: d_loss.backward())
grads("G polluted", G=G, D=D)
g_loss = torch.sigmoid(-(D * fake).sum())
attempt("g_loss.backward() reusing fake", lambda: g_loss.backward())
G, D, g_opt, d_opt = make()
fake = G @ z
d_loss = torch.sigmoid((D * fake).sum())
attempt("d_loss.backward(retain_graph=True)", lambda: d_loss.backward(retain_graph=True))
d_opt.step()
attempt("d_loss.backward() after d_opt.step()", lambda: d_loss.backward())
g_loss = torch.sigmoid(-(D * fake).sum())
attempt("fresh g_loss through retained fake", lambda: g_loss.backward())
grads("end", G=G, D=D)
