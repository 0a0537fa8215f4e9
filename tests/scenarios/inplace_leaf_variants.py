# TEACHES: leaf in-place rules: a leaf that does NOT require grad can be modified freely (even when it
#   is then used with requires-grad tensors); a Parameter add_ fails; in-place after requires_grad_()
#   fails; x.detach().add_ changes x's values and version; x.data.mul_ changes values only;
#   under no_grad in-place on a leaf works and the result keeps requires_grad.
# EXPECT: messages and versions.
c = torch.tensor([1.0, 2.0])
c.add_(1)
note("plain leaf add_", [c, c._version])
p = torch.nn.Parameter(torch.tensor([1.0, 2.0]))
attempt("Parameter add_", lambda: p.add_(1))
attempt("Parameter[0] = 3", lambda: p.__setitem__(0, 3.0))
c.requires_grad_()
attempt("after requires_grad_() add_", lambda: c.add_(1))
d = p.detach()
d.add_(10)
note("p after detach().add_", [p, p._version])
p.data.mul_(2)
note("p after data.mul_", [p, p._version])
with torch.no_grad():
    p.sub_(1)
    r = p.mul_(1)
note("p after no_grad ops", [p, p._version, p.requires_grad, p.is_leaf])
note("mul_ returns self", r is p)
probe("p", p=p)
