"""Forward-mode AD: the dual level, tangents on tensors, and their flow through the table's ops.

A tangent lives on its tensor (``Tensor._fw_grad``) while the one dual level is open; leaving
the level drops every tangent given in it. While a level is open (``grad_state.dual``, the one
flag ``apply`` checks), each op whose inputs carry tangents gives its outputs theirs:

* a view op applies itself to the input's tangent (the tangent of a view is a view of the
  tangent, so writing through either keeps both right);
* any other op uses its backward formula twice ("double vjp"): with ``u`` a zero gradient of
  the output's shape, ``r(u) = sum_i <vjp(u)_i, v_i>`` is linear in ``u`` and ``dr/du = J v``.
  The formulas run on the ``TT`` backend (differentiable); an op whose formula is written on
  arrays only gets ``J v`` one output element at a time instead.

A view made before its base got a tangent reads the base's tangent through its view function,
as PyTorch's views do; the primal ``unpack_dual`` gives is cut from it (``_fw_grad = False``).

An output saved by its own node keeps the tangent the output got (its slot becomes a
``DualSavedTensor`` until the level closes), and a saved input is the tensor itself: a backward
formula run in the level (forward over reverse: ``autograd.grad(..., create_graph=True)`` on dual
inputs) reads its saved values with their tangents, as PyTorch's.
"""

from __future__ import annotations

import weakref
from typing import Any, NamedTuple

import numpy as np

from . import events
from .grad_mode import enable_grad
from .grad_mode import state as grad_state
from .optable import TABLE, Op
from .tensor import Tensor

__all__ = ["UnpackedDualTensor", "enter_dual_level", "exit_dual_level", "make_dual",
           "unpack_dual", "dual_level", "tangent_of", "set_tangent"]

_level = -1
# the tensors given a tangent at the open level (their tangents go when it closes)
_holders: list[weakref.ref[Tensor]] = []
# the saved outputs given their output's tangent at the open level (dropped when it closes)
_saved_holders: list[weakref.ref[Any]] = []


class UnpackedDualTensor(NamedTuple):
    """What ``unpack_dual`` returns: the primal (a view) and the tangent (or None)."""

    primal: Any
    tangent: Any


def enter_dual_level() -> int:
    """Open the (one) dual level; PyTorch refuses a second one."""
    global _level
    if _level >= 0:
        raise RuntimeError("Nested forward mode AD is not supported at the moment")
    _level = 0
    grad_state.dual = True
    return _level


def exit_dual_level(*, level: int | None = None) -> None:
    """Close the dual level: every tangent given in it is dropped."""
    global _level
    if level is None:
        level = _level
    if level != _level:
        raise RuntimeError("Trying to exit a forward AD level that was not the last one that "
                           "was created. This is not supported.")
    if level < 0:
        raise RuntimeError("Dual level must be a positive number.")
    for ref in _holders:
        t = ref()
        if t is not None:
            t.__dict__.pop("_fw_grad", None)
    _holders.clear()
    from .node import drop_tangent
    for sref in _saved_holders:
        slot = sref()
        if slot is not None:
            drop_tangent(slot)
    _saved_holders.clear()
    _level = level - 1
    grad_state.dual = False


class dual_level:  # noqa: N801 -- PyTorch's name
    """Context manager (and decorator) for forward AD: a dual level open inside.

    >>> from graphviz_autograd import torch
    >>> import graphviz_autograd.torch.autograd.forward_ad as fwAD
    >>> with fwAD.dual_level():
    ...     x = fwAD.make_dual(torch.tensor([1.0, 2.0]), torch.tensor([1.0, 0.0]))
    ...     fwAD.unpack_dual(x * x).tangent
    tensor([2., 0.])
    """

    def __enter__(self) -> int:
        return enter_dual_level()

    def __exit__(self, *exc: object) -> None:
        exit_dual_level()

    def __call__(self, fn: Any) -> Any:
        import functools

        @functools.wraps(fn)
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            with dual_level():
                return fn(*args, **kwargs)
        return wrapper


