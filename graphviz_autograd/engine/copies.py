"""The ``torch.*_copy`` functions (``view_copy``, ``t_copy``, ``transpose_copy``, ...): a view op
whose output is a fresh tensor, recorded as PyTorch records it (``ViewBackward0_copy``: the view's
node under a name of its own, the same saved values, no view relation); ``detach_copy`` (a
``NotImplemented`` node); and ``Tensor.as_strided_`` (AsStridedBackward1)."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from typing import Any

import numpy as np

from . import events, ops_order, ops_shape, ops_shaping  # noqa: F401 -- the view ops, registered first
from . import functional as F
from .autograd import apply
from .ops_pointwise import _not_implemented
from .optable import TABLE, Op, register
from .pre_write import WATCH as _WATCH
from .pre_write import before_write
from .tensor import Tensor

__all__ = ["FUNCTIONS", "METHODS", "as_strided_"]

# the view ops that have a copying twin, by table key
_VIEW_KEYS = ("view", "t", "transpose", "permute", "expand", "squeeze", "squeeze_dim",
              "unsqueeze", "diagonal", "select", "slice", "split",
              "split_with_sizes", "unbind", "alias", "unfold", "as_strided_view")


def _copying(fwd: Callable[..., Any]) -> Callable[..., Any]:
    def f(*args: Any, **kw: Any) -> Any:
        out = fwd(*args, **kw)
        if isinstance(out, list | tuple):
            return [np.array(o, copy=True, order="C") for o in out]
        return np.array(out, copy=True, order="C")
    return f


def _copy_op(op: Op) -> Op:
    name = op.name if op.key != "as_strided_view" else "AsStridedBackward0"
    return dataclasses.replace(op, key=op.key + ":copy", name=name + "_copy", view=False,
                               forward=_copying(op.forward), cls=None, ctx=None, plan=(),
                               tensor_kw=(), unpack_order=())


register(*[_copy_op(TABLE[k]) for k in _VIEW_KEYS])
# ``as_strided_``: the view op under its in-place node's name (the tensor itself becomes the view)
register(dataclasses.replace(TABLE["as_strided_view"], key="as_strided_inplace",
                             name="AsStridedBackward1", cls=None, ctx=None, plan=(),
                             tensor_kw=(), unpack_order=()))
register(Op("detach_copy", "torch::autograd::NotImplemented", ("self",),
            lambda x: np.array(x, copy=True), _not_implemented("detach_copy")))


def _as_copy(fn: Callable[..., Any], name: str) -> Callable[..., Any]:
    """``fn`` (a view function) with the view ops' copying twins in the table while it runs."""
    def f(*args: Any, **kw: Any) -> Any:
        saved = {k: TABLE[k] for k in _VIEW_KEYS}
        try:
            for k in _VIEW_KEYS:
                TABLE[k] = TABLE[k + ":copy"]
            out = fn(*args, **kw)
        finally:
            TABLE.update(saved)
        if isinstance(out, Tensor) and out._base is not None:
            # NB: no node was needed (e.g. a 1-d ``t``): still a copy, as PyTorch's
            out = out.clone()
        return out
    f.__name__ = name
    return f


def as_strided_(self: Tensor, size: Any, stride: Any, storage_offset: Any = None) -> Tensor:
    """``self`` itself made ``self.as_strided(...)`` (AsStridedBackward1), as PyTorch's in-place
    view ops."""
    from .autograd import check_inplace
    from .shaping import as_strided
    check_inplace(self)
    saved = TABLE["as_strided_view"]
    TABLE["as_strided_view"] = TABLE["as_strided_inplace"]
    try:
        out = as_strided(self, size, stride, storage_offset)
    finally:
        TABLE["as_strided_view"] = saved
    if _WATCH:
        before_write(self)
    self._data = out._data
    self._grad_fn, self._output_nr = out._grad_fn, out._output_nr
    if self._base is not None:
        self._view_fn = out._view_fn
    self._vc.v += 1
    if self._base is not None:
        self._view_version = self._vc.v
    if events.listeners and self._vc.saves:
        events.emit("tensor_modified", self, None)
    return self


def _method(name: str) -> Callable[..., Any]:
    def f(input: Tensor, *args: Any, **kw: Any) -> Any:
        return getattr(input, name)(*args, **kw)
    return f


def _slice(input: Tensor, dim: int = 0, start: Any = None, end: Any = None,
           step: int = 1) -> Tensor:
    d = dim % max(input.dim(), 1)
    s, e, st = slice(start, end, step).indices(input._data.shape[d])
    out = apply(TABLE["slice"], (input,), {"dim": d, "start": s, "end": max(e, s), "step": st})
    return F.as_given(out, dim=dim, start=start, end=end, step=step)


def _alias(input: Tensor) -> Tensor:
    return apply(TABLE["alias"], (input,))


def _detach_copy(input: Tensor) -> Tensor:
    return apply(TABLE["detach_copy"], (input,), dtype=input._dtype)


def _tuple(fn: Callable[..., Any]) -> Callable[..., Any]:
    def f(*args: Any, **kw: Any) -> Any:
        return tuple(fn(*args, **kw))
    return f


FUNCTIONS: dict[str, Any] = {
    name + "_copy": _as_copy(fn, name + "_copy") for name, fn in {
        "view": _method("view"), "t": _method("t"), "transpose": _method("transpose"),
        "permute": _method("permute"), "expand": _method("expand"),
        "squeeze": _method("squeeze"), "unsqueeze": _method("unsqueeze"),
        "diagonal": _method("diagonal"), "select": _method("select"), "slice": _slice,
        "split": _tuple(_method("split")),
        "split_with_sizes": _tuple(_method("split_with_sizes")),
        "unbind": _method("unbind"), "alias": _alias, "unfold": _method("unfold"),
        "as_strided": _method("as_strided")}.items()}
FUNCTIONS["detach_copy"] = _detach_copy

METHODS: dict[str, Any] = {"as_strided_": as_strided_}
