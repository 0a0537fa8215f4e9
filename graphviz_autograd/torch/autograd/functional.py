"""``torch.autograd.functional``: vjp, jvp, jacobian, hessian, vhp and hvp over autograd.grad.

Everything runs in reverse mode. Forward-mode products come from the "double vjp" identity: for
``g(u) = uᵀJ`` (a vjp with a dummy seed ``u`` that requires grad), ``∂(g(u)·v)/∂u = Jv``; jvp uses
it on the function and hvp on its gradient. ``vectorize=True`` gives the same values, computed
one row at a time like the plain path. ``jacobian(..., strategy="forward-mode", vectorize=True)``
(and ``hessian``'s ``outer_jacobian_strategy="forward-mode"``: forward over reverse) runs in
forward mode, one column per input element (PyTorch's batches them with vmap).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, NamedTuple

from ...engine import functional
from ...engine.executor import grad
from ...engine.factories import zeros_like
from ...engine.grad_mode import enable_grad, is_grad_enabled, set_grad_enabled
from ...engine.tensor import Tensor

__all__ = ["vjp", "jvp", "jacobian", "hessian", "hvp", "vhp"]

Func = Callable[..., Any]
Tensors = tuple[Tensor, ...]
MaybeGrads = tuple[Tensor | None, ...]

_OUTPUTS = "outputs of the user-provided function"
_STRATEGIES = ("forward-mode", "reverse-mode")

# -- PyTorch's messages, verbatim ---------------------------------------------------------------
_NOT_TENSORS = ("The {what} given to {api} must be either a Tensor or a tuple of Tensors but the "
                "{where} has type {kind}.")
_V_COUNT = "v is a tuple of invalid length: should be {} but got {}."
_V_NOT_SINGLE = "The given v should contain a single Tensor."
_V_SIZE = "{}v has invalid size: should be {} but got {}."
_V_NEEDED_FOR_OUTPUT = ("The vector v can only be None if the user-provided function returns a "
                        "single Tensor with a single element.")
_V_NEEDED_FOR_INPUT = ("The vector v can only be None if the input to the user-provided function "
                       "is a single Tensor with a single element.")
_NOT_SINGLE_TENSOR = "The function given to {} should return a single Tensor"
_NOT_SINGLE_ELEMENT = ("The Tensor returned by the function given to {} should contain a single "
                       "element")
_STRICT_UNUSED = ("The output of the user-provided function is independent of input {}. This is "
                  "not allowed in strict mode.")
# strict mode, a value that does not require grad; keyed by what the value is
_STRICT_NO_GRAD = {
    "outputs": ("Output {} of the user-provided function does not require gradients. The outputs "
                "must be computed in a differentiable manner from the input when running in "
                "strict mode."),
    "grad_inputs": ("The gradient with respect to input {} is independent of the inputs of the "
                    "user-provided function. This is not allowed in strict mode."),
    "jacobian": ("While computing the hessian, found that the jacobian of the user-provided "
                 "function with respect to input {} is independent of the input. This is not "
                 "allowed in strict mode. You should ensure that your function is twice "
                 "differentiable and that the jacobian depends on the inputs (this would be "
                 "violated by a linear function for example)."),
    "hessian": ("The hessian of the user-provided function with respect to input {} is "
                "independent of the input. This is not allowed in strict mode. You should ensure "
                "that your function is thrice differentiable and that the hessian depends on the "
                "inputs."),
}
# strict mode, a gradient that came back None; keyed by the pass that produced it
_STRICT_MISSING = {
    "vjp": _STRICT_UNUSED,
    "jvp": ("The gradient with respect to the input is independent of entry {} in the "
            "grad_outputs when using the double backward trick to compute forward mode "
            "gradients. This is not allowed in strict mode."),
    "vhp": ("The jacobian of the user-provided function is independent of input {}. This is not "
            "allowed in strict mode."),
    "hvp": ("The hessian of the user-provided function is independent of entry {} in the "
            "grad_jacobian. This is not allowed in strict mode as it prevents from using the "
            "double backward trick to replace forward mode AD."),
}
_STRICT_CONSTANT = ("The {} of the user-provided function is independent of input {}. This is "
                    "not allowed in strict mode when create_graph=True.")
_STRICT_OUTPUT_UNUSED = ("Output {} of the user-provided function is independent of input {}. "
                         "This is not allowed in strict mode.")
_BAD_STRATEGY = 'Expected strategy to be either "forward-mode" or "reverse-mode".'
_BAD_JACOBIAN_STRATEGY = (_BAD_STRATEGY + ' Hint: If your function has more outputs than inputs, '
                          '"forward-mode" tends to be more performant. Otherwise, prefer to use '
                          '"reverse-mode".')
_FORWARD_WITH_GRAPH = ('torch.autograd.functional.jacobian: `create_graph=True` and '
                       '`strategy="forward-mode"` are not supported together (yet). Please either '
                       'set `create_graph=False` or `strategy="reverse-mode"`.')
_VECTORIZE_STRICT = ("torch.autograd.functional.jacobian: `strict=True` and `vectorized=True` are "
                     "not supported together. Please either set `strict=False` or "
                     "`vectorize=False`.")
_FORWARD_STRICT = ('torch.autograd.functional.jacobian: `strict=True` and '
                   '`strategy="forward-mode"` are not supported together (yet). Please either set '
                   '`strict=False` or `strategy="reverse-mode"`.')
# NB: "isonly": PyTorch's message lacks the space
_FORWARD_VECTORIZE = ("Computing Jacobian using forward-AD or forward-over-reverse Hessian is"
                      "only implemented for `vectorize=True`.")


# -- arguments in and results out ---------------------------------------------------------------
class _Packed(NamedTuple):
    """A "Tensor or tuple of Tensors" value as a tuple, and whether the caller gave a tuple."""

    was_tuple: bool
    tensors: Tensors


def _pack(value: Any, what: str, api: str) -> _Packed:
    was_tuple = isinstance(value, tuple)
    tensors = value if was_tuple else (value,)
    for i, item in enumerate(tensors):
        if not isinstance(item, Tensor):
            where = f"value at index {i}" if was_tuple else f"given {what}"
            raise TypeError(_NOT_TENSORS.format(what=what, api=api, where=where, kind=type(item)))
    return _Packed(was_tuple, tensors)


def _call(func: Func, inputs: Tensors, api: str) -> _Packed:
    return _pack(func(*inputs), _OUTPUTS, api)


def _as_given(values: Any, was_tuple: bool) -> Any:
    return values if was_tuple else values[0]


def _as_given_2d(blocks: Any, outputs_tuple: bool, inputs_tuple: bool) -> Any:
    """Blocks indexed [output][input], unwrapped along each axis the caller gave untupled."""
    if not inputs_tuple:
        blocks = tuple(row[0] for row in blocks)
    return _as_given(blocks, outputs_tuple)


def _entry_points(tensors: Sequence[Tensor], create_graph: bool, track: bool) -> Tensors:
    """What the computation works on instead of the caller's tensors. With create_graph, a tensor
    that requires grad is viewed, so the results stay differentiable back to it; any other is a
    detached alias that requires grad exactly when ``track``."""
    return tuple(t.view_as(t) if create_graph and t.requires_grad
                 else t.detach().requires_grad_(track) for t in tensors)


def _release(values: Any, create_graph: bool) -> Any:
    """Results as handed back: cut from the graph unless create_graph. ``values`` is a tuple of
    tensors or a tuple of such tuples; which one is read off its first item, so an empty tuple
    raises IndexError here as it does in PyTorch."""
    if isinstance(values[0], Tensor):
        return values if create_graph else tuple(v.detach() for v in values)
    return tuple(_release(row, create_graph) for row in values)


def _hand_back(outputs: _Packed, result: Any, result_was_tuple: bool,
               create_graph: bool) -> tuple[Any, Any]:
    return (_as_given(_release(outputs.tensors, create_graph), outputs.was_tuple),
            _as_given(_release(result, create_graph), result_was_tuple))


# -- checks -------------------------------------------------------------------------------------
def _seed(v: Any, api: str, create_graph: bool, like: _Packed, none_ok_message: str
          ) -> Tensors | None:
    """The vector ``v`` of a product, checked against the tensors it multiplies (``like``). It
    may be None only when those are one tensor of one element."""
    if v is None:
        if len(like.tensors) != 1 or like.tensors[0].nelement() != 1:
            raise RuntimeError(none_ok_message)
        return None
    vs = _entry_points(_pack(v, "v", api).tensors, create_graph, track=False)
    if len(vs) != len(like.tensors):
        if like.was_tuple:
            raise RuntimeError(_V_COUNT.format(len(like.tensors), len(vs)))
        raise RuntimeError(_V_NOT_SINGLE)
    for i, (given, wanted) in enumerate(zip(vs, like.tensors, strict=True)):
        if given.size() != wanted.size():
            where = f"Entry {i} in " if like.was_tuple else ""
            raise RuntimeError(_V_SIZE.format(where, wanted.size(), given.size()))
    return vs


def _require_grad(values: Sequence[Tensor | None], kind: str, strict: bool) -> None:
    """Strict mode only: every value must exist and require grad."""
    if not strict:
        return
    for i, value in enumerate(values):
        if value is None:
            raise RuntimeError(_STRICT_UNUSED.format(i))
        if not value.requires_grad:
            raise RuntimeError(_STRICT_NO_GRAD[kind].format(i))


def _single_scalar(outputs: _Packed, api: str) -> None:
    if outputs.was_tuple or not isinstance(outputs.tensors[0], Tensor):
        raise RuntimeError(_NOT_SINGLE_TENSOR.format(api))
    if outputs.tensors[0].nelement() != 1:
        raise RuntimeError(_NOT_SINGLE_ELEMENT.format(api))


# -- gradients ----------------------------------------------------------------------------------
def _grads(outputs: Sequence[Tensor | None], wrt: Tensors, seeds: Sequence[Any] | None = None,
           create_graph: bool = False, retain_graph: bool | None = None) -> MaybeGrads:
    """``autograd.grad`` with unused inputs allowed, over the outputs that require grad only
    (with their seeds); all None when there is none."""
    pairs = [(out, seed) for out, seed in zip(outputs, seeds or [None] * len(outputs),
                                              strict=True)
             if out is not None and out.requires_grad]
    if not pairs:
        return (None,) * len(wrt)
    return grad([out for out, _ in pairs], list(wrt), [seed for _, seed in pairs],
                allow_unused=True, create_graph=create_graph, retain_graph=retain_graph)


def _no_gaps(found: MaybeGrads, like: Tensors, strict: bool, create_graph: bool,
             api: str) -> Tensors:
    """A None gradient becomes zeros shaped like its ``like`` entry (strict mode: an error)."""
    filled: list[Tensor] = []
    for i, g in enumerate(found):
        if g is None:
            if strict:
                raise RuntimeError(_STRICT_MISSING[api].format(i))
            g = zeros_like(like[i])
        elif strict and create_graph and not g.requires_grad:
            what = "hessian" if api in ("vhp", "hvp") else "jacobian"
            raise RuntimeError(_STRICT_CONSTANT.format(what, i))
        filled.append(g)
    return tuple(filled)


def _last_pass(outputs: Sequence[Tensor | None], wrt: Tensors, seeds: Tensors | None,
               like: Tensors, strict: bool, create_graph: bool, api: str) -> Tensors:
    """The pass whose gradients are the answer: grad mode stays as the caller had it unless
    create_graph asks for a graph."""
    with set_grad_enabled(True if create_graph else is_grad_enabled()):
        return _no_gaps(_grads(outputs, wrt, seeds, create_graph=create_graph), like, strict,
                        create_graph, api)


# -- products -----------------------------------------------------------------------------------
def vjp(func: Func, inputs: Any, v: Any = None, create_graph: bool = False,
        strict: bool = False) -> tuple[Any, Any]:
    with enable_grad():
        given = _pack(inputs, "inputs", "vjp")
        ins = _entry_points(given.tensors, create_graph, track=True)
        outputs = _call(func, ins, "vjp")
        _require_grad(outputs.tensors, "outputs", strict)
        vs = _seed(v, "vjp", create_graph, outputs, _V_NEEDED_FOR_OUTPUT)
    found = _last_pass(outputs.tensors, ins, vs, ins, strict, create_graph, "vjp")
    return _hand_back(outputs, found, given.was_tuple, create_graph)


def jvp(func: Func, inputs: Any, v: Any = None, create_graph: bool = False,
        strict: bool = False) -> tuple[Any, Any]:
    with enable_grad():
        given = _pack(inputs, "inputs", "jvp")
        ins = _entry_points(given.tensors, create_graph, track=True)
        vs = _seed(v, "jvp", create_graph, given._replace(tensors=ins), _V_NEEDED_FOR_INPUT)
        outputs = _call(func, ins, "jvp")
        _require_grad(outputs.tensors, "outputs", strict)
        # uᵀJ as a function of a dummy u; differentiating it along v below gives Jv
        dummies = tuple(zeros_like(out, requires_grad=True) for out in outputs.tensors)
        u_j = _grads(outputs.tensors, ins, dummies, create_graph=True)
        _require_grad(u_j, "grad_inputs", strict)
    found = _last_pass(u_j, dummies, vs, outputs.tensors, strict, create_graph, "jvp")
    return _hand_back(outputs, found, outputs.was_tuple, create_graph)


def _gradient_of_scalar(func: Func, inputs: Any, v: Any, create_graph: bool, strict: bool,
                        api: str) -> tuple[_Packed, Tensors, Tensors | None, _Packed, MaybeGrads]:
    """The start vhp and hvp share: inputs, v, the scalar output and its gradient (kept in the
    graph). Runs with grad enabled."""
    given = _pack(inputs, "inputs", api)
    ins = _entry_points(given.tensors, create_graph, track=True)
    vs = _seed(v, api, create_graph, given._replace(tensors=ins), _V_NEEDED_FOR_INPUT)
    outputs = _call(func, ins, api)
    _require_grad(outputs.tensors, "outputs", strict)
    _single_scalar(outputs, api)
    gradient = _grads(outputs.tensors, ins, create_graph=True)
    _require_grad(gradient, "jacobian", strict)
    return given, ins, vs, outputs, gradient


def vhp(func: Func, inputs: Any, v: Any = None, create_graph: bool = False,
        strict: bool = False) -> tuple[Any, Any]:
    with enable_grad():
        given, ins, vs, outputs, gradient = _gradient_of_scalar(func, inputs, v, create_graph,
                                                                strict, "vhp")
    found = _last_pass(gradient, ins, vs, ins, strict, create_graph, "vhp")
    return _hand_back(outputs, found, given.was_tuple, create_graph)


def hvp(func: Func, inputs: Any, v: Any = None, create_graph: bool = False,
        strict: bool = False) -> tuple[Any, Any]:
    with enable_grad():
        given, ins, vs, outputs, gradient = _gradient_of_scalar(func, inputs, v, create_graph,
                                                                strict, "hvp")
        # the jvp identity again, on the gradient: uᵀH for a dummy u, then along v
        dummies = tuple(zeros_like(t, requires_grad=True) for t in ins)
        u_h = _grads(gradient, ins, dummies, create_graph=True)
        _require_grad(gradient, "hessian", strict)
    found = _last_pass(u_h, dummies, vs, ins, strict, create_graph, "hvp")
    return _hand_back(outputs, found, given.was_tuple, create_graph)


# -- full matrices ------------------------------------------------------------------------------
def _jacobian_blocks(out: Tensor, out_index: int, ins: Tensors, strict: bool,
                     create_graph: bool) -> Tensors:
    """d out / d input for every input, one vjp per element of ``out`` (a row each), stacked and
    shaped ``out.shape + input.shape``."""
    rows: list[list[Tensor]] = [[] for _ in ins]
    for element in range(out.nelement()):
        found = _grads((out.reshape(-1)[element],), ins, retain_graph=True,
                       create_graph=create_graph)
        for k, (g, inp) in enumerate(zip(found, ins, strict=True)):
            if g is None:
                if strict:
                    raise RuntimeError(_STRICT_OUTPUT_UNUSED.format(out_index, k))
                g = zeros_like(inp)
            elif strict and create_graph and not g.requires_grad:
                raise RuntimeError(_STRICT_CONSTANT.format("jacobian", out_index))
            rows[k].append(g)
    return tuple(functional.stack(row, 0).view((*out.shape, *inp.shape))
                 for row, inp in zip(rows, ins, strict=True))


def jacobian(func: Func, inputs: Any, create_graph: bool = False, strict: bool = False,
             vectorize: bool = False, strategy: str = "reverse-mode") -> Any:
    if strategy not in _STRATEGIES:
        raise AssertionError(_BAD_JACOBIAN_STRATEGY)
    if strategy == "forward-mode":
        if create_graph:
            raise NotImplementedError(_FORWARD_WITH_GRAPH)
        return _forward_jacobian(func, inputs, strict, vectorize)
    with enable_grad():
        given = _pack(inputs, "inputs", "jacobian")
        ins = _entry_points(given.tensors, create_graph, track=True)
        outputs = _call(func, ins, "jacobian")
        _require_grad(outputs.tensors, "outputs", strict)
        if vectorize and strict:
            raise RuntimeError(_VECTORIZE_STRICT)
        blocks = tuple(_jacobian_blocks(out, i, ins, strict, create_graph)
                       for i, out in enumerate(outputs.tensors))
        return _as_given_2d(_release(blocks, create_graph), outputs.was_tuple, given.was_tuple)


def _forward_jacobian(func: Func, inputs: Any, strict: bool, vectorize: bool) -> Any:
    """The Jacobian in forward mode: each input element's basis tangent, one dual pass each."""
    from ...engine import forward_ad as fw
    if strict:
        raise RuntimeError(_FORWARD_STRICT)
    given = _pack(inputs, "inputs", "jacobian")
    if not vectorize:
        raise NotImplementedError(_FORWARD_VECTORIZE)
    ins = given.tensors
    columns: list[list[Tensors]] = [[] for _ in ins]       # per input, per element
    primals: list[Tensor] = []
    outputs_tuple = False
    for i, inp in enumerate(ins):
        for k in range(inp.numel()):
            basis = zeros_like(inp).reshape(-1)
            basis._data[k] = 1
            with fw.dual_level():
                duals = tuple(fw.make_dual(t, basis.view_as(t) if j == i else zeros_like(t))
                              for j, t in enumerate(ins))
                outputs = _pack(func(*duals), "outputs", "jacobian")
                outputs_tuple = outputs.was_tuple
                unpacked = [fw.unpack_dual(o) for o in outputs.tensors]
                primals = [u.primal for u in unpacked]
                columns[i].append(tuple(zeros_like(u.primal) if u.tangent is None else u.tangent
                                        for u in unpacked))
    blocks = [[_columns_block([c[o] for c in col], out, inp)
               for col, inp in zip(columns, ins, strict=True)]
              for o, out in enumerate(primals)]
    # NB: PyTorch's lists, not tuples, where both were given as tuples
    res: Any = blocks
    if not given.was_tuple:
        res = tuple(row[0] for row in res)
    return res if outputs_tuple else res[0]


