# TEACHES: requires_grad propagation through mixed ops, factories like_*, new_*, indexing, comparison ops, argmax, type conversion, clone, detach().
x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
c = torch.tensor([1.0, 1.0, 1.0])
items = {
    "x+c": x + c, "c*2": c * 2, "x>1": x > 1, "argmax": x.argmax(), "zeros_like": torch.zeros_like(x),
    "ones_like rg": torch.ones_like(x, requires_grad=True), "new_zeros": x.new_zeros(2),
    "x.double": x.double(), "x.to float": x.to(torch.float32), "x.long": x.long(), "x[0]": x[0],
    "x[[0,2]]": x[[0, 2]], "clone": x.clone(), "detach": x.detach(), "x.floor": x.floor(),
    "x.round": x.round(), "empty_like": torch.empty_like(x).shape, "x.sign": x.sign(),
    "where c": torch.where(c > 0, c, c), "tensor(x)": x.new_tensor([1.0]),
    "full_like": torch.full_like(x, 2.0), "x.float() is x": x.float() is x,
    "x.to(float64) is leaf": x.to(torch.float64).is_leaf,
}
for k, v in items.items():
    if hasattr(v, "requires_grad"):
        note(k, [v.requires_grad, v.is_leaf, v.grad_fn.name() if v.grad_fn is not None else None])
    else:
        note(k, v)
with torch.enable_grad():
    with torch.no_grad():
        n = x * 2
        with torch.enable_grad():
            e = x * 2
note("nested", [n.requires_grad, e.requires_grad])
torch.set_grad_enabled(False)
f = x * 2
torch.set_grad_enabled(True)
note("set_grad_enabled", [f.requires_grad, torch.is_grad_enabled()])
with torch.inference_mode():
    im = x * 2
note("inference mode", im.requires_grad)
attempt("is_inference", lambda: note("is_inf", im.is_inference()))
attempt("inference tensor in graph", lambda: (im * x).sum().backward())
grads("x", x=x)
