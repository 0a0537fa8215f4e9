"""Table entries: ``torch.special``'s ndtri, log_ndtr, erfcx, entr, i0e, i1e, xlog1py (three
forms), zeta (three forms); ``round`` with ``decimals`` (RoundBackward1), ``frexp``, the
out-of-place ``torch.fill`` (FillBackward0 / FillBackward1), ``torch.rsub`` of two tensors
(RsubBackward0), ``as_strided_scatter``, ``index_reduce`` (through scatter_reduce's kernels,
its index spread along ``dim``)."""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from . import special_kernels as sk
from .ops_reduce_extra import _scatter_reduce_bw, _scatter_reduce_fwd
from .optable import Op, Save, no_double_backward, register

_SQRT2PI = math.sqrt(2 * math.pi)


def _ndtri_bw(c: Any, g: Any, D: Any) -> tuple[Any, ...]:
    # NB: grad * sqrt(2 pi) * exp(result ** 2 / 2)
    e = D.exp(D.div_scalar(D.pow(c.result, exponent=2), other=2))
    return (D.mul(D.mul_scalar(g, other=_SQRT2PI), e),)


def _log_ndtr_bw(c: Any, g: Any, D: Any) -> tuple[Any, ...]:
    # NB: grad / sqrt(2 pi) * exp(-(result + self ** 2 / 2))
    e = D.exp(D.neg(D.add(c.result, D.div_scalar(D.pow(c.self, exponent=2), other=2))))
    return (D.mul(D.div_scalar(g, other=_SQRT2PI), e),)


def _erfcx_bw(c: Any, g: Any, D: Any) -> tuple[Any, ...]:
    # NB: (2 * self * result - 2 / sqrt(pi)) * grad
    inner = D.mul(D.mul_scalar(c.self, other=2.0), c.result)
    return (D.mul(D.sub_scalar(inner, other=2.0 / math.sqrt(math.pi)), g),)


def _entr_bw(c: Any, g: Any, D: Any) -> tuple[Any, ...]:
    # NB: grad * -(1 + log(self))
    return (D.mul(g, D.neg(D.add_scalar(D.log(c.self), other=1))),)


def _i0e_bw(c: Any, g: Any, D: Any) -> tuple[Any, ...]:
    # NB: grad * (i1e(self) - sgn(self) * result)
    # NB: the right operand first, as PyTorch's compiled C++ evaluates it
    right = D.mul(D.sgn(c.self), c.result)
    return (D.mul(g, D.sub(D.special_i1e(c.self), right)),)


def _i1e_bw(c: Any, g: Any, D: Any) -> tuple[Any, ...]:
    # NB: PyTorch's i1e_backward: i0e(x) - result * (sgn(x) + 1 / x) away from 0, where it is
    # 0.5; x is replaced by eps where tiny (|x| <= eps) so nothing divides by 0
    x = c.self
    eps = float(np.finfo(c.dtype(0).np).eps)
    zeros = D.zeros_like(x)
    tiny = D.gt(D.abs(x), D.add_scalar(zeros, other=eps))
    safe = D.where(x, D.add_scalar(zeros, other=eps), condition=tiny)
    # NB: right operands first, as PyTorch's compiled C++ evaluates them
    rec = D.reciprocal(safe)
    right = D.mul(c.result, D.add(D.sgn(safe), rec))
    gradx = D.sub(D.special_i0e(safe), right)
    return (D.mul(g, D.where(gradx, D.add_scalar(zeros, other=0.5), condition=tiny)),)


def _xlog1py(x: Any, y: Any) -> Any:
    dtype = np.result_type(x, y)
    if dtype.kind != "f":
        dtype = np.dtype(np.float32)
    x, y = np.asarray(x, dtype), np.asarray(y, dtype)
    with np.errstate(all="ignore"):
        out = x * np.log1p(y)
        out = np.where(x == 0, np.zeros((), dtype), out)
        return np.where(np.isnan(y), y, out)


def _xlog1py_bw(c: Any, g: Any, D: Any) -> tuple[Any, ...]:
    # NB: other's gradient first, a quotient's divisor first, as PyTorch computes them
    gs = go = None
    if c.needs[1]:
        den = D.add_scalar(c.other, other=1)
        go = D.div(D.mul(g, c.self), den)
    if c.needs[0]:
        # NB: xlog1py(grad, other), zeroed where self == 0 and other <= -1
        mask = D.logical_and(D.eq(c.self, 0), D.le(c.other, -1))
        gs = D.masked_fill(D.special_xlog1py(g, c.other), mask=mask, value=0.0)
    return gs, go


