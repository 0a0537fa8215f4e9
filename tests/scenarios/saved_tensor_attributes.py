# TEACHES: reading saved values off grad_fn nodes: _saved_self / _saved_other identity (MulBackward0
#   with a no-grad other saves only other; self is None), _saved_result of exp, non-tensor saved
#   attributes (_saved_exponent, _saved_dim, _saved_keepdim, _saved_self_sym_sizes, _saved_alpha),
#   and their readability after the graph is freed (non-tensor ones stay readable; tensor ones raise).
# EXPECT: values recorded; freed tensor reads raise the backward-twice error.
x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
c = torch.tensor([4.0, 5.0, 6.0])
m = x * c
attempt("mul saved", lambda: note("mul saved self is None / other is c",
                                  [m.grad_fn._saved_self is None, m.grad_fn._saved_other is c]))
e = x.exp()
attempt("exp saved", lambda: note("exp saved result", [e.grad_fn._saved_result.tolist(),
                                                       e.grad_fn._saved_result is e]))
p = x ** 3
attempt("pow exponent", lambda: note("pow exponent", p.grad_fn._saved_exponent))
s = x.reshape(3, 1).sum(dim=1, keepdim=True)
attempt("sum dim", lambda: note("sum dim", list(s.grad_fn._saved_dim)))
attempt("sum keepdim", lambda: note("sum keepdim", s.grad_fn._saved_keepdim))
attempt("sum self_sym_sizes", lambda: note("sizes", list(s.grad_fn._saved_self_sym_sizes)))
ad = torch.add(x, c, alpha=2)
attempt("add alpha", lambda: note("add alpha", ad.grad_fn._saved_alpha))
sm = torch.softmax(x, 0)
attempt("softmax dim", lambda: note("softmax dim", sm.grad_fn._saved_dim))
tr = x.reshape(1, 3).transpose(0, 1)
attempt("transpose dims", lambda: note("transpose dims", [tr.grad_fn._saved_dim0,
                                                          tr.grad_fn._saved_dim1]))
xy = x * x
attempt("x*x saved self is x", lambda: note("x*x self/other is x", [xy.grad_fn._saved_self is x,
                                                                  xy.grad_fn._saved_other is x]))
loss = m.sum() + e.sum() + p.sum() + xy.sum()
loss.backward()
attempt("read freed _saved_other", lambda: m.grad_fn._saved_other)
attempt("read freed _saved_result", lambda: e.grad_fn._saved_result)
attempt("read freed x*x _saved_self", lambda: xy.grad_fn._saved_self)
attempt("read pow exponent after free", lambda: note("exponent after", p.grad_fn._saved_exponent))
note("next_functions", [[(f.name() if f is not None else None), i] for f, i in m.grad_fn.next_functions])
note("AccumulateGrad variable is x", m.grad_fn.next_functions[0][0].variable is x)
attempt("metadata", lambda: note("metadata dict", m.grad_fn.metadata))