# -- tangents ------------------------------------------------------------------------------------
def tangent_of(t: Tensor) -> Tensor | None:
    """``t``'s tangent at the open level: its own, else the matching view of its base's."""
    g = t._fw_grad
    if g is None:
        base = t._base
        if base is None or t._view_fn is None:
            return None
        bg = base._fw_grad
        if not isinstance(bg, Tensor):
            return None
        g = _view_of(bg, t._view_fn(bg._data))
        set_tangent(t, g)
        return g
    return g if isinstance(g, Tensor) else None


def set_tangent(t: Tensor, g: Tensor | bool | None) -> None:
    t._fw_grad = g
    _holders.append(weakref.ref(t))


def _view_of(src: Tensor, arr: np.ndarray) -> Tensor:
    v = Tensor._make(arr, src._dtype)
    v._base = src._base if src._base is not None else src
    v._vc = src._vc
    return v


def _plain(x: Any) -> Tensor:
    """A tensor on ``x``'s memory, outside any graph and without a tangent."""
    return Tensor._make(x._data, x._dtype) if isinstance(x, Tensor) else x


def _number(a: Any) -> Tensor | None:
    """A number the forward got in place of a tensor input (``a * 2``), as a wrapped tensor."""
    if a is None:
        return None
    arr = np.asarray(a)
    from . import dtypes as dt
    t = Tensor._make(arr, dt.from_numpy(arr.dtype))
    t._wrapped = True
    return t


def _differentiable(t: Tensor) -> bool:
    return t._dtype.is_floating_point or t._dtype.is_complex


# -- the API -------------------------------------------------------------------------------------
def make_dual(tensor: Tensor, tangent: Tensor, *, level: int | None = None) -> Tensor:
    """A view of ``tensor`` carrying ``tangent`` (as is when its layout matches, else copied)."""
    if level is None:
        level = _level
    if level < 0:
        raise RuntimeError("Trying to create a dual Tensor for forward AD but no level exists, "
                           "make sure to enter_dual_level() first.")
    if not _differentiable(tensor):
        raise ValueError(f"Expected primal to be floating point or complex, but got: "
                         f"{tensor.dtype}")
    if not _differentiable(tangent):
        raise ValueError(f"Expected tangent to be floating point or complex, but got: "
                         f"{tangent.dtype}")
    if level != _level:
        raise RuntimeError("Invalid level given to _make_dual")
    if tangent._data.shape != tensor._data.shape:
        from .messages import shape_text
        raise RuntimeError("Trying to set a forward gradient that has a different size than that "
                           "of the original Tensor, this is not supported. Tensor is of size "
                           f"{_sizes(tensor, shape_text)} while the given forward gradient is of "
                           f"size {_sizes(tangent, shape_text)}.")
    if tangent_of(tensor) is not None:
        raise RuntimeError("Making a dual Tensor based on a Tensor that already has a forward "
                           f"gradient at the same level {level} is not supported.")
    dual = tensor.view(tuple(tensor._data.shape))
    if _elem_strides(tangent._data) != _elem_strides(tensor._data):
        # NB: PyTorch copies a tangent of another layout into one of the primal's layout and dtype
        arr = np.empty_like(tensor._data, order="K")
        arr[...] = tangent._data
        tangent = Tensor._make(arr, tensor._dtype)
    set_tangent(dual, tangent)
    return dual


def _sizes(t: Tensor, shape_text: Any) -> str:
    return "[" + ", ".join(str(s) for s in t._data.shape) + "]"