def _xlog1py_scalar_bw(c: Any, g: Any, D: Any) -> tuple[Any, ...]:
    # NB: zeroed where self == 0 only when other <= -1 (PyTorch makes the masked_fill only
    # then)
    other = c.attrs["other"]
    out = D.special_xlog1py_scalar(g, other=other)
    if other <= -1:
        out = D.masked_fill(out, mask=D.eq(c.self, 0), value=0.0)
    return (out,)


def _xlog1py_of_scalar_bw(c: Any, g: Any, D: Any) -> tuple[Any, ...]:
    den = D.add_scalar(c.other, other=1)
    return (D.div(D.mul_scalar(g, other=c.attrs["self"]), den),)


def _zeta_no_self(c: Any) -> None:
    raise NotImplementedError("the derivative for 'zeta' is not implemented.")


def _zeta_bw(c: Any, g: Any, D: Any) -> tuple[Any, ...]:
    if c.needs[0]:
        _zeta_no_self(c)
    # NB: grad * -self * zeta(self + 1, other)
    z = D.special_zeta(D.add_scalar(c.self, other=1.0), c.other)
    return None, D.mul(D.mul(g, D.neg(c.self)), z)


def _zeta_of_scalar_bw(c: Any, g: Any, D: Any) -> tuple[Any, ...]:
    s = c.attrs["self"]
    z = D.special_zeta_of_scalar(c.other, self=s + 1.0)
    return (D.mul(D.mul_scalar(g, other=-s), z),)


def _zeta_scalar_bw(c: Any, g: Any, D: Any) -> tuple[Any, ...]:
    _zeta_no_self(c)
    return (None,)


def _round_decimals(x: Any, decimals: int = 0) -> Any:
    # NB: PyTorch scales by 10 ** |decimals| in the value's type, rounds half to even, unscales
    if decimals >= 0:
        ten = np.asarray(10.0 ** decimals, x.dtype)
        return np.round(x * ten) / ten
    ten = np.asarray(10.0 ** -decimals, x.dtype)
    return np.round(x / ten) * ten


def _frexp_fwd(x: Any) -> Any:
    mantissa, exponent = np.frexp(x)
    return mantissa, {"exponent": exponent.astype(np.int32)}


def _frexp_bw(c: Any, g: Any, D: Any) -> tuple[Any, ...]:
    # NB: grad / exp2(exponent); the exponent is an int32 tensor outside the graph
    e = c.exponent
    if D.tensor_mode:
        return (D.div(g, D.nondiff(np.exp2(e._data).astype(g._data.dtype))),)
    return (D.div(g, np.exp2(e).astype(g.dtype)),)


def _rsub_fwd(x: Any, y: Any, alpha: Any = 1) -> Any:
    return y - alpha * x if alpha != 1 else y - x


def _rsub_bw(c: Any, g: Any, D: Any) -> tuple[Any, ...]:
    alpha = c.attrs["alpha"]
    gs = None
    if c.needs[0]:
        gs = D.neg(g)
        if alpha != 1:
            gs = D.mul_scalar(gs, other=alpha)
    return gs, (g if c.needs[1] else None)


def _strided(flat: Any, size: Any, stride: Any, offset: Any) -> Any:
    """The elements of a C-ordered buffer ``flat`` at ``size``/``stride`` (in elements) from
    ``offset``: a writable numpy view."""
    item = flat.itemsize
    return np.lib.stride_tricks.as_strided(flat[offset or 0:], tuple(size),
                                           tuple(s * item for s in stride))


def _as_strided_scatter_fwd(x: Any, src: Any, size: Any, stride: Any,
                            storage_offset: Any = None) -> Any:
    flat = np.array(x, copy=True, order="C").reshape(-1)
    _strided(flat, size, stride, storage_offset)[...] = src
    return flat.reshape(x.shape)


def _as_strided_scatter_bw(c: Any, g: Any, D: Any) -> tuple[Any, ...]:
    if D.tensor_mode:
        raise no_double_backward("AsStridedScatterBackward0")
    size, stride, offset = c.attrs["size"], c.attrs["stride"], c.attrs.get("storage_offset")
    flat = np.array(g, copy=True, order="C").reshape(-1)
    region = np.array(_strided(flat, size, stride, offset), copy=True)
    gself = None
    if c.needs[0]:
        # NB: as PyTorch 2.13 computes it: the gradient kept where src was written, zero
        # elsewhere (not the derivative, which is the reverse)
        out = np.zeros_like(flat)
        _strided(out, size, stride, offset)[...] = region
        gself = out.reshape(np.shape(g))
    return gself, (region if c.needs[1] else None)


def _spread(index: Any, dim: int, like: Any) -> Any:
    """The 1-d index of ``index_reduce`` as scatter_reduce's: one entry per source element."""
    shape = [1] * max(np.ndim(like), 1)
    shape[dim] = -1
    return np.broadcast_to(np.reshape(index, shape), np.shape(like) or (1,))


