"""The user-facing fused and special elementwise ops (``addcmul``, ``addcdiv``, ``lerp``, ``erf``,
``lgamma``, ``xlogy``, ``hypot``, ``logaddexp``, ``heaviside``, the ``logical_*`` family, ...)
with their Tensor methods and in-place forms, checked with PyTorch's messages and recorded
through the table (``ops_special``)."""

from __future__ import annotations

from typing import Any

import numpy as np

from . import dtypes as dt
from . import functional as F
from . import messages as msg
from .autograd import apply, apply_inplace, check_inplace
from .optable import TABLE
from .tensor import Tensor

__all__ = ["addcmul", "addcdiv", "lerp", "xlogy", "hypot", "logaddexp", "logaddexp2",
           "heaviside", "polygamma", "nan_to_num", "logical_and", "logical_or", "logical_xor",
           "logical_not", "METHODS", "UNARY"]

# unary ops computed in float32 for integer inputs, as PyTorch
UNARY = ("erf", "erfc", "erfinv", "lgamma", "digamma", "sinc")

_ADDCDIV_INT = (
    "Integer division with addcdiv is no longer supported, and in a future  release addcdiv will "
    "perform a true division of tensor1 and tensor2. The historic addcdiv behavior can be "
    "implemented as (input + value * torch.trunc(tensor1 / tensor2)).to(input.dtype) for integer "
    "inputs and as (input + value * tensor1 / tensor2) for float inputs. The future addcdiv "
    "behavior is just the latter implementation: (input + value * tensor1 / tensor2), for all "
    "dtypes.")


def _name(d: dt.DType) -> str:
    return msg.SCALAR_NAME.get(d.name, d.name)


def _tensor_arg(fn: str, name: str, pos: int, v: Any) -> Tensor:
    if not isinstance(v, Tensor):
        raise TypeError(f"{fn}(): argument '{name}' (position {pos}) must be Tensor, not "
                        f"{type(v).__name__}")
    return v


def _not_for(kernel: str, d: dt.DType) -> NotImplementedError:
    return NotImplementedError(f'"{kernel}" not implemented for \'{_name(d)}\'')


# -- addcmul, addcdiv ----------------------------------------------------------------------------
def _addc(key: str, input: Tensor, tensor1: Tensor, tensor2: Tensor, value: Any) -> Tensor:
    ts = (input, tensor1, tensor2)
    if key == "addcdiv" and not (tensor1._dtype.is_floating_point
                                 or tensor2._dtype.is_floating_point):
        raise RuntimeError(_ADDCDIV_INT)
    F._broadcast_all(*(t._data.shape for t in ts))
    dtype = F.promote(*ts)
    if not dtype.is_floating_point and isinstance(value, float):
        value = int(value)          # NB: PyTorch casts the value to the integer dtype
    return apply(TABLE[key], ts, {"value": value}, [t._data for t in ts], dtype)


def addcmul(input: Tensor, tensor1: Tensor, tensor2: Tensor, *, value: Any = 1) -> Tensor:
    """``input + value * tensor1 * tensor2`` (one ``AddcmulBackward0`` node)."""
    return _addc("addcmul", input, tensor1, tensor2, value)


def addcdiv(input: Tensor, tensor1: Tensor, tensor2: Tensor, *, value: Any = 1) -> Tensor:
    """``input + value * tensor1 / tensor2`` (one ``AddcdivBackward0`` node)."""
    return _addc("addcdiv", input, tensor1, tensor2, value)


def _addc_(key: str) -> Any:
    def m(self: Tensor, tensor1: Tensor, tensor2: Tensor, *, value: Any = 1) -> Tensor:
        check_inplace(self, (tensor1, tensor2))
        if key == "addcdiv" and not (tensor1._dtype.is_floating_point
                                     or tensor2._dtype.is_floating_point):
            raise RuntimeError(_ADDCDIV_INT)
        full = F._broadcast_all(self._data.shape, tensor1._data.shape, tensor2._data.shape)
        F._check_output(self._data.shape, full)
        return F._quiet(apply_inplace)(TABLE[key], self, (tensor1, tensor2), {"value": value})
    m.__name__ = key + "_"
    return m


# -- lerp ----------------------------------------------------------------------------------------
# the C++ names PyTorch's lerp messages give dtypes
_CPP_NAME = {"float32": "float", "float64": "double", "float16": "c10::Half", "int64": "long int",
             "int32": "int", "int16": "short int", "int8": "signed char",
             "uint8": "unsigned char", "bool": "bool"}


