"""``torch.special``'s remaining functions: ndtr (decomposed as PyTorch decomposes it), ndtri,
log_ndtr, erfcx, entr, i0e, i1e, xlog1py, zeta and round (through the table,
``ops_special_more``), and those PyTorch gives no derivative and no node (the Bessel functions,
the orthogonal polynomials); ``round`` with ``decimals`` as a Tensor method."""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from . import dtypes as dt
from . import functional as F
from . import messages as msg
from . import special_kernels as sk
from .autograd import apply, apply_inplace
from .optable import TABLE
from .tensor import Tensor

__all__ = ["ndtr", "ndtri", "log_ndtr", "erfcx", "entr", "i0e", "i1e", "xlog1py", "zeta",
           "round", "NO_GRAD", "POLYNOMIALS", "METHODS"]


def _tensor(name: str, x: Any) -> Tensor:
    if not isinstance(x, Tensor):
        raise TypeError(f"special_{name}(): argument 'input' (position 1) must be Tensor, not "
                        f"{type(x).__name__}")
    return x


def _no_half(kernel: str, dtype: dt.DType) -> None:
    """PyTorch's CPU kernels of these functions have no float16 / bfloat16 form."""
    if dtype.is_floating_point and dtype.np.itemsize == 2:
        name = msg.SCALAR_NAME.get(dtype.name, dtype.name)
        raise NotImplementedError(f'"{kernel}_cpu" not implemented for \'{name}\'')


_HALF_OK = ("special_entr", "special_i0e", "special_i1e")


def _unary(key: str) -> Any:
    def f(input: Tensor) -> Tensor:
        x = _tensor(key[8:], input)
        if key not in _HALF_OK:
            _no_half(key[8:], x._dtype)
        return F._quiet(F.unary)(key, x)
    f.__name__ = key[8:]
    return f


ndtri = _unary("special_ndtri")
log_ndtr = _unary("special_log_ndtr")
erfcx = _unary("special_erfcx")
entr = _unary("special_entr")
i0e = _unary("special_i0e")
i1e = _unary("special_i1e")


def ndtr(input: Tensor) -> Tensor:
    """The standard normal CDF: ``(1 + erf(x / sqrt(2))) * 0.5``, node for node as PyTorch
    (MulBackward1, AddBackward1, ErfBackward0, MulBackward1)."""
    x = _tensor("ndtr", input)
    if not x._dtype.is_floating_point:
        x = x.to(dt.float32)
    return _scalar("mul_scalar", _scalar("add_scalar",
                                         _scalar("mul_scalar", x, math.sqrt(0.5)).erf(), 1), 0.5)


def _scalar(key: str, t: Tensor, v: Any) -> Tensor:
    """``t * v`` / ``t + v`` as ATen's scalar overloads (MulBackward1, AddBackward1)."""
    return apply(TABLE[key], (t,), {"other": v}, dtype=t._dtype)


def _floating(a: Tensor, b: Tensor) -> dt.DType:
    return F._float(F.promote(a, b))


def xlog1py(input: Any, other: Any) -> Tensor:
    """``input * log1p(other)``, 0 where input is 0: a number on either side has no slot
    (``SpecialXlog1PyBackward1`` / ``SpecialXlog1PyBackward2``)."""
    if not isinstance(input, Tensor):
        t = F.as_tensor_arg(other)
        dtype = _floating(F.scalar_tensor(input), t)
        return F._quiet(apply)(TABLE["special_xlog1py_of_scalar"], (t,), {"self": input},
                               dtype=dtype)
    if not isinstance(other, Tensor):
        dtype = _floating(input, F.scalar_tensor(other))
        return F._quiet(apply)(TABLE["special_xlog1py_scalar"], (input,), {"other": other},
                               dtype=dtype)
    F._check_broadcast(input, other)
    return F._quiet(apply)(TABLE["special_xlog1py"], (input, other),
                           dtype=_floating(input, other))


def zeta(input: Any, other: Any) -> Tensor:
    """The Hurwitz zeta function; its order (``input``) has no derivative."""
    if not isinstance(input, Tensor):
        t = F.as_tensor_arg(other)
        dtype = _floating(F.scalar_tensor(input), t)
        _no_half("zeta", dtype)
        return F._quiet(apply)(TABLE["special_zeta_of_scalar"], (t,), {"self": float(input)},
                               (t._data.astype(dtype.np),), dtype=dtype)
    if not isinstance(other, Tensor):
        dtype = _floating(input, F.scalar_tensor(other))
        _no_half("zeta", dtype)
        return F._quiet(apply)(TABLE["special_zeta_scalar"], (input,), {"other": float(other)},
                               (input._data.astype(dtype.np),), dtype=dtype)
    F._check_broadcast(input, other)
    dtype = _floating(input, other)
    _no_half("zeta", dtype)
    return F._quiet(apply)(TABLE["special_zeta"], (input, other), None,
                           (input._data.astype(dtype.np), other._data.astype(dtype.np)), dtype)


