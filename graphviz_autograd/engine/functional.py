"""The user-facing ops: argument handling, type promotion and decomposition onto the table,
the way PyTorch's dispatcher and its composite ops decompose them."""

from __future__ import annotations

import operator
from collections.abc import Sequence
from typing import Any

import numpy as np

from . import dtypes as dt
from . import messages as msg
from .autocast import lower as _amp_lower
from .autocast import promote as _amp_promote
from .autocast import state as _amp
from .autograd import apply, apply_inplace, check_inplace, wrap
from .grad_mode import state as grad_state
from .ops_shape import view_array
from .optable import NP, TABLE, TT, keep_strides, strides_key
from .tensor import Tensor

_T = TABLE
Scalar = int | float | bool


def _quiet(fn: Any) -> Any:
    def quiet(*args: Any, **kw: Any) -> Any:
        with np.errstate(all="ignore"):
            return fn(*args, **kw)
    return quiet


def scalar_tensor(v: Any) -> Tensor:
    """A Python number wrapped as PyTorch wraps it (0-dim, lowest promotion priority)."""
    d = dt.scalar_dtype(v)
    t = Tensor._make(np.array(v, dtype=d.np), d)
    t._wrapped = True
    return t


def as_tensor_arg(v: Any) -> Tensor:
    if isinstance(v, Tensor):
        return v
    if isinstance(v, bool | int | float):
        return scalar_tensor(v)
    if isinstance(v, np.ndarray | np.generic):
        arr = np.asarray(v)
        return Tensor._make(arr, dt.from_numpy(arr.dtype))
    raise TypeError(f"unsupported operand type: '{type(v).__name__}'")


def promote(*ts: Tensor) -> dt.DType:
    first = ts[0]._dtype
    for t in ts:
        if t._dtype is not first:
            break
    else:
        return first
    dims = [t._dtype for t in ts if t._data.ndim and not t._wrapped]
    zero = [t._dtype for t in ts if not t._data.ndim and not t._wrapped]
    scal = [t._dtype for t in ts if t._wrapped]
    return dt.result_type(dims, zero, scal)


def _float(d: dt.DType) -> dt.DType:
    return d if d.is_floating_point else dt.float32


def _value(t: Tensor) -> Any:
    """What numpy computes with: wrapped numbers as Python scalars (so they don't upcast)."""
    return t._data.item() if t._wrapped else t._data


def _check_broadcast(a: Tensor, b: Tensor) -> None:
    sa, sb = a._data.shape, b._data.shape
    if sa == sb:
        return
    text = msg.size_mismatch(sa, sb)
    if text is not None:
        raise RuntimeError(text)


def _broadcast_all(*shapes: tuple[int, ...]) -> tuple[int, ...]:
    """The shapes broadcast together in order, as PyTorch folds them (its error names the
    first pair that does not match: the shape so far, then the next one)."""
    out = shapes[0]
    for s in shapes[1:]:
        text = msg.size_mismatch(out, s)
        if text is not None:
            raise RuntimeError(text)
        out = np.broadcast_shapes(out, s)
    return out


def _check_output(shape: tuple[int, ...], full: tuple[int, ...]) -> None:
    """An in-place op writes into ``shape``: the broadcast result must fit it."""
    if full != shape:
        raise RuntimeError(f"output with shape [{', '.join(map(str, shape))}] "
                           f"doesn't match the broadcast shape [{', '.join(map(str, full))}]")


def binary(key: str, a: Any, b: Any, kw: dict[str, Any] | None = None,
           floating: bool = False, alpha: Any = 1) -> Tensor:
    """A broadcasting binary op with PyTorch's type promotion; ``alpha`` scales ``b`` (add/sub)."""
    op = _T[key]
    if alpha != 1:
        kw = {"alpha": alpha}
    if isinstance(b, Tensor) and isinstance(a, Tensor) and not (a._wrapped or b._wrapped):
        # the common case: two tensors
        dtype = a._dtype if a._dtype is b._dtype else promote(a, b)
        if floating and not dtype.is_floating_point:
            dtype = dt.float32
        db = b._data if alpha == 1 else _scaled(b, b._data, alpha)
        try:
            return apply(op, (a, b), kw, (a._data, db), dtype)
        except ValueError:
            _check_broadcast(a, b)
            raise
    ta = a if isinstance(a, Tensor) else as_tensor_arg(a)
    if isinstance(b, bool | int | float) and not (grad_state.enabled and ta.requires_grad):
        # NB: a Python number outside the graph needs no wrapper tensor, only its dtype
        dtype = promote(ta, scalar_tensor(b)) if not ta._dtype.is_floating_point or \
            isinstance(b, bool) else ta._dtype
        if floating and not dtype.is_floating_point:
            dtype = dt.float32
        return apply(op, (ta, None), kw, (ta._data, b * alpha), dtype)
    tb = as_tensor_arg(b)
    _check_broadcast(ta, tb)
    dtype = promote(ta, tb)
    if floating and not dtype.is_floating_point:
        dtype = dt.float32
    vb = _value(tb)
    return apply(op, (ta, tb), kw, (_value(ta), vb if alpha == 1 else _scaled(tb, vb, alpha)),
                 dtype)


def binary_(key: str, self: Tensor, other: Any, alpha: Any = 1) -> Tensor:
    to = other if isinstance(other, Tensor) else as_tensor_arg(other)
    result = self._dtype if to._dtype is self._dtype else promote(self, to)
    if key == "div" and not result.is_floating_point:
        result = dt.float32
    if (result.is_floating_point and not self._dtype.is_floating_point) or (
            self._dtype is dt.bool_ and result is not dt.bool_):
        check_inplace(self, (to,))      # NB: PyTorch's autograd checks come first
        raise RuntimeError(f"result type {msg.SCALAR_NAME.get(result.name, result.name)} can't "
                           f"be cast to the desired output type "
                           f"{msg.SCALAR_NAME.get(self._dtype.name, self._dtype.name)}")
    if to._data.shape != self._data.shape:
        check_inplace(self, (to,))
        _check_output(self._data.shape, _broadcast_all(self._data.shape, to._data.shape))
    vb = _value(to)
    return apply_inplace(_T[key], self, (to,), {"alpha": alpha} if alpha != 1 else None,
                         arrays=(self._data, vb if alpha == 1 else _scaled(to, vb, alpha)))


def _scaled(t: Tensor, v: Any, alpha: Any) -> Any:
    """``alpha * other`` of add/sub; for bfloat16 and float16 as PyTorch's vectorized kernel:
    alpha rounded to that dtype, the product in float32 (the sum then rounds once)."""
    if (t._dtype is not dt.bfloat16 and t._dtype is not dt.float16) or isinstance(alpha,
                                                                                 bool | int):
        return v * alpha
    low = np.float32(np.float32(alpha).astype(t._dtype.np))
    return np.asarray(v).astype(np.float32) * low


# -- arithmetic ----------------------------------------------------------------------------------
def add(a: Any, b: Any, alpha: Scalar = 1) -> Tensor:
    if not isinstance(a, Tensor):
        return radd(b, a, alpha)
    return binary("add", a, b, alpha=alpha)


def radd(t: Tensor, v: Any, alpha: Scalar = 1) -> Tensor:
    # NB: `2 + t` runs t.__radd__(2), which PyTorch computes as t + 2: slots (t, None)
    return binary("add", t, v, alpha=alpha)


