# TEACHES: legacy Variable API variants in torch 2.13: Variable(t) shares data with t; volatile=True
#   is accepted with a UserWarning and has no effect; the .volatile attribute warns and is False;
#   Variable(int tensor, requires_grad=True) errors; isinstance(tensor, Variable) is True;
#   Variable(leaf) is a detached leaf; Variable(leaf, requires_grad=True) is a NEW leaf, so the
#   original leaf's .grad stays None.
# EXPECT: warnings and values recorded.
Variable = torch.autograd.Variable
t = torch.tensor([1.0, 2.0])
v = Variable(t)
t[0] = 10.0
note("shares data", v)
attempt("volatile=True", lambda: probe("volatile", vv=Variable(t, volatile=True)))
attempt("v.volatile", lambda: note("volatile attr", v.volatile))
attempt("int Variable requires_grad", lambda: Variable(torch.tensor([1, 2]), requires_grad=True))
note("isinstance", [isinstance(t, Variable), isinstance(v, torch.Tensor)])
a = torch.tensor([1.0, 2.0], requires_grad=True)
va = Variable(a)
probe("Variable(leaf)", va=va, a=a)
va2 = Variable(a, requires_grad=True)
probe("Variable(leaf, requires_grad=True)", va2=va2)
(va2 * 2).sum().backward()
grads(a=a, va2=va2)