def _round_check(self: Tensor, decimals: int) -> None:
    # NB: PyTorch's kernel at 0 decimals is round_vml_cpu, round_cpu otherwise
    if not self._dtype.is_floating_point:
        name = msg.SCALAR_NAME.get(self._dtype.name, self._dtype.name)
        kernel = "round_vml_cpu" if decimals == 0 else "round_cpu"
        raise NotImplementedError(f'"{kernel}" not implemented for \'{name}\'')


def round(input: Tensor, *, decimals: int = 0) -> Tensor:
    """``torch.special.round``: ``round`` with ``decimals`` (RoundBackward1, even at 0)."""
    _round_check(input, decimals)
    return apply(TABLE["round_decimals"], (input,), {"decimals": decimals}, dtype=input._dtype)


def _round_method(self: Tensor, *, decimals: int | None = None) -> Tensor:
    if decimals is None:
        if self._dtype is dt.bool_:
            raise NotImplementedError('"round_vml_cpu" not implemented for \'Bool\'')
        return F.unary("round", self, floating=False)
    return round(self, decimals=decimals)


def _round_method_(self: Tensor, *, decimals: int | None = None) -> Tensor:
    if decimals is None:
        return F.unary_("round", self)
    _round_check(self, decimals)
    return apply_inplace(TABLE["round_decimals"], self, (), {"decimals": decimals})


def _no_grad(name: str, fn: Any) -> Any:
    """A function PyTorch gives no derivative: its result is outside the graph."""
    def f(input: Tensor) -> Tensor:
        x = _tensor(name, input)
        _no_half(name, x._dtype)
        dtype = x._dtype if x._dtype.is_floating_point else dt.float32
        return Tensor._make(np.asarray(sk.in_dtype(fn)(x._data)).astype(dtype.np), dtype)
    f.__name__ = name
    return f


NO_GRAD = {
    "bessel_j0": _no_grad("bessel_j0", lambda x: sk.bessel_j(0, x)),
    "bessel_j1": _no_grad("bessel_j1", lambda x: sk.bessel_j(1, x)),
    "bessel_y0": _no_grad("bessel_y0", lambda x: sk.bessel_y(0, x)),
    "bessel_y1": _no_grad("bessel_y1", lambda x: sk.bessel_y(1, x)),
    "modified_bessel_i0": _no_grad("modified_bessel_i0",
                                   lambda x: sk.i0e(x) * np.exp(np.abs(x))),
    "modified_bessel_i1": _no_grad("modified_bessel_i1",
                                   lambda x: sk.i1e(x) * np.exp(np.abs(x))),
    "modified_bessel_k0": _no_grad("modified_bessel_k0", lambda x: sk.bessel_k(0, x, False)),
    "modified_bessel_k1": _no_grad("modified_bessel_k1", lambda x: sk.bessel_k(1, x, False)),
    "scaled_modified_bessel_k0": _no_grad("scaled_modified_bessel_k0",
                                          lambda x: sk.bessel_k(0, x, True)),
    "scaled_modified_bessel_k1": _no_grad("scaled_modified_bessel_k1",
                                          lambda x: sk.bessel_k(1, x, True)),
    "spherical_bessel_j0": _no_grad("spherical_bessel_j0", sk.spherical_bessel_j0),
    "airy_ai": _no_grad("airy_ai", sk.airy_ai),
}


def _polynomial(name: str) -> Any:
    def f(input: Any, n: Any) -> Tensor:
        if not isinstance(input, Tensor) and not isinstance(n, Tensor):
            raise TypeError(f"special_{name}() received an invalid combination of arguments - "
                            f"got ({type(input).__name__}, {type(n).__name__}), but expected "
                            "one of:\n * (Tensor x, Tensor n, *, Tensor out = None)\n"
                            " * (Number x, Tensor n, *, Tensor out = None)\n"
                            " * (Tensor x, Number n, *, Tensor out = None)\n")
        tx, tn = F.as_tensor_arg(input), F.as_tensor_arg(n)
        F._check_broadcast(tx, tn)
        dtype = _floating(tx, tn)
        _no_half(name, dtype)
        out = sk.polynomial(name, tx._data, tn._data, dtype.np)
        return Tensor._make(np.asarray(out), dtype)
    f.__name__ = name
    return f


POLYNOMIALS = {name: _polynomial(name) for name in (
    "chebyshev_polynomial_t", "chebyshev_polynomial_u", "chebyshev_polynomial_v",
    "chebyshev_polynomial_w", "shifted_chebyshev_polynomial_t",
    "shifted_chebyshev_polynomial_u", "shifted_chebyshev_polynomial_v",
    "shifted_chebyshev_polynomial_w", "hermite_polynomial_h", "hermite_polynomial_he",
    "laguerre_polynomial_l", "legendre_polynomial_p")}

METHODS: dict[str, Any] = {"round": _round_method, "round_": _round_method_}
