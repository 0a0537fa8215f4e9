# TEACHES: item assignment of a tensor that requires grad into a tensor that does not: the target
#   becomes part of the graph (requires_grad True, CopySlices), gradients reach the assigned value;
#   masked assignment and slice assignment; assigning into a leaf that requires grad fails.
# EXPECT: buf.requires_grad True after assignment; v.grad summed over the slots it filled.
v = torch.tensor([2.0, 3.0], requires_grad=True)
buf = torch.zeros(5)
note("before", [buf.requires_grad, buf.is_leaf])
buf[1:3] = v
buf[4] = v[0] * 10
note("after", [buf.requires_grad, buf.is_leaf])
probe("buf", buf=buf, v=v)
(buf * torch.arange(5.0)).sum().backward()
grads(v=v)
m = torch.zeros(4)
u = torch.tensor([1.0, 2.0, 3.0, 4.0], requires_grad=True)
m[u > 2] = u[u > 2] * 2
note("m", m)
probe("masked", m=m, u=u)
m.sum().backward()
grads(u=u)
leaf = torch.zeros(3, requires_grad=True)

def assign():
    leaf[0] = v[0]

attempt("assign into leaf", assign)
