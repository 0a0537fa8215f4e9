"""``torch.autograd.functional``: vjp, jvp, jacobian, hessian, vhp and hvp, built on
``autograd.grad`` exactly as PyTorch builds them (reverse mode; jvp and hvp by the double-backward
trick). ``vectorize=True`` computes the same values row by row; forward mode is not supported.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from ...engine import factories, functional
from ...engine.executor import grad
from ...engine.grad_mode import enable_grad, is_grad_enabled, set_grad_enabled
from ...engine.tensor import Tensor

__all__ = ["vjp", "jvp", "jacobian", "hessian", "hvp", "vhp"]

Func = Callable[..., Any]


def _as_tuple(inp: Any, arg_name: str, fn_name: str) -> tuple[bool, tuple[Any, ...]]:
    is_tuple = isinstance(inp, tuple)
    items = inp if is_tuple else (inp,)
    for i, el in enumerate(items):
        if not isinstance(el, Tensor):
            where = f"value at index {i}" if is_tuple else f"given {arg_name}"
            raise TypeError(f"The {arg_name} given to {fn_name} must be either a Tensor or a "
                            f"tuple of Tensors but the {where} has type {type(el)}.")
    return is_tuple, items


def _tuple_postprocess(res: Any, to_unpack: Any) -> Any:
    if isinstance(to_unpack, tuple):
        if not to_unpack[1]:
            res = tuple(el[0] for el in res)
        if not to_unpack[0]:
            res = res[0]
    elif not to_unpack:
        res = res[0]
    return res


def _grad_preprocess(inputs: Sequence[Tensor], create_graph: bool,
                     need_graph: bool) -> tuple[Tensor, ...]:
    res = []
    for inp in inputs:
        if create_graph and inp.requires_grad:
            res.append(functional.view(inp, inp._data.shape))     # inp.view_as(inp)
        else:
            res.append(inp.detach().requires_grad_(need_graph))
    return tuple(res)


def _grad_postprocess(inputs: Any, create_graph: bool) -> Any:
    if isinstance(inputs[0], Tensor):
        return inputs if create_graph else tuple(inp.detach() for inp in inputs)
    return tuple(_grad_postprocess(inp, create_graph) for inp in inputs)


def _validate_v(v: Sequence[Tensor], other: Sequence[Tensor], is_other_tuple: bool) -> None:
    if len(other) != len(v):
        if is_other_tuple:
            raise RuntimeError(f"v is a tuple of invalid length: should be {len(other)} but got "
                               f"{len(v)}.")
        raise RuntimeError("The given v should contain a single Tensor.")
    for idx, (el_v, el_other) in enumerate(zip(v, other, strict=True)):
        if el_v.size() != el_other.size():
            prepend = f"Entry {idx} in " if is_other_tuple else ""
            raise RuntimeError(f"{prepend}v has invalid size: should be {el_other.size()} but "
                               f"got {el_v.size()}.")


_REQUIRES = {
    "hessian": ("The hessian of the user-provided function with respect to input {} is "
                "independent of the input. This is not allowed in strict mode. You should ensure "
                "that your function is thrice differentiable and that the hessian depends on the "
                "inputs."),
    "jacobian": ("While computing the hessian, found that the jacobian of the user-provided "
                 "function with respect to input {} is independent of the input. This is not "
                 "allowed in strict mode. You should ensure that your function is twice "
                 "differentiable and that the jacobian depends on the inputs (this would be "
                 "violated by a linear function for example)."),
    "grad_inputs": ("The gradient with respect to input {} is independent of the inputs of the "
                    "user-provided function. This is not allowed in strict mode."),
    "outputs": ("Output {} of the user-provided function does not require gradients. The outputs "
                "must be computed in a differentiable manner from the input when running in "
                "strict mode."),
}


def _check_requires_grad(inputs: Sequence[Any], input_type: str, strict: bool) -> None:
    if not strict:
        return
    for i, inp in enumerate(inputs):
        if inp is None:
            raise RuntimeError(f"The output of the user-provided function is independent of "
                               f"input {i}. This is not allowed in strict mode.")
        if not inp.requires_grad:
            raise RuntimeError(_REQUIRES[input_type].format(i))


def _autograd_grad(outputs: Sequence[Any], inputs: Sequence[Tensor],
                   grad_outputs: Sequence[Any] | None = None, create_graph: bool = False,
                   retain_graph: bool | None = None) -> tuple[Any, ...]:
    if grad_outputs is None:
        grad_outputs = (None,) * len(outputs)
    new_outputs, new_grads = [], []
    for out, g in zip(outputs, grad_outputs, strict=True):
        if out is not None and out.requires_grad:
            new_outputs.append(out)
            new_grads.append(g)
    if not new_outputs:
        return (None,) * len(inputs)
    return grad(new_outputs, list(inputs), new_grads, allow_unused=True,
                create_graph=create_graph, retain_graph=retain_graph)


_FILL = {
    "back": "The output of the user-provided function is independent of input {}. This is not "
            "allowed in strict mode.",
    "back_trick": "The gradient with respect to the input is independent of entry {} in the "
                  "grad_outputs when using the double backward trick to compute forward mode "
                  "gradients. This is not allowed in strict mode.",
    "double_back": "The jacobian of the user-provided function is independent of input {}. This "
                   "is not allowed in strict mode.",
    "double_back_trick": "The hessian of the user-provided function is independent of entry {} in "
                         "the grad_jacobian. This is not allowed in strict mode as it prevents "
                         "from using the double backward trick to replace forward mode AD.",
}


def _fill_in_zeros(grads: Sequence[Any], refs: Sequence[Tensor], strict: bool,
                   create_graph: bool, stage: str) -> tuple[Tensor, ...]:
    res = []
    for i, g in enumerate(grads):
        if g is None:
            if strict:
                raise RuntimeError(_FILL[stage].format(i))
            g = factories.zeros_like(refs[i])
        elif strict and create_graph and not g.requires_grad:
            what = "hessian" if "double" in stage else "jacobian"
            raise RuntimeError(f"The {what} of the user-provided function is independent of "
                               f"input {i}. This is not allowed in strict mode when "
                               "create_graph=True.")
        res.append(g)
    return tuple(res)


def _single_output(outputs: tuple[Any, ...], is_tuple: bool, name: str) -> None:
    if is_tuple or not isinstance(outputs[0], Tensor):
        raise RuntimeError(f"The function given to {name} should return a single Tensor")
    if outputs[0].nelement() != 1:
        raise RuntimeError(f"The Tensor returned by the function given to {name} should contain "
                           "a single element")


def vjp(func: Func, inputs: Any, v: Any = None, create_graph: bool = False,
        strict: bool = False) -> tuple[Any, Any]:
    with enable_grad():
        is_inputs_tuple, ins = _as_tuple(inputs, "inputs", "vjp")
        ins = _grad_preprocess(ins, create_graph, need_graph=True)
        is_outputs_tuple, outputs = _as_tuple(func(*ins), "outputs of the user-provided function",
                                              "vjp")
        _check_requires_grad(outputs, "outputs", strict)
        vs: Any = None
        if v is not None:
            _, vs = _as_tuple(v, "v", "vjp")
            vs = _grad_preprocess(vs, create_graph, need_graph=False)
            _validate_v(vs, outputs, is_outputs_tuple)
        elif len(outputs) != 1 or outputs[0].nelement() != 1:
            raise RuntimeError("The vector v can only be None if the user-provided function "
                               "returns a single Tensor with a single element.")
    with set_grad_enabled(True if create_graph else is_grad_enabled()):
        grad_res = _autograd_grad(outputs, ins, vs, create_graph=create_graph)
        res = _fill_in_zeros(grad_res, ins, strict, create_graph, "back")
    return (_tuple_postprocess(_grad_postprocess(outputs, create_graph), is_outputs_tuple),
            _tuple_postprocess(_grad_postprocess(res, create_graph), is_inputs_tuple))


def jvp(func: Func, inputs: Any, v: Any = None, create_graph: bool = False,
        strict: bool = False) -> tuple[Any, Any]:
    with enable_grad():
        is_inputs_tuple, ins = _as_tuple(inputs, "inputs", "jvp")
        ins = _grad_preprocess(ins, create_graph, need_graph=True)
        vs: Any = None
        if v is not None:
            _, vs = _as_tuple(v, "v", "jvp")
            vs = _grad_preprocess(vs, create_graph, need_graph=False)
            _validate_v(vs, ins, is_inputs_tuple)
        elif len(ins) != 1 or ins[0].nelement() != 1:
            raise RuntimeError("The vector v can only be None if the input to the user-provided "
                               "function is a single Tensor with a single element.")
        is_outputs_tuple, outputs = _as_tuple(func(*ins), "outputs of the user-provided function",
                                              "jvp")
        _check_requires_grad(outputs, "outputs", strict)
        grad_outputs = tuple(factories.zeros_like(o, requires_grad=True) for o in outputs)
        grad_inputs = _autograd_grad(outputs, ins, grad_outputs, create_graph=True)
        _check_requires_grad(grad_inputs, "grad_inputs", strict)
    with set_grad_enabled(True if create_graph else is_grad_enabled()):
        grad_res = _autograd_grad(grad_inputs, grad_outputs, vs, create_graph=create_graph)
        res = _fill_in_zeros(grad_res, outputs, strict, create_graph, "back_trick")
    return (_tuple_postprocess(_grad_postprocess(outputs, create_graph), is_outputs_tuple),
            _tuple_postprocess(_grad_postprocess(res, create_graph), is_outputs_tuple))


def jacobian(func: Func, inputs: Any, create_graph: bool = False, strict: bool = False,
             vectorize: bool = False, strategy: str = "reverse-mode") -> Any:
    if strategy not in ("forward-mode", "reverse-mode"):
        raise AssertionError('Expected strategy to be either "forward-mode" or "reverse-mode". '
                             'Hint: If your function has more outputs than inputs, "forward-mode" '
                             'tends to be more performant. Otherwise, prefer to use '
                             '"reverse-mode".')
    if strategy == "forward-mode":
        if create_graph:
            raise NotImplementedError('torch.autograd.functional.jacobian: `create_graph=True` '
                                      'and `strategy="forward-mode"` are not supported together '
                                      '(yet). Please either set `create_graph=False` or '
                                      '`strategy="reverse-mode"`.')
        raise NotImplementedError("forward-mode AD is not supported by this engine")
    with enable_grad():
        is_inputs_tuple, ins = _as_tuple(inputs, "inputs", "jacobian")
        ins = _grad_preprocess(ins, create_graph, need_graph=True)
        is_outputs_tuple, outputs = _as_tuple(func(*ins), "outputs of the user-provided function",
                                              "jacobian")
        _check_requires_grad(outputs, "outputs", strict)
        if vectorize and strict:
            raise RuntimeError("torch.autograd.functional.jacobian: `strict=True` and "
                               "`vectorized=True` are not supported together. Please either set "
                               "`strict=False` or `vectorize=False`.")
        jac: list[tuple[Tensor, ...]] = []
        for i, out in enumerate(outputs):
            rows: list[list[Tensor]] = [[] for _ in ins]
            for j in range(out.nelement()):
                vj = _autograd_grad((out.reshape(-1)[j],), ins, retain_graph=True,
                                    create_graph=create_graph)
                for k, (row, g, inp) in enumerate(zip(rows, vj, ins, strict=True)):
                    if g is not None:
                        if strict and create_graph and not g.requires_grad:
                            raise RuntimeError(f"The jacobian of the user-provided function is "
                                               f"independent of input {i}. This is not allowed "
                                               "in strict mode when create_graph=True.")
                        row.append(g)
                    else:
                        if strict:
                            raise RuntimeError(f"Output {i} of the user-provided function is "
                                               f"independent of input {k}. This is not allowed "
                                               "in strict mode.")
                        row.append(factories.zeros_like(inp))
            jac.append(tuple(functional.view(functional.stack(row, 0),
                                             (*out.shape, *ins[k].shape))
                             for k, row in enumerate(rows)))
        result = _grad_postprocess(tuple(jac), create_graph)
        return _tuple_postprocess(result, (is_outputs_tuple, is_inputs_tuple))


def hessian(func: Func, inputs: Any, create_graph: bool = False, strict: bool = False,
            vectorize: bool = False, outer_jacobian_strategy: str = "reverse-mode") -> Any:
    is_inputs_tuple, ins = _as_tuple(inputs, "inputs", "hessian")
    if outer_jacobian_strategy not in ("forward-mode", "reverse-mode"):
        raise AssertionError('Expected strategy to be either "forward-mode" or "reverse-mode".')

    def ensure_single_output_function(*inp: Tensor) -> Tensor:
        out = func(*inp)
        is_out_tuple, t_out = _as_tuple(out, "outputs of the user-provided function", "hessian")
        _check_requires_grad(t_out, "outputs", strict)
        _single_output(t_out, is_out_tuple, "hessian")
        return functional.squeeze(out)

    def jac_func(*inp: Tensor) -> Any:
        jac = jacobian(ensure_single_output_function, inp, create_graph=True)
        _check_requires_grad(jac, "jacobian", strict)
        return jac

    res = jacobian(jac_func, ins, create_graph=create_graph, strict=strict,
                   vectorize=vectorize, strategy=outer_jacobian_strategy)
    return _tuple_postprocess(res, (is_inputs_tuple, is_inputs_tuple))


def _second_order(name: str, func: Func, inputs: Any, v: Any, create_graph: bool,
                  strict: bool) -> tuple[Any, ...]:
    """The shared start of vhp and hvp: inputs, v, outputs and the first gradient."""
    is_inputs_tuple, ins = _as_tuple(inputs, "inputs", name)
    ins = _grad_preprocess(ins, create_graph, need_graph=True)
    vs: Any = None
    if v is not None:
        _, vs = _as_tuple(v, "v", name)
        vs = _grad_preprocess(vs, create_graph, need_graph=False)
        _validate_v(vs, ins, is_inputs_tuple)
    elif len(ins) != 1 or ins[0].nelement() != 1:
        raise RuntimeError("The vector v can only be None if the input to the user-provided "
                           "function is a single Tensor with a single element.")
    is_outputs_tuple, outputs = _as_tuple(func(*ins), "outputs of the user-provided function",
                                          name)
    _check_requires_grad(outputs, "outputs", strict)
    _single_output(outputs, is_outputs_tuple, name)
    jac = _autograd_grad(outputs, ins, create_graph=True)
    _check_requires_grad(jac, "jacobian", strict)
    return is_inputs_tuple, ins, vs, is_outputs_tuple, outputs, jac


def vhp(func: Func, inputs: Any, v: Any = None, create_graph: bool = False,
        strict: bool = False) -> tuple[Any, Any]:
    with enable_grad():
        is_inputs_tuple, ins, vs, is_outputs_tuple, outputs, jac = _second_order(
            "vhp", func, inputs, v, create_graph, strict)
    with set_grad_enabled(True if create_graph else is_grad_enabled()):
        grad_res = _autograd_grad(jac, ins, vs, create_graph=create_graph)
        res = _fill_in_zeros(grad_res, ins, strict, create_graph, "double_back")
    return (_tuple_postprocess(_grad_postprocess(outputs, create_graph), is_outputs_tuple),
            _tuple_postprocess(_grad_postprocess(res, create_graph), is_inputs_tuple))


def hvp(func: Func, inputs: Any, v: Any = None, create_graph: bool = False,
        strict: bool = False) -> tuple[Any, Any]:
    with enable_grad():
        is_inputs_tuple, ins, vs, is_outputs_tuple, outputs, jac = _second_order(
            "hvp", func, inputs, v, create_graph, strict)
        grad_jac = tuple(factories.zeros_like(inp, requires_grad=True) for inp in ins)
        double_back = _autograd_grad(jac, ins, grad_jac, create_graph=True)
        _check_requires_grad(jac, "hessian", strict)
    with set_grad_enabled(True if create_graph else is_grad_enabled()):
        grad_res = _autograd_grad(double_back, grad_jac, vs, create_graph=create_graph)
        res = _fill_in_zeros(grad_res, ins, strict, create_graph, "double_back_trick")
    return (_tuple_postprocess(_grad_postprocess(outputs, create_graph), is_outputs_tuple),
            _tuple_postprocess(_grad_postprocess(res, create_graph), is_inputs_tuple))