def _lerp_args(input: Tensor, end: Tensor, weight: Any) -> tuple[str, tuple[Tensor, ...]]:
    for name, t in (("end", end), ("weight", weight)):
        # NB: a 0-d weight of another dtype is allowed (an end is not)
        if isinstance(t, Tensor) and t._dtype is not input._dtype \
                and (name == "end" or t._data.ndim):
            raise RuntimeError(f"expected dtype {_CPP_NAME[input._dtype.name]} for `{name}` but "
                               f"got dtype {_CPP_NAME[t._dtype.name]}")
    if isinstance(weight, Tensor):
        kernel = "lerp_kernel_tensor"
    else:
        kernel = "lerp_kernel_scalar"
    if not input._dtype.is_floating_point:
        raise _not_for(kernel, input._dtype)
    if isinstance(weight, Tensor):
        F._broadcast_all(input._data.shape, end._data.shape, weight._data.shape)
        return "lerp_tensor", (input, end, weight)
    F._broadcast_all(input._data.shape, end._data.shape)
    return "lerp", (input, end)


def lerp(input: Tensor, end: Tensor, weight: Any) -> Tensor:
    """``input + weight * (end - input)``; a number weight makes ``LerpBackward0``, a tensor
    one ``LerpBackward1``."""
    key, ts = _lerp_args(input, end, weight)
    if key == "lerp":
        return apply(TABLE[key], ts, {"weight": weight}, dtype=input._dtype)
    return apply(TABLE[key], ts, dtype=input._dtype)


def _lerp_(self: Tensor, end: Tensor, weight: Any) -> Tensor:
    check_inplace(self, (end, weight) if isinstance(weight, Tensor) else (end,))
    key, ts = _lerp_args(self, end, weight)
    F._check_output(self._data.shape, F._broadcast_all(*(t._data.shape for t in ts)))
    if key == "lerp":
        return apply_inplace(TABLE[key], self, ts[1:], {"weight": weight})
    return apply_inplace(TABLE[key], self, ts[1:])


# -- binary special functions --------------------------------------------------------------------
def xlogy(input: Any, other: Any) -> Tensor:
    """``input * log(other)``, 0 where input is 0: a number on either side has no slot
    (``XlogyBackward1`` / ``XlogyBackward2``)."""
    if not isinstance(input, Tensor):
        t = _tensor_arg("xlogy", "other", 2, other)
        dtype = F._float(F.promote(F.scalar_tensor(input), t))
        return apply(TABLE["xlogy_of_scalar"], (t,), {"self": input}, dtype=dtype)
    if not isinstance(other, Tensor):
        dtype = F._float(F.promote(input, F.scalar_tensor(other)))
        return apply(TABLE["xlogy_scalar"], (input,), {"other": other}, dtype=dtype)
    return F._quiet(F.binary)("xlogy", input, other, floating=True)


def _floating_binary(key: str, kernel: str) -> Any:
    def f(input: Tensor, other: Any) -> Tensor:
        other = _tensor_arg(key, "other", 2, other)
        dtype = F.promote(input, other)
        if not dtype.is_floating_point:
            raise _not_for(kernel, dtype)
        return F._quiet(F.binary)(key, input, other)
    f.__name__ = key
    return f


hypot = _floating_binary("hypot", "hypot_cpu")
logaddexp = _floating_binary("logaddexp", "logaddexp_cpu")
logaddexp2 = _floating_binary("logaddexp2", "logaddexp2_cpu")


def _binary_(key: str) -> Any:
    def m(self: Tensor, other: Any) -> Tensor:
        return F._quiet(F.binary_)(key, self, other)
    m.__name__ = key + "_"
    return m


def heaviside(input: Tensor, values: Any) -> Tensor:
    """The step function; PyTorch has no derivative for it (a node that raises when a backward
    reaches it)."""
    values = _tensor_arg("heaviside", "values", 2, values)
    if values._dtype is not input._dtype:
        raise RuntimeError("heaviside is not yet implemented for tensors with different dtypes.")
    F._check_broadcast(input, values)
    graph = [t for t in (input, values) if t._rg or t._grad_fn is not None]
    return apply(TABLE["heaviside"], graph, arrays=(input._data, values._data),
                 dtype=input._dtype)