def sub(a: Any, b: Any, alpha: Scalar = 1) -> Tensor:
    no_bool_sub(a, b)
    return binary("sub", a, b, alpha=alpha)


def no_bool_sub(a: Any, b: Any) -> None:
    """PyTorch refuses ``-`` between two booleans (tensors or numbers)."""
    if (a is True or a is False or (isinstance(a, Tensor) and a._dtype is dt.bool_)) and \
            (b is True or b is False or (isinstance(b, Tensor) and b._dtype is dt.bool_)):
        raise RuntimeError("Subtraction, the `-` operator, with two bool tensors is not "
                           "supported. Use the `^` or `logical_xor()` operator instead.")


def rsub(t: Tensor, v: Any) -> Tensor:
    if isinstance(v, Tensor):
        return sub(v, t)
    no_bool_sub(v, t)
    dtype = promote(t, scalar_tensor(v))
    return apply(_T["rsub"], (t,), {"other": v, "alpha": 1}, dtype=dtype)


def mul(a: Any, b: Any) -> Tensor:
    return binary("mul", a, b)


def div(a: Any, b: Any, rounding_mode: str | None = None) -> Tensor:
    if rounding_mode is not None:
        _check_rounding_mode(rounding_mode)
        ta, tb = as_tensor_arg(a), as_tensor_arg(b)
        dtype = _division(ta, tb)
        # NB: a number divisor is saved wrapped (PyTorch's DivBackward2 shows tensor(2.))
        return apply(_T["div_mode"], (ta, tb), {"rounding_mode": rounding_mode},
                     (_value(ta), _value(tb)), dtype)
    return _quiet(binary)("div", a, b, floating=True)


def _check_rounding_mode(rounding_mode: Any) -> None:
    if rounding_mode not in ("floor", "trunc"):
        raise RuntimeError(f"div expected rounding_mode to be one of None, 'trunc', or 'floor' "
                           f"but found '{rounding_mode}'")


def _division(a: Tensor, b: Tensor) -> dt.DType:
    """The dtype of ``a`` divided (or reduced modulo) by ``b``, once the shapes broadcast and
    an integer divisor has no zero."""
    dtype = promote(a, b)
    _check_broadcast(a, b)
    _integer_divisor(dtype, b)
    return dtype


def _integer_divisor(dtype: dt.DType, divisor: Tensor) -> None:
    """Integer division or remainder by zero: PyTorch's error (a float gives inf or nan)."""
    if not dtype.is_floating_point and np.any(divisor._data == 0):
        raise RuntimeError("ZeroDivisionError")


def remainder(a: Any, b: Any) -> Tensor:
    """``a % b``: the sign of the divisor, as Python's (``torch.remainder``)."""
    return _rounding("remainder", a, b)


def fmod(a: Any, b: Any) -> Tensor:
    """``torch.fmod``: the sign of the dividend, as C's."""
    return _rounding("fmod", a, b)


def floor_divide(a: Any, b: Any) -> Tensor:
    """``a // b``: PyTorch has no derivative for it (a node that raises when a backward
    reaches it)."""
    return _no_derivative("floor_divide", a, b)


def _rounding(key: str, a: Any, b: Any) -> Tensor:
    if not isinstance(a, Tensor):
        return _no_derivative("remainder_of_scalar", a, b)    # NB: ``2.0 % t``
    tb = as_tensor_arg(b)
    dtype = _division(a, tb)
    if isinstance(b, bool | int | float):
        return apply(_T[f"{key}_scalar"], (a,), {"other": b}, dtype=dtype)
    return apply(_T[key], (a, tb), dtype=dtype)


def _no_derivative(key: str, a: Any, b: Any) -> Tensor:
    ta, tb = as_tensor_arg(a), as_tensor_arg(b)
    dtype = _division(ta, tb)
    # NB: PyTorch's NotImplemented node has an edge for each input that requires grad only
    graph = [t for t in (ta, tb) if t._rg or t._grad_fn is not None]
    return apply(_T[key], graph, arrays=(_value(ta), _value(tb)), dtype=dtype)


def rounding_(key: str, self: Tensor, other: Any, rounding_mode: str | None = None) -> Tensor:
    """``remainder_``/``%=``, ``fmod_``, ``floor_divide_``/``//=`` and ``div_`` with a
    rounding mode: in place."""
    to = as_tensor_arg(other)
    check_inplace(self, (to,))
    if key == "div_mode":
        _check_rounding_mode(rounding_mode)
    _integer_divisor(promote(self, to), to)
    if key == "div_mode":
        return apply_inplace(_T[key], self, (to,), {"rounding_mode": rounding_mode},
                             arrays=(self._data, _value(to)))
    if to._data.shape != self._data.shape:
        _check_output(self._data.shape, _broadcast_all(self._data.shape, to._data.shape))
    if key == "floor_divide":
        graph = [to] if to._rg or to._grad_fn is not None else []
        return apply_inplace(_T["floor_divide_"], self, graph, arrays=(self._data, _value(to)))
    if isinstance(other, bool | int | float):
        return apply_inplace(_T[f"{key}_scalar"], self, (), {"other": other},
                             arrays=(self._data,))
    return apply_inplace(_T[key], self, (to,), arrays=(self._data, _value(to)))


_BITWISE = {"and": np.bitwise_and, "or": np.bitwise_or, "xor": np.bitwise_xor,
            "lshift": np.left_shift, "rshift": np.right_shift}


def bitwise(name: str, a: Any, b: Any) -> Tensor:
    """``&``, ``|``, ``^``, ``<<``, ``>>`` of integer or bool tensors (logical for bools)."""
    ta, tb = as_tensor_arg(a), as_tensor_arg(b)
    dtype = promote(ta, tb)
    if dtype.is_floating_point:
        kernel = name if "shift" in name else f"bitwise_{name}"
        raise NotImplementedError(f'"{kernel}_cpu" not implemented for '
                                  f"'{msg.SCALAR_NAME.get(dtype.name, dtype.name)}'")
    _check_broadcast(ta, tb)
    return Tensor._make(np.asarray(_BITWISE[name](ta._data.astype(dtype.np),
                                                   tb._data.astype(dtype.np))), dtype)


def invert(t: Tensor) -> Tensor:
    if t._dtype.is_floating_point:
        raise TypeError("~ (operator.invert) is only implemented on integer and Boolean-type "
                        "tensors")
    return Tensor._make(np.invert(t._data), t._dtype)


def argwhere(t: Tensor) -> Tensor:
    """The indices of the nonzero elements, one row each."""
    return Tensor._make(np.argwhere(t._data).astype(np.int64), dt.int64)


def nonzero(t: Tensor, *, as_tuple: bool = False) -> Any:
    """``argwhere``, or with ``as_tuple`` one index tensor per dim (a 0-d tensor counts as one
    element, as in PyTorch)."""
    if not as_tuple:
        return argwhere(t)
    return tuple(Tensor._make(ix.astype(np.int64), dt.int64)
                 for ix in np.nonzero(np.atleast_1d(t._data)))


def isclose(a: Tensor, b: Tensor, rtol: float = 1e-05, atol: float = 1e-08,
            equal_nan: bool = False) -> Tensor:
    return Tensor._make(np.asarray(np.isclose(a._data, b._data, rtol, atol, equal_nan)), dt.bool_)


