# TEACHES: autograd.grad with several outputs sums their contributions; grad_outputs is a sequence
#   matching outputs; None in grad_outputs is allowed for scalar outputs; a non-scalar output needs
#   its grad_output; grad_outputs length mismatch is an error.
# EXPECT: values recorded; errors with exact messages.
a = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
b = torch.tensor([0.5, 0.5, 0.5], requires_grad=True)
o1 = (a * b).sum()
o2 = a * 3
r = torch.autograd.grad([o1, o2], [a, b], grad_outputs=[None, torch.tensor([1.0, 0.0, 2.0])],
                        retain_graph=True)
note("two outputs", r)
r2 = torch.autograd.grad([o1, o1], a, retain_graph=True)
note("same output twice", r2)
attempt("grad_outputs length mismatch",
        lambda: torch.autograd.grad([o1, o2], a, grad_outputs=[torch.tensor(1.0)], retain_graph=True))
attempt("grad_outputs wrong shape",
        lambda: torch.autograd.grad(o2, a, grad_outputs=torch.ones(2), retain_graph=True))
attempt("non-scalar second output without grad_outputs",
        lambda: torch.autograd.grad([o1, o2], a, retain_graph=True))
r3 = torch.autograd.grad(o2.sum(), (b, a), allow_unused=True)
note("allow_unused order (b unused)", r3)
