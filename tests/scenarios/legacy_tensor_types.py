# TEACHES: legacy typed constructors used in old tutorials: torch.FloatTensor / LongTensor /
#   DoubleTensor give the right dtypes; .type() strings; x.type(torch.DoubleTensor); LongTensor
#   targets with CrossEntropyLoss; requires_grad on LongTensor errors; torch.Tensor(2, 3) shape.
# EXPECT: dtypes and strings recorded.
f = torch.FloatTensor([1, 2])
l = torch.LongTensor([1, 0])
d = torch.DoubleTensor([1.5])
note("dtypes", [str(f.dtype), str(l.dtype), str(d.dtype)])
note("type()", [f.type(), l.type(), d.type(), f.double().type()])
note("type(DoubleTensor)", f.type(torch.DoubleTensor).type())
note("Tensor(2, 3) shape", list(torch.Tensor(2, 3).shape))
attempt("LongTensor requires_grad_", lambda: l.requires_grad_())
logits = torch.tensor([[0.5, 1.5], [2.0, -1.0]], requires_grad=True)
loss = torch.nn.CrossEntropyLoss()(logits, l)
note("loss", loss)
loss.backward()
grads(logits=logits)
note("isinstance", [isinstance(f, torch.FloatTensor), isinstance(l, torch.LongTensor),
                    isinstance(f, torch.LongTensor)])
