# TEACHES: optimizer.step() between two backwards of ONE retained graph: the second backward fails
#   with the version error when a node saved a parameter (second layer's weight, saved as the
#   transposed view mat2 in AddmmBackward0 because its input h requires grad); the first layer's
#   weight is not saved (input x does not require grad). The probe after step shows mat2 "modified".
# EXPECT: first backward ok; step; second backward -> "[torch.FloatTensor [2, 1]], which is output 0
#   of AsStrided, is at version 3; expected version 2 instead."
fc1 = torch.nn.Linear(3, 2)
fc2 = torch.nn.Linear(2, 1)
with torch.no_grad():
    fc1.weight.copy_(torch.tensor([[0.1, 0.2, -0.1], [0.3, -0.2, 0.4]]))
    fc1.bias.copy_(torch.tensor([0.0, 0.1]))
    fc2.weight.copy_(torch.tensor([[0.5, -0.5]]))
    fc2.bias.copy_(torch.tensor([0.2]))
opt = torch.optim.SGD(list(fc1.parameters()) + list(fc2.parameters()), lr=0.1)
x = torch.tensor([[1.0, 2.0, 3.0], [0.5, -1.0, 2.0]])
loss = torch.tanh(fc2(torch.relu(fc1(x)))).sum()
probe("graph", loss=loss, w1=fc1.weight, b1=fc1.bias, w2=fc2.weight, b2=fc2.bias)
attempt("first backward (retain)", lambda: loss.backward(retain_graph=True))
opt.step()
note("versions", [fc1.weight._version, fc2.weight._version, fc2.bias._version])
probe("after step", loss=loss, w2=fc2.weight)
attempt("second backward after step", lambda: loss.backward())
grads(w1=fc1.weight, w2=fc2.weight)