def xlogy(a: Any, b: Any) -> Tensor:
    """``torch.xlogy`` of two tensors: XlogyBackward0 (0 where ``a`` is 0)."""
    ta, tb = as_tensor_arg(a), as_tensor_arg(b)
    _check_broadcast(ta, tb)
    return apply(_T["xlogy"], (ta, tb), dtype=_float(promote(ta, tb)))


def rdiv(t: Tensor, v: Any) -> Tensor:
    # NB: `2 / t` is reciprocal(t) * 2 in PyTorch: MulBackward0 over ReciprocalBackward0
    return mul(unary("reciprocal", t), v)


def neg(t: Tensor) -> Tensor:
    no_bool(t, "neg")
    return apply(_T["neg"], (t,))


def no_bool(t: Tensor, key: str) -> None:
    """PyTorch refuses negation and relu of a bool tensor."""
    if t._dtype is dt.bool_:
        if key == "neg":
            raise RuntimeError("Negation, the `-` operator, on a bool tensor is not supported. If "
                               "you are trying to invert a mask, use the `~` or `logical_not()` "
                               "operator instead.")
        raise RuntimeError(f"Boolean inputs not supported for {key}")


def pow(t: Any, e: Any) -> Tensor:
    if not isinstance(t, Tensor):
        base = as_tensor_arg(t)
        et = as_tensor_arg(e)
        dtype = promote(base, et)
        return _quiet(apply)(_T["rpow"], (et,), {"self": t}, dtype=dtype)
    if isinstance(e, Tensor):
        dtype = promote(t, e)
        return _quiet(apply)(_T["pow_tensor"], (t, e), arrays=(t._data, _value(e)), dtype=dtype)
    dtype = t._dtype if t._dtype.is_floating_point else promote(t, scalar_tensor(e))
    if isinstance(e, int) and e < 0 and dtype.np.kind in "iu":
        raise RuntimeError("Integers to negative integer powers are not allowed.")
    if isinstance(e, int) and e >= 0:
        return apply(_T["pow"], (t,), {"exponent": e}, dtype=dtype)
    return _quiet(apply)(_T["pow"], (t,), {"exponent": e}, dtype=dtype)


# NB: forwards numpy may warn about (inf/nan): run them quietly
_NOISY = frozenset({"log", "log1p", "log2", "sqrt", "rsqrt", "reciprocal", "exp", "expm1",
                    "tan", "log10", "exp2", "sinh", "cosh", "asin", "acos", "acosh", "atanh",
                    "sin", "cos"})


def unary(key: str, t: Tensor, floating: bool = True, **kw: Any) -> Tensor:
    if not isinstance(t, Tensor):
        raise TypeError(f"{key}(): argument 'input' (position 1) must be Tensor, not "
                        f"{type(t).__name__}")
    if not floating or t._dtype.is_floating_point:
        dtype, arr = t._dtype, t._data
    else:
        # NB: an integer or bool tensor: computed in float32, as PyTorch does
        dtype, arr = dt.float32, t._data.astype(np.float32)
    if key in _NOISY:
        return _quiet(apply)(_T[key], (t,), kw or None, (arr,), dtype)
    return apply(_T[key], (t,), kw or None, (arr,), dtype)


def unary_(key: str, t: Tensor, **kw: Any) -> Tensor:
    return _quiet(apply_inplace)(_T[key], t, (), kw or None)


def compare(fn: Any, a: Any, b: Any) -> Tensor:
    ta, tb = as_tensor_arg(a), as_tensor_arg(b)
    _check_broadcast(ta, tb)
    return Tensor._make(np.asarray(fn(_value(ta), _value(tb))), dt.bool_)


# -- matmul family -------------------------------------------------------------------------------
def _matrices(a: Tensor, b: Tensor) -> None:
    """``addmm``'s arguments are matrices (``mm`` has its own words)."""
    for name, m in (("mat1", a), ("mat2", b)):
        if m._data.ndim != 2:
            raise RuntimeError(f"{name} must be a matrix, got {m._data.ndim}-D tensor")


def _mm_check(a: Tensor, b: Tensor) -> None:
    if a._data.shape[1] != b._data.shape[0]:
        raise RuntimeError(f"mat1 and mat2 shapes cannot be multiplied "
                           f"({a._data.shape[0]}x{a._data.shape[1]} and "
                           f"{b._data.shape[0]}x{b._data.shape[1]})")


def _same_dtype(a: Tensor, b: Tensor, what: str = "expected") -> None:
    if a._dtype is not b._dtype:
        raise RuntimeError(f"{what} m1 and m2 to have the same dtype, but got: "
                           f"{msg.CTYPE_NAME.get(a._dtype.name, a._dtype.name)} != "
                           f"{msg.CTYPE_NAME.get(b._dtype.name, b._dtype.name)}")


def mm(a: Tensor, b: Tensor) -> Tensor:
    if _amp.dtype is not None:
        return _amp_lower(mm, a, b)
    if a._data.ndim != 2 or b._data.ndim != 2:
        raise RuntimeError(f"{'self' if a._data.ndim != 2 else 'mat2'} must be a matrix")
    return _mm(a, b)


def _mm(a: Tensor, b: Tensor) -> Tensor:
    if a._dtype is not b._dtype:
        _same_dtype(a, b)
    if a._data.shape[1] != b._data.shape[0]:
        _mm_check(a, b)
    return keep_strides(apply(_T["mm"], (a, b), None, (a._data, b._data), a._dtype), a, b,
                        MM_KEYS)


def mv(a: Tensor, v: Tensor) -> Tensor:
    if a._dtype is not v._dtype:
        sa, sv = _sname(a), _sname(v)
        raise RuntimeError(f"addmv input tensors must have the same dtype, but got {sv}, {sa}, "
                           f"and {sv}")
    if a._data.shape[1] != v._data.shape[0]:
        raise RuntimeError(f"size mismatch, got input ({a._data.shape[0]}), mat "
                           f"({a._data.shape[0]}x{a._data.shape[1]}), vec ({v._data.shape[0]})")
    return apply(_T["mv"], (a, v))


def dot(a: Tensor, b: Tensor) -> Tensor:
    check_vectors("dot", a, b)
    return apply(_T["dot"], (a, b))


def check_vectors(name: str, a: Tensor, b: Tensor) -> None:
    """PyTorch's checks of a product of two vectors (``dot``, ``vdot``), in its order."""
    if a._data.ndim != 1 or b._data.ndim != 1:
        raise RuntimeError(f"1D tensors expected, but got {a._data.ndim}D and {b._data.ndim}D "
                           "tensors")
    if a._dtype is not b._dtype:
        raise RuntimeError(f"{name} : expected both vectors to have same dtype, but found "
                           f"{_sname(a)} and {_sname(b)}")
    if a._data.shape != b._data.shape:
        n, m = a._data.shape[0], b._data.shape[0]
        raise RuntimeError(f"inconsistent tensor size, expected tensor [{n}] and src [{m}] to "
                           f"have the same number of elements, but got {n} and {m} elements "
                           "respectively")