def _elem_strides(a: np.ndarray) -> tuple[int, ...]:
    return tuple(s // a.itemsize for s in a.strides)


def unpack_dual(tensor: Any, *, level: int | None = None) -> UnpackedDualTensor:
    """``(primal, tangent)``: the primal a view of ``tensor`` without the tangent, the tangent
    as is (None where ``tensor`` has none)."""
    if level is None:
        level = _level
    if level < 0:
        return UnpackedDualTensor(tensor, None)
    if not isinstance(tensor, Tensor):
        raise TypeError(f"_unpack_dual(): argument 'dual' (position 1) must be Tensor, not "
                        f"{type(tensor).__name__}")
    if level != _level:
        raise RuntimeError("Invalid level given to _fw_primal")
    from .autograd import apply
    # NB: None where forward AD is off for now (inside a custom Function's forward)
    g = tangent_of(tensor) if grad_state.dual else None
    dual = grad_state.dual
    grad_state.dual = False
    try:
        primal = apply(TABLE["fw_primal"], (tensor,))
    finally:
        grad_state.dual = dual
    set_tangent(primal, False)
    return UnpackedDualTensor(primal, g)


# -- propagation ---------------------------------------------------------------------------------
# Ops PyTorch has no forward formula for: table key -> the name its error gives. Names with
# "aten::" get the short message, the others the one asking for an issue
NO_FORWARD = {
    "floor_divide": "aten::floor_divide", "remainder_of_scalar": "aten::remainder",
    "heaviside": "aten::heaviside", "bernoulli_p": "aten::bernoulli",
    "bincount": "aten::bincount", "binomial": "aten::binomial",
    "linalg_ldl_factor_ex": "aten::linalg_ldl_factor_ex",
    "linalg_ldl_solve": "aten::linalg_ldl_solve", "scatter_reduce_legacy": "aten::scatter",
    "_weight_norm_interface": "_weight_norm_interface", "cdist": "_cdist_forward",
    "cholesky": "cholesky", "conv_tbc": "conv_tbc", "ctc_loss": "_ctc_loss",
    "embedding_bag": "_embedding_bag", "euclidean_dist": "_euclidean_dist",
    "grid_sampler_2d": "grid_sampler_2d", "grid_sampler_3d": "grid_sampler_3d",
    "index_reduce": "index_reduce", "mkldnn_rnn_layer": "mkldnn_rnn_layer", "ormqr": "ormqr",
    "pack_padded_sequence": "_pack_padded_sequence", "pdist": "_pdist_forward",
    "rrelu_with_noise_": "rrelu_with_noise_", "standard_gamma": "_standard_gamma",
    "scaled_dot_product_flash_attention_for_cpu": "_scaled_dot_product_flash_attention_for_cpu",
    "special_zeta_of_scalar": "special_zeta", "multi_margin_loss": "multi_margin_loss",
    "multilabel_margin_loss": "multilabel_margin_loss_forward",
    # backward formulas' ops (forward over reverse)
    "huber_loss_backward": "huber_loss_backward",
    "soft_margin_loss_backward": "soft_margin_loss_backward",
    "hardsigmoid_backward": "aten::hardsigmoid_backward",
}


# Linear ops whose tangent is the op on the tangent, where PyTorch's forward formula is not the
# backward's transpose: embedding's keeps the padding row (its backward zeroes it)
ON_TANGENT = {"embedding"}


def _unsupported(op: Op, inplace: bool) -> NotImplementedError:
    name = NO_FORWARD[op.key]
    if name.startswith("aten::"):
        return NotImplementedError(f"Trying to use forward AD with {name} that does not support "
                                   "it.")
    if inplace and not name.endswith("_"):
        name += "_"
    return NotImplementedError(
        f"Trying to use forward AD with {name} that does not support it because it has not been "
        "implemented yet.\nPlease file an issue to PyTorch at https://github.com/pytorch/pytorch/"
        "issues/new?template=feature-request.yml so that we can prioritize its implementation or "
        "submit a PR adding the implementation to derivatives.yaml")


def propagate(op: Op, inputs: Any, outs: list[Tensor], kw: dict[str, Any] | None,
              extras: dict[str, Any] | None, arrays: Any) -> None:
    """Give the outputs of ``op`` (just run) their tangents, from the inputs' ones."""
    tans = [tangent_of(t) if t is not None else None for t in inputs]
    if op.view:
        src = inputs[0]
        if tans[0] is None:
            if src._fw_grad is False or (src._base is not None and src._base._fw_grad is False):
                for o in outs:
                    set_tangent(o, False)       # NB: a view of a primal is cut as the primal
            return
    if all(g is None for g in tans):
        return
    if op.key in NO_FORWARD:
        raise _unsupported(op, False)
    if op.key == "mse_loss_backward" and (kw or {}).get("reduction", 1) == 1 \
            and (tans[1] is None or tans[2] is None):
        # NB: PyTorch's forward formula of a mean mse_loss_backward divides in place the
        # all-zero tangent it makes for a self or target without one, which it refuses
        raise RuntimeError("ZeroTensors are immutable. Please use the materialized zero tensor "
                           "obtained using .clone() if you want a mutable tensor.")
    grad_state.dual = False
    try:
        # NB: not as_strided: its view function reads the primal's storage
        if ((op.view and not op.key.startswith("as_strided")) or op.key in ON_TANGENT) \
                and tans[0] is not None \
                and all(g is None for g in tans[1:]):
            with events.unseen():
                res = _tangent_view(op, tans[0], kw)
            got: list[Tensor | None] = list(res) if isinstance(res, list | tuple) else [res]
        else:
            # NB: arrays may leave inputs out (cat drops empty ones): only numbers come from them
            xs = [_plain(t) if t is not None else
                  _number(arrays[i] if arrays is not None and i < len(arrays) else None)
                  for i, t in enumerate(inputs)]
            got = jvp(op, xs, [_plain(o) for o in outs], kw, extras, tans, inputs)
    finally:
        grad_state.dual = True
    for o, g in zip(outs, got, strict=False):
        if g is not None and _differentiable(o):
            set_tangent(o, g)
            _save_tangent(o._grad_fn, o, g)


def _save_tangent(node: Any, o: Tensor, g: Tensor) -> None:
    """The slots where ``node`` saved its output ``o`` keep ``o``'s tangent ``g``: unpacked
    while the level is open, they carry it (a backward formula run in forward mode needs it)."""
    from .node import DualSavedTensor, SavedTensor
    saved = node._saved if node is not None else None
    if not saved:
        return
    for value in saved.values():
        # NB: a custom Function's saved tensors are one list of slots
        for slot in value if isinstance(value, list) else (value,):
            if isinstance(slot, SavedTensor) and slot.tensor is None and not slot.released \
                    and slot.array is not None and slot.output_nr == o._output_nr \
                    and slot.array is o._data:
                slot.__class__ = DualSavedTensor
                slot.fw_grad = g
                _saved_holders.append(weakref.ref(slot))


def _tangent_view(op: Op, g: Tensor, kw: dict[str, Any] | None) -> Any:
    from .autograd import apply
    return apply(op, (g,), kw)


def propagate_inplace(op: Op, self: Tensor, others: Any, kw: dict[str, Any] | None,
                      arrays: Any) -> Tensor:
    """``apply_inplace`` while a dual level is open: ``self``'s tangent becomes ``J v`` at the
    values before the write, written into its tangent's memory (or its base's) as PyTorch does."""
    from .autograd import _forward, apply_inplace
    inputs = (self, *others)
    tans = [tangent_of(t) if t is not None else None for t in inputs]
    if op.key in NO_FORWARD and any(g is not None for g in tans):
        raise _unsupported(op, True)
    grad_state.dual = False
    try:
        if all(g is None for g in tans):
            return apply_inplace(op, self, others, kw, arrays)
        if arrays is None:
            arrays = [t._data if t is not None else None for t in inputs]
        before = [np.array(a, copy=True) if isinstance(a, np.ndarray) else a for a in arrays]
        xs = [(Tensor._make(np.asarray(before[i]), t._dtype) if t is not None else
               _number(before[i])) if i < len(before) else _plain(t)
              for i, t in enumerate(inputs)]
        apply_inplace(op, self, others, kw, arrays)
        res = _forward(op, before, kw)
        extras = None
        if op.extras:
            res, extras = res
        out = Tensor._make(np.array(self._data, copy=True), self._dtype)
        new = jvp(op, xs, [out], kw, extras, tans)[0]
    finally:
        grad_state.dual = True
    if new is not None and _differentiable(self):
        _write_tangent(self, new)
        g = tangent_of(self)
        if g is not None:
            base = self._base
            # NB: the op's node: self's own, or the one inside its base's CopySlices
            node = self._grad_fn if base is None else getattr(base._grad_fn, "fn", None)
            _save_tangent(node, self, g)
    return self


def _write_tangent(t: Tensor, new: Tensor) -> None:
    cur = tangent_of(t)
    if cur is not None and cur._data.flags.writeable and cur._data.shape == new._data.shape:
        cur._data[...] = new._data
        return
    base = t._base
    if base is not None and t._view_fn is not None and _differentiable(base):
        bg = tangent_of(base)
        if bg is None:
            bg = Tensor._make(np.zeros_like(base._data), base._dtype)
            set_tangent(base, bg)
        view = t._view_fn(bg._data)
        if np.shares_memory(view, bg._data) and view.flags.writeable:
            view[...] = new._data
            set_tangent(t, _view_of(bg, view))
            return
    set_tangent(t, new)


def jvp(op: Op, xs: list[Any], ys: list[Tensor], kw: dict[str, Any] | None,
        extras: dict[str, Any] | None, tans: list[Tensor | None],
        real: Any = None) -> list[Tensor | None]:
    """``J v`` for each output of ``op`` at inputs ``xs`` (outputs ``ys``, forward extras
    ``extras``), the inputs' tangents ``tans``: by the double vjp, or row by row where the
    backward formula has no graph.

    Given the ``real`` inputs, in grad mode, where one of them or a tangent requires grad, the
    formula runs on them and ``J v`` keeps its graph (reverse mode through a tangent)."""
    from .autograd import apply, record
    graph = real is not None and grad_state.enabled and (
        any(isinstance(t, Tensor) and t.requires_grad for t in real)
        or any(g is not None and g.requires_grad for g in tans))
    outs = [y for y in ys if _differentiable(y)]
    srcs: list[Tensor] = []
    vs: list[Tensor] = []
    with events.unseen(), enable_grad():
        for i, (x, g) in enumerate(zip(xs, tans, strict=False)):
            if graph and isinstance(real[i], Tensor) and real[i].requires_grad:
                # NB: a tap of its own per input (an alias node): a gradient by one input must
                # not take in the paths through another (e = x.exp(); e * x)
                xs[i] = x = apply(TABLE["alias"], (real[i],))
            elif (g is not None or graph) and isinstance(x, Tensor) and _differentiable(x):
                xs[i] = x = Tensor._make(x._data, x._dtype, requires_grad=True)
            else:
                continue
            if g is None and graph and isinstance(x, Tensor) and _differentiable(x):
                # NB: PyTorch's formulas take a zero tangent for an input without one: its
                # term still holds the other primals (``self_t * other_p``), and their graph
                g = Tensor._make(np.zeros_like(x._data), x._dtype)
            if g is not None:
                srcs.append(x)
                vs.append(g)
        if not srcs or not outs:
            return [None] * len(ys)
        record(op, xs, ys, kw, extras)
        # NB: any u gives J v (the formula is linear in it); ones, not zeros: a formula through
        # log |u| (logcumsumexp's) has no derivative at 0
        us = [Tensor._make(np.ones_like(y._data), y._dtype, requires_grad=True) for y in outs]
        try:
            got = _double_vjp(outs, srcs, vs, us, graph)
        except (NotImplementedError, RuntimeError):
            # NB: a formula on arrays only, or one whose graph has no derivative again
            got = _by_rows(outs, srcs, vs)
            graph = False
        it = iter(got)
        return [_cast(next(it), y, graph) if _differentiable(y) else None for y in ys]


def _double_vjp(outs: list[Tensor], srcs: list[Tensor], vs: list[Tensor], us: list[Tensor],
                graph: bool) -> list[Tensor]:
    from .executor import grad
    gs = grad(outs, srcs, grad_outputs=us, create_graph=True, allow_unused=True)
    r: Any = None
    for gi, v in zip(gs, vs, strict=True):
        if gi is None:
            continue
        if not gi.requires_grad:
            if np.any(gi._data) and np.any(v._data):
                raise NotImplementedError("a formula made no graph")   # NB: row by row instead
            continue
        term = (gi * (v if graph else _plain(v))).sum()
        r = term if r is None else r + term
    if r is None:
        return [Tensor._make(np.zeros_like(y._data), y._dtype) for y in outs]
    got = list(grad(r, us, allow_unused=True, materialize_grads=True, create_graph=graph))
    if any((np.isnan(g._data) & ~np.isnan(y._data)).any() for g, y in zip(got, outs, strict=True)):
        raise RuntimeError("not a number")      # NB: a formula with no derivative here
    return got


def _cast(g: Tensor, y: Tensor, graph: bool) -> Tensor:
    if graph and g.requires_grad:
        return g if g._dtype is y._dtype else g.to(y.dtype)
    g = _plain(g)
    if g._dtype is not y._dtype:
        g = Tensor._make(g._data.astype(y._dtype.np), y._dtype)
    return g


def _by_rows(outs: list[Tensor], srcs: list[Tensor], vs: list[Tensor]) -> list[Tensor]:
    """``J v`` one output element at a time (a backward formula on arrays only)."""
    from .executor import grad
    got = []
    for k, y in enumerate(outs):
        flat = np.zeros(y._data.size, dtype=y._data.dtype)
        for j in range(y._data.size):
            # NB: C-ordered seeds (an output may be Fortran-ordered: its reshape would copy)
            seeds = [Tensor._make(np.zeros(o._data.shape, o._data.dtype), o._dtype) for o in outs]
            seeds[k]._data.reshape(-1)[j] = 1
            gs = grad(outs, srcs, grad_outputs=seeds, retain_graph=True, allow_unused=True)
            flat[j] = sum(float(np.sum(gi._data * v._data)) for gi, v in zip(gs, vs, strict=True)
                          if gi is not None)
        got.append(Tensor._make(flat.reshape(y._data.shape), y._dtype))
    return got


def custom_function_jvp(cls: Any, ctx: Any, args: tuple[Any, ...], outputs: Any) -> None:
    """A custom ``Function``'s outputs get their tangents from its ``jvp`` (PyTorch refuses
    one without)."""
    tans = [tangent_of(a) if isinstance(a, Tensor) else None for a in args]
    if all(g is None for g in tans):
        return
    from .function import Function
    if cls.jvp is Function.jvp:
        raise NotImplementedError("You must implement the jvp function for custom "
                                  "autograd.Function to use it with forward mode AD.")
    given = [g if g is not None else (Tensor._make(np.zeros_like(a._data), a._dtype)
                                      if isinstance(a, Tensor) else None)
             for a, g in zip(args, tans, strict=True)]
    grad_state.dual = False
    ctx._in_jvp = True
    try:
        with enable_grad():
            res = cls.jvp(ctx, *given)
    finally:
        grad_state.dual = True
        ctx._in_jvp = False
    outs = outputs if isinstance(outputs, tuple) else (outputs,)
    res = res if isinstance(res, tuple) else (res,)
    for o, g in zip(outs, res, strict=False):
        if isinstance(o, Tensor) and isinstance(g, Tensor) and _differentiable(o):
            set_tangent(o, g)
            _save_tangent(o._grad_fn, o, g)
