"""The user-facing matrix products beyond ``@``: the fused ones with a bias (``addmv``, ``addr``,
``baddbmm``, ``addbmm``, one node each) and the composite ones (``ger``, ``inner``, ``vdot``,
``chain_matmul`` / ``linalg.multi_dot``, ``kron``, ``matrix_power``), checked with PyTorch's
messages and decomposed as PyTorch decomposes them."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from . import functional as F
from .autograd import apply
from .optable import TABLE
from .tensor import Tensor

__all__ = ["addmv", "addr", "baddbmm", "addbmm", "outer", "inner", "vdot", "chain_matmul",
           "multi_dot", "kron", "matrix_power"]


def _attrs(beta: Any, alpha: Any) -> dict[str, Any]:
    return {"alpha": alpha, "beta": beta}


def _bias_fits(bias: Tensor, size: tuple[int, ...]) -> None:
    """PyTorch's error where the bias cannot be expanded to the product's size (checked from
    the last dim, as its expand does)."""
    shape = bias._data.shape
    lead = len(size) - len(shape)
    for i in range(len(shape) - 1, -1, -1):
        if shape[i] != 1 and (i + lead < 0 or shape[i] != size[i + lead]):
            raise F._expand_mismatch(size[i + lead], shape[i], i + lead, size, shape)


def addmv(input: Tensor, mat: Tensor, vec: Tensor, *, beta: Any = 1, alpha: Any = 1) -> Tensor:
    if mat._data.ndim != 2 or vec._data.ndim != 1 or input._data.ndim > 1:
        raise RuntimeError(f"vector + matrix @ vector expected, got {input._data.ndim}, "
                           f"{mat._data.ndim}, {vec._data.ndim}")
    if not input._dtype is mat._dtype is vec._dtype:
        names = ", ".join(F._sname(t) for t in (input, mat, vec))
        last = names.rsplit(", ", 1)
        raise RuntimeError(f"addmv input tensors must have the same dtype, but got "
                           f"{last[0]}, and {last[1]}")
    n, m = mat._data.shape
    if m != vec._data.shape[0] or input._data.shape not in ((), (1,), (n,)):
        size = "" if input._data.ndim == 0 else str(input._data.shape[0])
        raise RuntimeError(f"size mismatch, got input ({size}), mat ({n}x{m}), vec "
                           f"({vec._data.shape[0]})")
    return apply(TABLE["addmv"], (input, mat, vec), _attrs(beta, alpha))


def addr(input: Tensor, vec1: Tensor, vec2: Tensor, *, beta: Any = 1, alpha: Any = 1) -> Tensor:
    for name, v in (("vec1", vec1), ("vec2", vec2)):
        if v._data.ndim != 1:
            raise RuntimeError(f"addr: Expected 1-D argument {name}, but got {v._data.ndim}-D")
    _bias_fits(input, (vec1._data.shape[0], vec2._data.shape[0]))
    return apply(TABLE["addr"], (input, vec1, vec2), _attrs(beta, alpha),
                 dtype=F.promote(input, vec1, vec2))


def _check_batches(b1: Tensor, b2: Tensor) -> None:
    for name, b in (("batch1", b1), ("batch2", b2)):
        if b._data.ndim != 3:
            raise RuntimeError(f"{name} must be a 3D tensor")


def baddbmm(input: Tensor, batch1: Tensor, batch2: Tensor, *, beta: Any = 1,
            alpha: Any = 1) -> Tensor:
    _check_batches(batch1, batch2)
    s1, s2 = batch1._data.shape, batch2._data.shape
    _bias_fits(input, (s1[0], s1[1], s2[2]))
    if s2[:2] != (s1[0], s1[2]):
        raise RuntimeError(f"Expected size for first two dimensions of batch2 tensor to be: "
                           f"[{s1[0]}, {s1[2]}] but got: [{s2[0]}, {s2[1]}].")
    return apply(TABLE["baddbmm"], (input, batch1, batch2), _attrs(beta, alpha))


def addbmm(input: Tensor, batch1: Tensor, batch2: Tensor, *, beta: Any = 1,
           alpha: Any = 1) -> Tensor:
    _check_batches(batch1, batch2)
    s1, s2 = batch1._data.shape, batch2._data.shape
    _bias_fits(input, (s1[1], s2[2]))
    if s1[0] != s2[0]:
        raise RuntimeError(f"batch1 and batch2 must have same number of batches, got {s1[0]} "
                           f"and {s2[0]}")
    if s1[2] != s2[1]:
        raise RuntimeError(f"Incompatible matrix sizes for bmm ({s1[1]}x{s1[2]} and "
                           f"{s2[1]}x{s2[2]})")
    attrs = {**_attrs(beta, alpha), "batch1_sym_argsize_0": s1[0], "batch1_sym_argsize_1": s1[1],
             "batch2_sym_argsize_2": s2[2]}
    return apply(TABLE["addbmm"], (input, batch1, batch2), attrs)


def outer(a: Tensor, b: Tensor) -> Tensor:
    for name, v in (("self", a), ("vec2", b)):
        if v._data.ndim != 1:
            raise RuntimeError(f"outer: Expected 1-D argument {name}, but got {v._data.ndim}-D")
    return F.mul(F.reshape(a, (a._data.shape[0], 1)), b)


def inner(a: Tensor, b: Tensor) -> Tensor:
    raise NotImplementedError("inner")


def vdot(a: Tensor, b: Tensor) -> Tensor:
    return F.dot(a, b)


def chain_matmul(*matrices: Any) -> Tensor:
    raise NotImplementedError("chain_matmul")


def multi_dot(tensors: Sequence[Tensor]) -> Tensor:
    raise NotImplementedError("multi_dot")


def kron(a: Tensor, b: Tensor) -> Tensor:
    raise NotImplementedError("kron")


def matrix_power(t: Tensor, n: int) -> Tensor:
    raise NotImplementedError("matrix_power")


def _method(fn: Any) -> Any:
    def m(self: Tensor, *args: Any, **kw: Any) -> Any:
        return fn(self, *args, **kw)
    m.__name__ = fn.__name__
    return m


METHODS = {name: _method(globals()[name]) for name in (
    "addmv", "addr", "baddbmm", "addbmm", "outer", "inner", "vdot", "kron", "matrix_power")}
METHODS["ger"] = METHODS["outer"]