def bmm(a: Tensor, b: Tensor) -> Tensor:
    if _amp.dtype is not None:
        return _amp_lower(bmm, a, b)
    if a._data.ndim != 3 or b._data.ndim != 3:
        raise RuntimeError("batch1 must be a 3D tensor")
    if a._dtype is not b._dtype:
        raise RuntimeError(f"expected scalar type {_sname(a)} but found {_sname(b)}")
    if a._data.shape[0] != b._data.shape[0] or a._data.shape[2] != b._data.shape[1]:
        raise RuntimeError(f"Expected size for first two dimensions of batch2 tensor to be: "
                           f"[{a._data.shape[0]}, {a._data.shape[2]}] but got: "
                           f"[{b._data.shape[0]}, {b._data.shape[1]}].")
    return apply(_T["bmm"], (a, b))


def matmul(a: Tensor, b: Tensor) -> Tensor:
    """PyTorch's decomposition of ``@`` by the operands' ranks (at::matmul)."""
    if _amp.dtype is not None:
        return _amp_lower(matmul, a, b)
    if not isinstance(a, Tensor) or not isinstance(b, Tensor):
        a, b = as_tensor_arg(a), as_tensor_arg(b)
    na, nb = a._data.ndim, b._data.ndim
    if na == 2 and nb == 2:
        return _mm(a, b)
    if na == 0 or nb == 0:
        raise RuntimeError(f"both arguments to matmul need to be at least 1D, but they are "
                           f"{na}D and {nb}D")
    if na == 1 and nb == 1:
        return dot(a, b)
    if na == 2 and nb == 1:
        return mv(a, b)
    if na == 1 and nb == 2:
        return _squeeze_inplace_dim(_mm(unsqueeze(a, 0), b), 0)
    if _should_fold(a, b):
        return _folded_matmul(a, b)
    return _batched_matmul(a, b)


def _should_fold(a: Tensor, b: Tensor) -> bool:
    """Fold the batch of the larger operand into mm/mv when that needs no copy (or when the
    smaller operand requires grad), as at::matmul decides."""
    larger = a._data.ndim >= b._data.ndim
    t1 = a._data if larger else np.swapaxes(b._data, -1, -2)
    dim_t2 = b._data.ndim if larger else a._data.ndim
    if not (t1.ndim >= 3 and dim_t2 <= 2):
        return False
    if (b if larger else a).requires_grad:
        return True
    if a._data.ndim == 2:
        return False
    if t1.size == 0:
        return True
    shape, strides = t1.shape, t1.strides
    return all(strides[i] == strides[i + 1] * shape[i + 1] for i in range(t1.ndim - 2))


def _folded_matmul(a: Tensor, b: Tensor) -> Tensor:
    transpose_ = b._data.ndim > a._data.ndim
    t1 = transpose(b, -2, -1) if transpose_ else a
    t2 = b if not transpose_ else (t_(a) if a._data.ndim == 2 else a)
    sizes = t1._data.shape
    out_shape = sizes[:-1]
    folded = reshape(t1, (int(np.prod(out_shape, dtype=np.int64)), sizes[-1]))
    if t2._data.ndim == 2:
        out = _unsafe_view(_mm(folded, t2), (*out_shape, t2._data.shape[1]))
        return contiguous(transpose(out, -2, -1)) if transpose_ else out
    return _unsafe_view(mv(folded, t2), out_shape)


def _batched_matmul(a: Tensor, b: Tensor) -> Tensor:
    sa, sb = a._data.shape, b._data.shape
    n = sa[-2] if len(sa) > 1 else 1
    m1 = sa[-1]
    m2 = sb[-2] if len(sb) > 1 else sb[0]
    p = sb[-1] if len(sb) > 1 else 1
    try:
        batch = np.broadcast_shapes(sa[:max(len(sa) - 2, 0)], sb[:max(len(sb) - 2, 0)])
    except ValueError:
        _check_broadcast(Tensor._make(np.empty(sa[:-2]), dt.float32),
                         Tensor._make(np.empty(sb[:-2]), dt.float32))
        raise
    nb = int(np.prod(batch, dtype=np.int64))
    a3 = reshape(expand(a, (*batch, n, m1)), (nb, n, m1))
    if len(sb) == 1:
        b3 = unsqueeze(reshape(expand(b, (*batch, m2)), (nb, m2)), 2)
    else:
        b3 = reshape(expand(b, (*batch, m2, p)), (nb, m2, p))
    shape = (*batch, *((n,) if len(sa) > 1 else ()), *((p,) if len(sb) > 1 else ()))
    out = bmm(a3, b3)
    if len(sb) == 1:
        out = squeeze(out, -1)
    return _unsafe_view(out, shape)


def _unsafe_view(t: Tensor, shape: tuple[int, ...]) -> Tensor:
    return apply(_T["unsafe_view"], (t,), {"shape": tuple(shape)})


def _squeeze_inplace_dim(t: Tensor, dim: int) -> Tensor:
    out = apply(_T["squeeze_dims"], (t,), {"dim": dim})
    # NB: PyTorch squeezes the product in place here (squeeze_): same tensor, version bumped
    out._base = out._view_fn = None
    out._vc.v += 1
    return out


def transpose_inplace(t: Tensor, dim0: int, dim1: int) -> Tensor:
    """``t.transpose_(dim0, dim1)`` on a tensor no one else sees (a new output): the same
    tensor, its version bumped, as PyTorch's in-place transpose."""
    out = apply(_T["transpose_inplace"], (t,), {"dim0": dim0, "dim1": dim1})
    out._base = out._view_fn = None
    out._vc.v += 1
    return out


def _sname(t: Tensor) -> str:
    return msg.SCALAR_NAME.get(t._dtype.name, t._dtype.name)


def addmm_dtypes(bias: Tensor, m1: Tensor, m2: Tensor) -> None:
    """``addmm``'s and ``addmm_``'s first checks: PyTorch checks the bias against mat2 first."""
    if bias._dtype is not m2._dtype:
        raise RuntimeError(f"self and mat2 must have the same dtype, but got {_sname(bias)} and "
                           f"{_sname(m2)}")
    if m1._dtype is not m2._dtype:
        raise RuntimeError(f"mat1 and mat2 must have the same dtype, but got {_sname(m1)} and "
                           f"{_sname(m2)}")


def addmm(bias: Tensor, m1: Tensor, m2: Tensor, beta: Scalar = 1, alpha: Scalar = 1) -> Tensor:
    if _amp.dtype is not None:
        return _amp_lower(addmm, bias, m1, m2, beta, alpha)
    addmm_dtypes(bias, m1, m2)
    _matrices(m1, m2)
    _mm_check(m1, m2)
    return keep_strides(apply(_T["addmm"], (bias, m1, m2), {"alpha": alpha, "beta": beta},
                              dtype=promote(bias, m1, m2)), m1, m2, ADDMM_KEYS)