def _index_reduce_fwd(x: Any, source: Any, dim: int, index: Any, reduce: str,
                      include_self: bool = True) -> Any:
    return _scatter_reduce_fwd(x, source, dim, _spread(index, dim, source), reduce, include_self)


class _AsScatter:
    """An index_reduce node's context, as scatter_reduce's backward reads one."""

    def __init__(self, c: Any) -> None:
        self.c = c
        self.attrs = c.attrs
        self.needs = c.needs
        self.self, self.src, self.result = c.self, c.source, c.result
        self.index = _spread(c.index, c.attrs["dim"], self.src)

    def shape(self, i: int = 0) -> Any:
        return self.c.shape(i)


def _index_reduce_bw(c: Any, g: Any, D: Any) -> tuple[Any, ...]:
    if D.tensor_mode:
        raise no_double_backward("IndexReduceBackward0")
    return _scatter_reduce_bw(_AsScatter(c), g, D)


def _unary(key: str, name: str, fwd: Any, bw: Any, saves: tuple[str, ...]) -> Op:
    return Op(key, name, ("self",), sk.in_dtype(fwd), bw, tuple(Save(s) for s in saves))


register(
    _unary("special_ndtri", "SpecialNdtriBackward0", sk.ndtri, _ndtri_bw, ("result",)),
    _unary("special_log_ndtr", "SpecialLogNdtrBackward0", sk.log_ndtr, _log_ndtr_bw,
           ("result", "self")),
    _unary("special_erfcx", "SpecialErfcxBackward0", sk.erfcx, _erfcx_bw, ("result", "self")),
    _unary("special_entr", "SpecialEntrBackward0", sk.entr, _entr_bw, ("self",)),
    _unary("special_i0e", "SpecialI0EBackward0", sk.i0e, _i0e_bw, ("result", "self")),
    _unary("special_i1e", "SpecialI1EBackward0", sk.i1e, _i1e_bw, ("result", "self")),
    Op("special_xlog1py", "SpecialXlog1PyBackward0", ("self", "other"), _xlog1py, _xlog1py_bw,
       (Save("other"), Save("self"))),
    Op("special_xlog1py_scalar", "SpecialXlog1PyBackward2", ("self",),
       lambda x, other: _xlog1py(x, other), _xlog1py_scalar_bw, (Save("self"),), ("other",)),
    Op("special_xlog1py_of_scalar", "SpecialXlog1PyBackward1", ("other",),
       lambda y, self: _xlog1py(self, y), _xlog1py_of_scalar_bw, (Save("other"),), ("self",)),
    # NB: no derivative for self (the order): its node raises when self needs one
    Op("special_zeta", "SpecialZetaBackward0", ("self", "other"), sk.in_dtype(sk.zeta),
       _zeta_bw, (Save("other", (1,)), Save("self", (1,)))),
    Op("special_zeta_of_scalar", "SpecialZetaBackward1", ("other",),
       lambda q, self: sk.in_dtype(sk.zeta)(np.asarray(self, q.dtype), q), _zeta_of_scalar_bw,
       (Save("other"),), ("self",)),
    Op("special_zeta_scalar", "SpecialZetaBackward2", ("self",),
       lambda x, other: sk.in_dtype(sk.zeta)(x, np.asarray(other, x.dtype)), _zeta_scalar_bw),
    Op("frexp", "FrexpBackward0", ("self",), _frexp_fwd, _frexp_bw, (Save("exponent"),),
       extras=("exponent",)),
    Op("fill_out", "FillBackward0", ("self",), lambda x, value: np.full_like(x, value),
       lambda c, g, D: (D.zeros_like(g),)),
    Op("fill_out_tensor", "FillBackward1", ("self", "value"), lambda x, v: np.full_like(x, v),
       lambda c, g, D: (D.zeros_like(g) if c.needs[0] else None,
                        D.sum(g) if c.needs[1] else None)),
    Op("rsub_tensor", "RsubBackward0", ("self", "other"), _rsub_fwd, _rsub_bw, (), ("alpha",)),
    Op("as_strided_scatter", "AsStridedScatterBackward0", ("self", "src"),
       _as_strided_scatter_fwd, _as_strided_scatter_bw, (), ("size", "storage_offset", "stride")),
    Op("index_reduce", "IndexReduceBackward0", ("self", "source"), _index_reduce_fwd,
       _index_reduce_bw, (Save("index"), Save("result"), Save("self"), Save("source")),
       ("dim", "include_self", "reduce")),
    Op("round_decimals", "RoundBackward1", ("self",), _round_decimals,
       lambda c, g, D: (D.zeros_like(g),)),
)