def polygamma(n: int, input: Tensor) -> Tensor:
    if n < 0:
        raise RuntimeError("polygamma(n, x) does not support negative n.")
    return F.unary("polygamma", input, n=n)


def nan_to_num(input: Tensor, nan: float = 0.0, posinf: float | None = None,
               neginf: float | None = None) -> Tensor:
    """nan, inf and -inf replaced (by default: 0 and the dtype's extremes)."""
    if not input._dtype.is_floating_point:
        return F.clone(input)
    return F.unary("nan_to_num", input, nan=nan, posinf=posinf, neginf=neginf)


def _nan_to_num_(self: Tensor, nan: float = 0.0, posinf: float | None = None,
                 neginf: float | None = None) -> Tensor:
    return apply_inplace(TABLE["nan_to_num"], self, (), {"nan": nan, "posinf": posinf,
                                                          "neginf": neginf})


def _frac(t: Tensor) -> Tensor:
    if not t._dtype.is_floating_point:
        raise _not_for("frac_cpu", t._dtype)
    return F.unary("frac", t)


# -- logical ops (no graph) ----------------------------------------------------------------------
def _logical(name: str, fn: Any) -> Any:
    def f(input: Tensor, other: Any) -> Tensor:
        other = _tensor_arg(f"logical_{name}", "other", 2, other)
        F._check_broadcast(input, other)
        return Tensor._make(np.asarray(fn(input._data, other._data)), dt.bool_)
    f.__name__ = f"logical_{name}"
    return f


logical_and = _logical("and", np.logical_and)
logical_or = _logical("or", np.logical_or)
logical_xor = _logical("xor", np.logical_xor)


def logical_not(input: Tensor) -> Tensor:
    return Tensor._make(np.logical_not(input._data), dt.bool_)


def _logical_(fn: Any) -> Any:
    def m(self: Tensor, other: Any = None) -> Tensor:
        out = fn(self) if other is None else fn(self, other)
        if out._data.shape != self._data.shape:
            F._check_output(self._data.shape, out._data.shape)
        return _write(self, out)
    return m


def _write(self: Tensor, out: Tensor) -> Tensor:
    """The result of a logical op written into ``self`` (no graph: bools carry none)."""
    from .indexing import copy_
    return copy_(self, out)


def _unary_method(key: str) -> Any:
    def m(self: Tensor) -> Tensor:
        return F.unary(key, self)
    m.__name__ = key
    return m


def _unary_method_(key: str) -> Any:
    def m(self: Tensor) -> Tensor:
        return F.unary_(key, self)
    m.__name__ = key + "_"
    return m


METHODS: dict[str, Any] = {
    "addcmul": addcmul, "addcdiv": addcdiv, "addcmul_": _addc_("addcmul"),
    "addcdiv_": _addc_("addcdiv"), "lerp": lerp, "lerp_": _lerp_,
    "xlogy": xlogy, "xlogy_": lambda s, o: F._quiet(apply_inplace)(
        TABLE["xlogy_scalar"], s, (), {"other": o}) if not isinstance(o, Tensor)
    else _binary_("xlogy")(s, o),
    "hypot": hypot, "hypot_": _binary_("hypot"), "logaddexp": logaddexp,
    "logaddexp2": logaddexp2, "heaviside": heaviside,
    "polygamma": lambda s, n: polygamma(n, s),
    "polygamma_": lambda s, n: F.unary_("polygamma", s, n=n),
    "frac": _frac, "frac_": _unary_method_("frac"),
    "nan_to_num": nan_to_num, "nan_to_num_": _nan_to_num_,
    "logit_": lambda s, eps=None: F.unary_("logit", s, eps=eps),
    "square_": lambda s: s.pow_(2),
    "hardshrink": lambda s, lambd=0.5: apply(TABLE["hardshrink"], (s,), {"lambd": lambd},
                                             dtype=s._dtype),
    "logical_and": logical_and, "logical_or": logical_or, "logical_xor": logical_xor,
    "logical_not": logical_not,
    "logical_and_": _logical_(logical_and), "logical_or_": _logical_(logical_or),
    "logical_xor_": _logical_(logical_xor), "logical_not_": _logical_(logical_not),
}
for _k in UNARY:
    METHODS[_k] = _unary_method(_k)
    METHODS[_k + "_"] = _unary_method_(_k)