# -- shape ---------------------------------------------------------------------------------------
def _infer_shape(shape: Sequence[int], numel: int) -> tuple[int, ...]:
    # NB: index(), not int(): a float size is refused (the caller's guard names it)
    shape = tuple(s if type(s) is int else operator.index(s) for s in shape)
    if shape.count(-1) > 1:
        raise RuntimeError("only one dimension can be inferred")
    if -1 in shape:
        rest = int(np.prod([s for s in shape if s != -1], dtype=np.int64))
        if rest == 0 or numel % rest:
            raise RuntimeError(f"shape '[{', '.join(map(str, shape))}]' is invalid for input of "
                               f"size {numel}")
        shape = tuple(numel // rest if s == -1 else s for s in shape)
    if int(np.prod(shape, dtype=np.int64)) != numel:
        raise RuntimeError(f"shape '[{', '.join(map(str, shape))}]' is invalid for input of size "
                           f"{numel}")
    return shape


def _shape_args(args: tuple[Any, ...]) -> tuple[int, ...]:
    if len(args) == 1 and isinstance(args[0], tuple | list):
        return tuple(args[0])
    return tuple(args)


def view(t: Tensor, *shape: Any) -> Tensor:
    if len(shape) == 1 and isinstance(shape[0], dt.DType):
        raise NotImplementedError("view(dtype) is not supported by this engine")
    new = _infer_shape(_shape_args(shape), t._data.size)
    try:
        view_array(t._data, new)
    except ValueError:
        raise RuntimeError("view size is not compatible with input tensor's size and stride (at "
                           "least one dimension spans across two contiguous subspaces). Use "
                           ".reshape(...) instead.") from None
    return apply(_T["view"], (t,), {"shape": new})


def reshape(t: Tensor, *shape: Any) -> Tensor:
    """As PyTorch: a view when contiguous, an alias when the strides allow one, else a copy
    (CloneBackward0) then ``_unsafe_view``."""
    new = _infer_shape(_shape_args(shape), t._data.size)
    if t._data.flags.c_contiguous:
        return apply(_T["view"], (t,), {"shape": new})
    try:
        view_array(t._data, new)
    except ValueError:
        return _unsafe_view(clone(t, contiguous=True), new)
    return apply(_T["reshape_alias"], (t,), {"shape": new})


def flatten(t: Tensor, start_dim: int = 0, end_dim: int = -1) -> Tensor:
    shape = t._data.shape
    s, e = _dim(start_dim, len(shape)), _dim(end_dim, len(shape))
    if not shape:
        return reshape(t, (1,))
    if s > e:
        raise RuntimeError("flatten() has invalid args: start_dim cannot come after end_dim")
    if s == e:
        return t
    new = (*shape[:s], int(np.prod(shape[s:e + 1], dtype=np.int64)), *shape[e + 1:])
    return reshape(t, new)


INT64_MAX = 2 ** 63 - 1       # an open slice end, as PyTorch keeps it
MM_KEYS = (strides_key("self"), strides_key("mat2"))
ADDMM_KEYS = (strides_key("mat1"), strides_key("mat2"))


def as_given(out: Any, **given: Any) -> Any:
    """Keep arguments as the caller gave them (a negative dim, an open slice end) for the
    ``_saved_*`` of ``out``'s node, where PyTorch shows them so; formulas use the wrapped ones."""
    if isinstance(out, tuple | list) and not out:
        return out                # NB: the pieces of an empty dim: no node
    first = out[0] if isinstance(out, tuple | list) else out
    fn = first._grad_fn
    if fn is not None and fn._attrs is not None:
        for key, value in given.items():
            fn._attrs["@" + key] = value
    return out


def given_dims(dim: Any) -> Any:
    """A dim argument as given, as a tuple (None stays None)."""
    return None if dim is None else (dim,) if isinstance(dim, int) else tuple(dim)


def _dim(d: int, ndim: int) -> int:
    n = max(ndim, 1)
    if not -n <= d < n:
        raise IndexError(f"Dimension out of range (expected to be in range of [{-n}, {n - 1}], "
                         f"but got {d})")
    return d % n


def transpose(t: Tensor, dim0: int, dim1: int) -> Tensor:
    n = t._data.ndim
    return as_given(apply(_T["transpose"], (t,), {"dim0": _dim(dim0, n), "dim1": _dim(dim1, n)}),
                    dim0=dim0, dim1=dim1)


def t_(t: Tensor) -> Tensor:
    if t._data.ndim > 2:
        raise RuntimeError(f"t() expects a tensor with <= 2 dimensions, but self is "
                           f"{t._data.ndim}D")
    return apply(_T["t"], (t,))


def permute(t: Tensor, *dims: Any) -> Tensor:
    if not dims:
        raise TypeError('permute() missing 1 required positional arguments: "dims"')
    given = _shape_args(dims)
    if len(given) != t._data.ndim:
        raise RuntimeError("permute(sparse_coo): number of dimensions in the tensor input does not "
                           "match the length of the desired ordering of dimensions i.e. input.dim()"
                           f" = {t._data.ndim} is not equal to len(dims) = {len(given)}")
    d = tuple(_dim(x, t._data.ndim) for x in given)
    if len(set(d)) != len(d):
        raise RuntimeError("permute(): duplicate dims are not allowed.")
    return as_given(apply(_T["permute"], (t,), {"dims": d}), dims=tuple(given))


def numpy_T(t: Tensor) -> Tensor:
    return permute(t, tuple(reversed(range(t._data.ndim))))


def unsqueeze(t: Tensor, dim: int) -> Tensor:
    return as_given(apply(_T["unsqueeze"], (t,), {"dim": _dim(dim, t._data.ndim + 1)}), dim=dim)


def squeeze(t: Tensor, dim: Any = None) -> Tensor:
    if dim is None:
        return apply(_T["squeeze"], (t,))
    if isinstance(dim, tuple | list):
        # NB: one node for the dims given (SqueezeBackward2), shown as given
        dims = tuple(_dim(x, t._data.ndim) for x in dim)
        if len(set(dims)) != len(dims):
            raise RuntimeError(f"dim {next(d for d in dims if dims.count(d) > 1)} appears "
                               f"multiple times in the list of dims")
        return as_given(apply(_T["squeeze_multi"], (t,), {"dim": dims}), dim=tuple(dim))
    return as_given(apply(_T["squeeze_dim"], (t,), {"dim": _dim(dim, t._data.ndim)}), dim=dim)


def expand(t: Tensor, *sizes: Any) -> Tensor:
    if not sizes:
        raise TypeError('expand() missing 1 required positional arguments: "size"')
    size = _shape_args(sizes)
    shape = t._data.shape
    if len(size) < len(shape):
        # NB: PyTorch names the tensor's type as its legacy class, or its type's name (bool)
        kind = "CPUBoolType" if t._dtype is dt.bool_ else t._dtype.legacy
        raise RuntimeError(f"expand({kind}{{[{', '.join(map(str, shape))}]}}, "
                           f"size=[{', '.join(map(str, size))}]): the number of sizes provided "
                           f"({len(size)}) must be greater or equal to the number of dimensions "
                           f"in the tensor ({len(shape)})")
    lead = len(size) - len(shape)
    # NB: checked from the last dim to the first, as PyTorch does; a 0-d tensor skips the
    # leading -1 check, and a size left negative overflows PyTorch's element count
    for i in range(len(size) - 1, -1, -1):
        if i < lead:
            if size[i] == -1 and shape:
                raise RuntimeError(f"The expanded size of the tensor (-1) isn't allowed in a "
                                   f"leading, non-existing dimension {i}")
        elif size[i] != -1 and shape[i - lead] not in (1, size[i]):
            raise _expand_mismatch(size[i], shape[i - lead], i, size, shape)
    full = tuple(shape[i - lead] if s == -1 and i >= lead else s for i, s in enumerate(size))
    if any(s < 0 for s in full):
        raise RuntimeError("numel: integer multiplication overflow")
    return apply(_T["expand"], (t,), {"size": full})


def check_expand(shape: tuple[int, ...], size: tuple[int, ...],
                 full: tuple[int, ...] | None = None) -> None:
    """PyTorch's error where a tensor of ``shape`` cannot be expanded to ``size`` (``full``:
    the size with its -1s filled in)."""
    full = size if full is None else full
    lead = len(full) - len(shape)
    for i, s in enumerate(shape):
        if s != 1 and (i + lead < 0 or s != full[i + lead]):
            raise _expand_mismatch(full[i + lead], s, i + lead, size, shape)


def _expand_mismatch(target: int, existing: int, dim: int, size: tuple[int, ...],
                     shape: tuple[int, ...]) -> RuntimeError:
    return RuntimeError(f"The expanded size of the tensor ({target}) must match the existing "
                        f"size ({existing}) at non-singleton dimension {dim}.  Target sizes: "
                        f"[{', '.join(map(str, size))}].  Tensor sizes: "
                        f"[{', '.join(map(str, shape))}]")


def clone(t: Tensor, contiguous: bool = False, memory_format: Any = None) -> Tensor:
    return apply(_T["clone"], (t,), {"contiguous": contiguous} if contiguous else None)


def contiguous(t: Tensor) -> Tensor:
    if t._data.flags.c_contiguous:
        return t
    return clone(t, contiguous=True)


def to_dtype(t: Tensor, dtype: dt.DType) -> Tensor:
    if dtype is t._dtype:
        return t
    if t.requires_grad and not dtype.is_floating_point:
        return Tensor._make(t._data.astype(dtype.np), dtype)
    return apply(_T["to_copy"], (t,), {"dtype": dtype.np}, dtype=dtype)


def select(t: Tensor, dim: int, index: int, shown_dim: int | None = None) -> Tensor:
    """``t.select(dim, index)``; ``shown_dim``: the dimension of the tensor being indexed, when
    indexing (``t[i]``) selects (its errors are the indexing ones)."""
    if t._data.ndim == 0:
        raise IndexError(msg.ZERO_DIM_INDEX if shown_dim is not None else
                         "select() cannot be applied to a 0-dim tensor.")
    d = _dim(dim, t._data.ndim)
    size = t._data.shape[d]
    if not -size <= index < size:
        if shown_dim is None:
            raise IndexError(f"select(): index {index} out of range for tensor of size "
                             f"[{', '.join(map(str, t._data.shape))}] at dimension {d}")
        raise IndexError(f"index {index} is out of bounds for dimension {shown_dim} with size "
                         f"{size}")
    return as_given(apply(_T["select"], (t,), {"dim": d, "index": index % size}), dim=dim,
                    index=index)


def slice_(t: Tensor, dim: int, start: Any, end: Any, step: Any = 1) -> Tensor:
    d = _dim(dim, t._data.ndim)
    s, e, st = slice(start, end, step).indices(t._data.shape[d])
    if st <= 0:
        raise ValueError("step must be greater than zero")
    e = max(e, s)
    return as_given(apply(_T["slice"], (t,), {"dim": d, "start": s, "end": e, "step": st}),
                    dim=dim, start=0 if start is None else start,
                    end=INT64_MAX if end is None else end, step=st)


def narrow(t: Tensor, dim: int, start: int, length: int) -> Tensor:
    if t._data.ndim == 0:
        raise RuntimeError("narrow() cannot be applied to a 0-dim tensor.")
    d = _dim(dim, t._data.ndim)
    if length < 0:
        raise RuntimeError("narrow(): length must be non-negative.")
    size = t._data.shape[d]
    if not -size <= start <= size:
        raise IndexError(f"start out of range (expected to be in range of [{-size}, {size}], "
                         f"but got {start})")
    if start < 0:
        start += size
    if start + length > size:
        raise RuntimeError(f"start ({start}) + length ({length}) exceeds dimension size "
                           f"({size}).")
    return as_given(slice_(t, d, start, start + length), dim=dim)


def cat(tensors: Sequence[Tensor], dim: int = 0) -> Tensor:
    if _amp.dtype is not None:
        return _amp_promote(cat, tensors, dim)
    if isinstance(tensors, Tensor):
        raise TypeError("cat() takes a sequence of tensors")
    ts = list(tensors)
    if not ts:
        raise ValueError("torch.cat(): expected a non-empty list of Tensors")
    for i, x in enumerate(ts):
        if x._data.ndim == 0:
            raise RuntimeError(f"zero-dimensional tensor (at position {i}) cannot be "
                               "concatenated")
    ref = next((x for x in ts if x._data.shape != (0,)), ts[0])
    d = _dim(dim, ref._data.ndim)
    arrays = [x._data for x in ts if x._data.shape != (0,) or ref._data.shape == (0,)]
    for i, x in enumerate(ts):
        if x._data.ndim != ref._data.ndim and x._data.shape != (0,):
            raise RuntimeError(f"Tensors must have same number of dimensions: got "
                               f"{ref._data.ndim} and {x._data.ndim}")
        for k in range(ref._data.ndim):
            if k != d and x._data.shape != (0,) and x._data.shape[k] != ref._data.shape[k]:
                raise RuntimeError(f"Sizes of tensors must match except in dimension {d}. "
                                   f"Expected size {ref._data.shape[k]} but got size "
                                   f"{x._data.shape[k]} for tensor number {i} in the list.")
    dtype = promote(*ts)
    return as_given(apply(_T["cat"], ts, {"dim": d}, arrays=[a.astype(dtype.np, copy=False)
                                                              for a in arrays], dtype=dtype),
                    dim=dim)


def stack(tensors: Sequence[Tensor], dim: int = 0) -> Tensor:
    if _amp.dtype is not None:
        return _amp_promote(stack, tensors, dim)
    if isinstance(tensors, Tensor):
        raise TypeError("stack() takes a sequence of tensors")
    ts = list(tensors)
    if not ts:
        raise RuntimeError("stack expects a non-empty TensorList")
    for i, x in enumerate(ts):
        if x._data.shape != ts[0]._data.shape:
            raise RuntimeError(f"stack expects each tensor to be equal size, but got "
                               f"[{', '.join(map(str, ts[0]._data.shape))}] at entry 0 and "
                               f"[{', '.join(map(str, x._data.shape))}] at entry {i}")
    d = _dim(dim, ts[0]._data.ndim + 1)
    dtype = promote(*ts)
    return as_given(apply(_T["stack"], ts, {"dim": d}, arrays=[
        x._data.astype(dtype.np, copy=False) for x in ts], dtype=dtype), dim=dim)


def split(t: Tensor, split_size: Any, dim: int = 0) -> tuple[Tensor, ...]:
    if t._data.ndim == 0:
        raise RuntimeError("split expects at least a 1-dimensional tensor")
    d = _dim(dim, t._data.ndim)
    if isinstance(split_size, int):
        if split_size < 0:
            raise RuntimeError(f"split expects split_size be non-negative, but got "
                               f"split_size={split_size}")
        if split_size == 0:
            if t._data.shape[d] != 0:
                raise RuntimeError(f"split_size can only be 0 if dimension size is 0, but got "
                                   f"dimension size of {t._data.shape[d]}")
            return (slice_(t, d, 0, 0),)
        return as_given(tuple(apply(_T["split"], (t,), {"split_size": split_size, "dim": d})),
                        dim=dim)
    sizes = tuple(int(n) for n in split_size)
    if int(np.sum(sizes)) != t._data.shape[d]:
        raise RuntimeError(f"split_with_sizes expects split_sizes to sum exactly to "
                           f"{t._data.shape[d]} (input tensor's size at dimension {d}), but got "
                           f"split_sizes=[{', '.join(map(str, sizes))}]")
    return as_given(tuple(apply(_T["split_with_sizes"], (t,), {"split_sizes": sizes,
                                                                "dim": d})), dim=dim)


def unsafe_chunk(t: Tensor, chunks: int, dim: int = 0) -> tuple[Tensor, ...]:
    """``chunk`` whose pieces are no views (UnsafeSplitBackward0), as PyTorch's recurrent cells
    cut their gates."""
    if chunks <= 0:
        raise RuntimeError(f"chunk expects `chunks` to be greater than 0, got: {chunks}")
    d = _dim(dim, t._data.ndim)
    return unsafe_split(t, -(-t._data.shape[d] // chunks), dim)


def unsafe_split(t: Tensor, split_size: int, dim: int = 0) -> tuple[Tensor, ...]:
    if t._data.ndim == 0:
        raise RuntimeError("split expects at least a 1-dimensional tensor")
    d = _dim(dim, t._data.ndim)
    if split_size <= 0:
        return tuple(x.clone() for x in split(t, split_size, dim))
    return as_given(tuple(apply(_T["unsafe_split"], (t,), {"split_size": split_size,
                                                           "dim": d})), dim=dim)


def chunk(t: Tensor, chunks: int, dim: int = 0) -> tuple[Tensor, ...]:
    if t._data.ndim == 0:
        raise RuntimeError("chunk expects at least a 1-dimensional tensor")
    if chunks <= 0:
        raise RuntimeError(f"chunk expects `chunks` to be greater than 0, got: {chunks}")
    d = _dim(dim, t._data.ndim)
    if t._data.shape[d] == 0:
        # NB: PyTorch keeps the number of chunks of an empty dim (split would give one)
        return split(t, [0] * chunks, dim)
    return split(t, -(-t._data.shape[d] // chunks), dim)


def unbind(t: Tensor, dim: int = 0) -> tuple[Tensor, ...]:
    d = _dim(dim, t._data.ndim)
    if not t._data.ndim:
        raise IndexError(f"Dimension specified as {d} but tensor has no dimensions")
    return as_given(tuple(apply(_T["unbind"], (t,), {"dim": d})), dim=dim)


def where(cond: Tensor, a: Any, b: Any) -> Tensor:
    ta, tb = as_tensor_arg(a), as_tensor_arg(b)
    _broadcast_all(cond._data.shape, ta._data.shape, tb._data.shape)
    dtype = promote(ta, tb)
    mask = cond if cond._dtype is dt.bool_ else Tensor._make(cond._data.astype(bool), dt.bool_)
    return apply(_T["where"], (ta, tb), {"condition": mask}, arrays=(_value(ta), _value(tb)),
                 dtype=dtype)


def clamp(t: Tensor, min: Any = None, max: Any = None) -> Tensor:
    if min is None and max is None:
        raise RuntimeError("torch.clamp: At least one of 'min' or 'max' must not be None")
    dtype = clamp_dtype(t, min, max)
    if dtype is not t._dtype and not t._dtype.is_floating_point:
        # NB: an integer tensor clamped by a float: the result is a float (PyTorch's promotion)
        t = to_dtype(t, dtype)
    if isinstance(min, Tensor) or isinstance(max, Tensor):
        # NB: tensor bounds promote (a float64 bound gives a float64 result), with no copy node
        lo = as_tensor_arg(min) if min is not None else None
        hi = as_tensor_arg(max) if max is not None else None
        return apply(_T["clamp_tensor"], (t, lo, hi), dtype=dtype)
    kw = {k: v for k, v in (("min", min), ("max", max)) if v is not None}
    return apply(_T["clamp"], (t,), kw, dtype=t._dtype)


def clamp_dtype(t: Tensor, *bounds: Any) -> dt.DType:
    """The dtype of ``t`` clamped by ``bounds`` (numbers, tensors or None)."""
    return promote(t, *[as_tensor_arg(b) for b in bounds if b is not None])


def check_clamp_inplace(t: Tensor, *bounds: Any) -> None:
    """``clamp_`` keeps the tensor's dtype: a bound that would promote it is an error."""
    if t._dtype.is_floating_point:
        return
    result = clamp_dtype(t, *bounds)
    if result is not t._dtype:
        raise RuntimeError(f"result type {msg.SCALAR_NAME.get(result.name, result.name)} can't "
                           f"be cast to the desired output type "
                           f"{msg.CTYPE_NAME.get(t._dtype.name, t._dtype.name)}")


def _check_mask(mask: Tensor, inplace: bool = False) -> None:
    if mask._dtype is not dt.bool_:
        raise RuntimeError(f"masked_fill_ only supports boolean masks, but got mask with dtype "
                           f"{msg.CTYPE_NAME.get(mask._dtype.name, mask._dtype.name)}")


def check_mask_inplace(t: Tensor, mask: Tensor) -> None:
    """``masked_fill_``: the mask broadcasts to the tensor it writes into."""
    check_inplace(t)
    _check_mask(mask)
    shape = t._data.shape
    if mask._data.shape != shape:
        _check_output(shape, _broadcast_all(shape, mask._data.shape))


def repeat(t: Tensor, *sizes: Any) -> Tensor:
    if not sizes:
        raise TypeError('repeat() missing 1 required positional arguments: "repeats"')
    repeats = _shape_args(sizes)
    if len(repeats) < t._data.ndim:
        raise RuntimeError("Number of dimensions of repeat dims can not be smaller than number "
                           "of dimensions of tensor")
    shape = (1,) * (len(repeats) - t._data.ndim) + t._data.shape
    out = [n * r for n, r in zip(shape, repeats, strict=True)]
    bad = next((n for n in out if n < 0), None)
    if bad is not None:
        raise RuntimeError(f"Trying to create tensor with negative dimension {bad}: "
                           f"[{', '.join(map(str, out))}]")
    return apply(_T["repeat"], (t,), {"repeats": repeats})


def gather(t: Tensor, dim: int, index: Tensor, sparse_grad: bool = False) -> Tensor:
    if sparse_grad:
        raise NotImplementedError("gather(sparse_grad=True): sparse gradients are not supported "
                                  "by this engine")
    d = _dim(dim, t._data.ndim)
    idx, shape = index._data, t._data.shape
    if idx.ndim != max(t._data.ndim, 1) and not (idx.ndim <= 1 and t._data.ndim <= 1):
        raise RuntimeError("Index tensor must have the same number of dimensions as input "
                           "tensor")
    for k in range(idx.ndim):
        if k != d and idx.shape[k] > (shape[k] if k < len(shape) else 1):
            raise RuntimeError(f"Size does not match at dimension {k} expected index "
                               f"[{', '.join(map(str, idx.shape))}] to be no larger than self "
                               f"[{', '.join(map(str, shape))}] apart from dimension {d}")
    size = shape[d] if shape else 1
    bad = (idx < 0) | (idx >= size)
    if bad.any():
        raise RuntimeError(f"index {int(idx[bad].flat[0])} is out of bounds for dimension {d} "
                           f"with size {size}")
    return as_given(apply(_T["gather"], (t,), {"dim": d, "index": index}), dim=dim)


def masked_fill(t: Tensor, mask: Tensor, value: Any) -> Tensor:
    _check_mask(mask)
    _broadcast_all(mask._data.shape, t._data.shape)
    if isinstance(value, Tensor):
        return apply(_T["masked_fill_tensor"], (t, value), {"mask": mask}, dtype=t._dtype)
    return apply(_T["masked_fill"], (t,), {"mask": mask, "value": value})


def reduce_dims(dim: Any, ndim: int) -> tuple[int, ...] | None:
    """The dims a reduction runs over, wrapped; None for no dim. An empty list is kept: it
    reduces over every dim, as PyTorch's ``dim=[]`` does, on the node of the dim form."""
    if dim is None:
        return None
    if isinstance(dim, int):
        dim = (dim,)
    dims = tuple(_dim(d, ndim) for d in dim)
    if len(set(dims)) != len(dims):
        repeated = next(d for d in dims if dims.count(d) > 1)
        raise RuntimeError(f"dim {repeated} appears multiple times in the list of dims")
    return dims


def sum(t: Tensor, dim: Any = None, keepdim: bool = False, dtype: Any = None) -> Tensor:
    out_dtype = dt.int64 if not t._dtype.is_floating_point else t._dtype
    if dtype is not None:
        t, out_dtype = to_dtype(t, dtype), dtype
    dims = reduce_dims(dim, t._data.ndim)
    if dims is None:
        return apply(_T["sum"], (t,), dtype=out_dtype)
    return as_given(apply(_T["sum_dim"], (t,), {"dim": dims, "keepdim": keepdim},
                          dtype=out_dtype), dim=given_dims(dim))


def mean(t: Tensor, dim: Any = None, keepdim: bool = False, dtype: Any = None) -> Tensor:
    if dtype is not None:
        t = to_dtype(t, dtype)
    if not t._dtype.is_floating_point:
        raise RuntimeError("mean(): could not infer output dtype. Input dtype must be either a "
                           f"floating point or complex dtype. Got: "
                           f"{msg.SCALAR_NAME.get(t._dtype.name, t._dtype.name)}")
    dims = reduce_dims(dim, t._data.ndim)
    if dims is None:
        return apply(_T["mean"], (t,), dtype=t._dtype)
    return as_given(apply(_T["mean_dim"], (t,), {"dim": dims, "keepdim": keepdim},
                          dtype=t._dtype), dim=given_dims(dim))


def max_min(key: str, t: Tensor, dim: Any = None, keepdim: bool = False) -> Any:
    if isinstance(dim, Tensor) and key != "median":
        return binary("maximum" if key == "max" else "minimum", t, dim)
    if dim is None:
        if t._data.size == 0:
            raise RuntimeError(f"{key}(): Expected reduction dim to be specified for input.numel() "
                               "== 0. Specify the reduction dim with the 'dim' argument.")
        return apply(_T[key], (t,))
    d = _dim(dim, t._data.ndim)
    if t._data.ndim and t._data.shape[d] == 0:
        raise IndexError(f"{key}(): Expected reduction dim {d} to have non-zero size.")
    values = as_given(apply(_T[key + "_dim"], (t,), {"dim": d, "keepdim": keepdim}), dim=dim)
    fn = values._grad_fn
    # NB: no node, or a saved-tensor hook keeps the indices: computed again
    idx = fn._saved["indices"].tensor if fn is not None else None
    if idx is None:
        idx = wrap(_T[key + "_dim"].forward(t._data, d, keepdim)[1]["indices"])
    from .torch_types import RETURN_TYPES
    return RETURN_TYPES[key](values, idx)


def arg_reduce(fn: Any, t: Tensor, dim: Any = None, keepdim: bool = False) -> Tensor:
    if dim is None:
        return Tensor._make(np.asarray(fn(t._data), dtype=np.int64), dt.int64)
    d = _dim(dim, t._data.ndim)
    out = fn(t._data, axis=d, keepdims=keepdim)
    return Tensor._make(np.asarray(out, dtype=np.int64), dt.int64)


# -- nn-level ops ----------------------------------------------------------------------------------
def _softmax(key: str, t: Tensor, dim: int, dtype: Any) -> Tensor:
    if dtype is not None:
        t = to_dtype(t, dtype)
    d = _dim(dim, t._data.ndim)
    if not t._dtype.is_floating_point:
        kernel = f"{key}_lastdim_kernel_impl" if d == max(t._data.ndim - 1, 0) else \
            f"{key}_kernel_impl"
        raise NotImplementedError(f'"{kernel}" not implemented for '
                                  f"'{msg.SCALAR_NAME.get(t._dtype.name, t._dtype.name)}'")
    return as_given(_quiet(apply)(_T[key], (t,), {"dim": d}), dim=dim)


def softmax(t: Tensor, dim: int, dtype: Any = None) -> Tensor:
    return _softmax("softmax", t, dim, dtype)


def log_softmax(t: Tensor, dim: int, dtype: Any = None) -> Tensor:
    return _softmax("log_softmax", t, dim, dtype)


def linear(x: Tensor, weight: Tensor, bias: Tensor | None = None) -> Tensor:
    """``F.linear`` as PyTorch decomposes it: addmm for 2-D input, with views around it."""
    if _amp.dtype is not None:
        return _amp_lower(linear, x, weight, bias)
    nd = x._data.ndim
    if nd == 2 and bias is not None:
        return addmm(bias, x, t_(weight))
    if nd == 0 or weight._data.ndim == 0:
        raise RuntimeError(f"both arguments to linear need to be at least 1D, but they are "
                           f"{nd}D and {weight._data.ndim}D")
    if bias is not None and x._data.flags.c_contiguous and bias._data.ndim == 1:
        # NB: the input is flattened before weight.t() is taken: node order as PyTorch's
        lead = int(np.prod(x._data.shape[:-1], dtype=np.int64))
        folded = reshape(x, (lead, x._data.shape[-1]))
        out = addmm(bias, folded, t_(weight))
        return view(out, (*x._data.shape[:-1], out._data.shape[1]))
    out = matmul(x, t_(weight))
    if bias is not None:
        out.add_(bias)
    return out


# -- composites the backward formulas use, on both backends --------------------------------------
def _np_sum_to(g: np.ndarray, shape: tuple[int, ...]) -> np.ndarray:
    lead = g.ndim - len(shape)
    axes = tuple(range(lead)) + tuple(lead + k for k, s in enumerate(shape)
                                      if s == 1 and g.shape[lead + k] != 1)
    return (g.sum(axis=axes, keepdims=True) if axes else g).reshape(shape)


def _tt_sum_to(g: Tensor, shape: tuple[int, ...]) -> Tensor:
    # NB: as at::sum_to: a full sum to a scalar, else sum(keepdim) then a view of the shape
    if not shape:
        return sum(g)
    lead = g._data.ndim - len(shape)
    axes = tuple(range(lead)) + tuple(lead + k for k, s in enumerate(shape)
                                      if s == 1 and g._data.shape[lead + k] != 1)
    if axes:
        g = sum(g, axes, keepdim=True)
    return reshape(g, shape) if g._data.shape != tuple(shape) else g


setattr(NP, "reshape", lambda g, shape: np.reshape(g, shape))  # noqa: B010 -- a namespace
setattr(TT, "reshape", lambda g, shape: reshape(g, shape))  # noqa: B010
setattr(NP, "sum_to", _np_sum_to)  # noqa: B010
setattr(TT, "sum_to", _tt_sum_to)  # noqa: B010
