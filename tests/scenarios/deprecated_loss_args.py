# TEACHES: seed-era loss arguments in torch 2.13: size_average / reduce still work but warn
#   (UserWarning "size_average and reduce args will be deprecated, please use reduction='sum'
#   instead."); the resulting reduction is recorded.
# EXPECT: warnings and values.
a = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
b = torch.tensor([0.0, 0.0, 0.0])
attempt("MSELoss(size_average=False)", lambda: note("sum", torch.nn.MSELoss(size_average=False)(a, b)))
attempt("MSELoss(reduce=False)", lambda: note("none", torch.nn.MSELoss(reduce=False)(a, b)))
attempt("F.mse_loss(size_average=True)", lambda: note("mean", torch.nn.functional.mse_loss(a, b, size_average=True)))
attempt("CrossEntropyLoss(size_average=False)",
        lambda: note("ce sum", torch.nn.CrossEntropyLoss(size_average=False)(torch.tensor([[1.0, 2.0]]), torch.tensor([0]))))
attempt("reduction='elementwise_mean'", lambda: torch.nn.MSELoss(reduction="elementwise_mean")(a, b))
attempt("reduction='bogus'", lambda: torch.nn.functional.mse_loss(a, b, reduction="bogus"))
