# TEACHES: cat/stack with negative dims and mixed requires_grad; split with sizes list; chunk with an
#   uneven last chunk; unbind; backward through only some pieces gives zeros for the rest; the
#   pieces' grad_fn names (SplitBackward0 / SplitWithSizesBackward0 / UnbindBackward0).
# EXPECT: names and grads recorded.
a = torch.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]], requires_grad=True)
b = torch.tensor([[7.0, 8.0, 9.0]])
c = torch.cat([a, b], dim=-2)
s = torch.stack([a, a * 2], dim=-1)
probe("cat/stack", c=c, s=s, a=a)
note("shapes", [list(c.shape), list(s.shape)])
(c.sum() + (s * torch.tensor([1.0, -1.0])).sum()).backward()
grads("cat/stack", a=a)
a.grad = None
p1, p2 = a.split([1, 2], dim=1)
q = a.chunk(2, dim=1)
u = a.unbind(0)
note("names", [p1.grad_fn.name(), q[0].grad_fn.name(), u[0].grad_fn.name(),
               a.split(2, dim=1)[1].grad_fn.name()])
note("chunk shapes", [list(t.shape) for t in q])
probe("split piece", p2=p2, a=a)
(p2 * 3).sum().backward()
grads("only p2", a=a)
a.grad = None
(q[1].sum() + u[1].sum() * 10).backward()
grads("chunk + unbind", a=a)
attempt("cat shape mismatch", lambda: torch.cat([a, torch.ones(2, 2)]))
attempt("stack shape mismatch", lambda: torch.stack([a, torch.ones(3, 2)]))
attempt("cat empty list", lambda: torch.cat([]))
attempt("cat 0-dim", lambda: torch.cat([torch.tensor(1.0), torch.tensor(2.0)]))