def _columns_block(cols: list[Tensor], out: Tensor, inp: Tensor) -> Tensor:
    """One Jacobian block from its columns, as PyTorch's: the input's elements first (its
    vmap's batch dimension), moved last, then reshaped (a ``_reshape_alias`` where it can)."""
    if not cols:
        return zeros_like(out).new_zeros((*out.shape, *inp.shape))
    jac = functional.stack(cols, 0)
    return jac.permute(*range(1, jac.dim()), 0).reshape((*out.shape, *inp.shape))


def hessian(func: Func, inputs: Any, create_graph: bool = False, strict: bool = False,
            vectorize: bool = False, outer_jacobian_strategy: str = "reverse-mode") -> Any:
    given = _pack(inputs, "inputs", "hessian")
    if outer_jacobian_strategy not in _STRATEGIES:
        raise AssertionError(_BAD_STRATEGY)

    def scalar_func(*args: Tensor) -> Tensor:
        out = func(*args)
        packed = _pack(out, _OUTPUTS, "hessian")
        _require_grad(packed.tensors, "outputs", strict)
        _single_scalar(packed, "hessian")
        return out.squeeze()

    def gradient(*args: Tensor) -> Any:
        if outer_jacobian_strategy == "forward-mode":
            # NB: inputs that require grad are viewed, not detached: they keep their tangents
            args = tuple(t.requires_grad_(True) for t in args)
        found = jacobian(scalar_func, args, create_graph=True)
        _require_grad(found, "jacobian", strict)
        return found

    blocks = jacobian(gradient, given.tensors, create_graph=create_graph, strict=strict,
                      vectorize=vectorize, strategy=outer_jacobian_strategy)
    return _as_given_2d(blocks, given.was_tuple, given.was_tuple)
