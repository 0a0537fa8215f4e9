# TEACHES: torch.autograd.backward(tensors, grad_tensors) function form with several roots; tensors
#   may be a single tensor; grad_tensors None entries for scalars; roots sharing a subgraph sum;
#   inputs= keyword on the function form.
# EXPECT: grads recorded.
a = torch.tensor([1.0, 2.0], requires_grad=True)
b = torch.tensor([3.0, 4.0], requires_grad=True)
y1 = a * b
y2 = (a + b).sum()
torch.autograd.backward([y1, y2], [torch.tensor([1.0, 0.5]), None])
grads("two roots", a=a, b=b)
a.grad = None
b.grad = None
torch.autograd.backward((a * a).sum())
grads("single tensor", a=a, b=b)
a.grad = None
torch.autograd.backward([(a * b).sum()], inputs=[b])
grads("inputs=[b]", a=a, b=b)
attempt("grad_tensors length mismatch",
        lambda: torch.autograd.backward([a * 2, a * 3], [torch.ones(2)]))
attempt("non-scalar root without grad", lambda: torch.autograd.backward([a * 2]))
