"""Tensor methods and Python operators, bound onto ``Tensor`` from the functional layer."""

from __future__ import annotations

from types import FunctionType
from typing import Any

import numpy as np

from . import (
    conj_views,
    copies,
    creation_extra,
    events,
    factories,
    indexing,
    linalg,
    linalg_more,
    mathfns,
    misc_more,
    names_extra,
    ordering,
    pointwise_extra,
    predicates,
    products,
    random_draws,
    reducing_extra,
    sampling,
    scattering,
    searching,
    selecting,
    signatures,
    special_more,
    stacking,
    tensor_memory,
)
from . import dtypes as dt
from . import functional as F
from . import messages as msg
from . import random as rnd
from .autocast import fp32 as _amp_fp32
from .autocast import state as _amp
from .autograd import apply_inplace, check_inplace
from .bfloat16 import to_bfloat16, to_half
from .device import device
from .grad_mode import is_grad_enabled
from .grad_mode import state as grad_state
from .optable import TABLE
from .pre_write import WATCH as _WATCH
from .pre_write import before_write
from .tensor import Tensor

_UNSET: Any = object()          # an argument not given (where PyTorch tells it from None)
_UNARY = ("exp", "log", "sin", "cos", "tan", "tanh", "sigmoid", "sqrt", "rsqrt", "reciprocal",
          "log1p", "expm1", "log2", "log10", "exp2", "sinh", "cosh", "atan", "asin", "acos",
          "asinh", "acosh", "atanh")
_UNARY_SAME = ("neg", "abs", "relu", "sign", "sgn", "floor", "ceil", "round", "trunc")


# NB: the methods of no arguments (exp, tanh, relu_, ...) check their own: they are common in
# a training step, where a checking wrapper's frame would cost
_SELF_CHECKED: set[Any] = set()


def _no_arguments(key: str, args: tuple[Any, ...], kw: dict[str, Any]) -> None:
    signatures.fail(key, args, kw, method=True)
    raise TypeError(f"{key}() takes no arguments")


def _method(key: str, floating: bool) -> Any:
    def m(self: Tensor, *args: Any, **kw: Any) -> Tensor:
        if args or kw:
            _no_arguments(key, args, kw)
        return F.unary(key, self, floating=floating)
    m.__name__ = key
    _SELF_CHECKED.add(m)
    return m


def _checked(method: Any, key: str) -> Any:
    def m(self: Tensor, *args: Any, **kw: Any) -> Tensor:
        if args or kw:
            _no_arguments(method.__name__, args, kw)
        F.no_bool(self, key)
        return method(self)
    m.__name__ = method.__name__
    _SELF_CHECKED.add(m)
    return m


def _method_(key: str) -> Any:
    def m(self: Tensor, *args: Any, **kw: Any) -> Tensor:
        if args or kw:
            _no_arguments(key + "_", args, kw)
        return F.unary_(key, self)
    m.__name__ = key + "_"
    _SELF_CHECKED.add(m)
    return m


def _to(self: Tensor, *args: Any, **kw: Any) -> Tensor:
    dtype = kw.get("dtype")
    for a in (*args, kw.get("device")):
        if isinstance(a, dt.DType):
            dtype = a
        elif isinstance(a, Tensor):
            dtype = a._dtype
        elif isinstance(a, str | int) and not isinstance(a, bool):
            device(a)                   # NB: the engine computes on the CPU whatever the device
    if dtype is None:
        return self
    out = F.to_dtype(self, dtype)
    if kw.get("copy") and out is self:
        return F.clone(self)
    return out


def _type_conv(d: dt.DType) -> Any:
    def conv(self: Tensor, *args: Any, **kw: Any) -> Tensor:
        return F.to_dtype(self, d)
    return conv


def _sum(self: Tensor, dim: Any = None, keepdim: bool = False, dtype: Any = None) -> Tensor:
    return F.sum(self, dim, keepdim, dtype)


def _mean(self: Tensor, dim: Any = None, keepdim: bool = False, dtype: Any = None) -> Tensor:
    return F.mean(self, dim, keepdim, dtype)


def _max(self: Tensor, dim: Any = None, keepdim: bool = False) -> Any:
    return F.max_min("max", self, dim, keepdim)


def _min(self: Tensor, dim: Any = None, keepdim: bool = False) -> Any:
    return F.max_min("min", self, dim, keepdim)


def _var_std(key: str) -> Any:
    def m(self: Tensor, dim: Any = _UNSET, unbiased: Any = None, keepdim: Any = _UNSET,
          correction: Any = None) -> Tensor:
        if isinstance(dim, bool):
            unbiased, dim = dim, None
        if correction is None and unbiased is not None:
            correction = 1 if unbiased else 0
        if correction is None and (dim is not _UNSET or keepdim is not _UNSET):
            # NB: PyTorch's node keeps None only for a bare var() / std()
            correction = 1
        dim = None if dim is _UNSET else dim
        keepdim = False if keepdim is _UNSET else keepdim
        if not self._dtype.is_floating_point:
            raise RuntimeError("std and var only support floating point and complex dtypes")
        dims = F.reduce_dims(dim, self._data.ndim)
        shape = self._data.shape
        factor = self._data.size if not dims or not shape else int(
            np.prod([shape[d] for d in dims]))
        if factor - (1 if correction is None else correction) <= 0:
            msg.warn_user(f"{key}(): degrees of freedom is <= 0. Correction should be strictly "
                          "less than the reduction factor (input numel divided by output "
                          "numel).", UserWarning)
        return F.as_given(F.apply(TABLE[key], (self,), {"dim": dims, "correction": correction,
                                                        "keepdim": keepdim}, dtype=self._dtype),
                          dim=F.given_dims(dim))
    return m


def _norm(self: Tensor, p: Any = 2, dim: Any = None, keepdim: bool = False) -> Tensor:
    if not self._dtype.is_floating_point:
        # NB: PyTorch's vector_norm checks the dtype first (an integer norm was truncated)
        raise RuntimeError("linalg.vector_norm: Expected a floating point or complex tensor as "
                           f"input. Got {msg.SCALAR_NAME.get(self._dtype.name, self._dtype.name)}")
    p = 2 if p in (None, "fro") else p
    dims = F.reduce_dims(dim, self._data.ndim)
    shape = self._data.shape
    if p in (float("inf"), -float("inf")) and self._data.size == 0 and (
            not dims or any(shape[d] == 0 for d in dims)):
        raise RuntimeError(f"linalg.vector_norm cannot compute the {p} norm on an empty tensor "
                           "because the operation does not have an identity")
    return F.as_given(F.apply(TABLE["norm"], (self,), {"ord": p, "dim": dims,
                                                      "keepdim": keepdim}, dtype=self._dtype),
                      dim=F.given_dims(dim))


def _logsumexp(self: Tensor, dim: Any = None, keepdim: bool = False) -> Tensor:
    if dim is None:
        raise TypeError('logsumexp() missing 1 required positional arguments: "dim"')
    if not keepdim and self._data.ndim and isinstance(dim, tuple | list) and not dim:
        # NB: PyTorch's dim=[] reduces every dim, then fails to fit its own output
        raise RuntimeError("output with shape [] doesn't match the broadcast shape "
                           f"[{', '.join(['1'] * self._data.ndim)}]")
    return F.as_given(F.apply(TABLE["logsumexp"], (self,),
                              {"dim": F.reduce_dims(dim, self._data.ndim), "keepdim": keepdim},
                              dtype=F._float(self._dtype)), dim=F.given_dims(dim))


def _prod(self: Tensor, dim: Any = None, keepdim: bool = False, dtype: Any = None) -> Tensor:
    if _amp.dtype is not None:
        return _amp_fp32(_prod, self, dim, keepdim, dtype)
    if dim is None:
        return F.apply(TABLE["prod"], (self,), dtype=self._dtype)
    return F.as_given(F.apply(TABLE["prod_dim"], (self,), {
        "dim": F._dim(dim, self._data.ndim), "keepdim": keepdim}, dtype=self._dtype), dim=dim)


def _amax(self: Tensor, dim: Any = (), keepdim: bool = False) -> Tensor:
    dims = F.reduce_dims(dim, self._data.ndim)
    shape = self._data.shape
    if self._data.size == 0:
        if not dims:
            raise RuntimeError("amax(): Expected reduction dim to be specified for input.numel() "
                               "== 0. Specify the reduction dim with the 'dim' argument.")
        given = (dim,) if isinstance(dim, int) else tuple(dim)
        for raw, d in zip(given, dims, strict=True):
            if shape and shape[d] == 0:
                raise IndexError(f"amax(): Expected reduction dim {raw} to have non-zero size.")
    return F.as_given(F.apply(TABLE["amax"], (self,), {"dim": dims, "keepdim": keepdim}),
                      dim=F.given_dims(dim))


def _cumsum(self: Tensor, dim: int, dtype: Any = None) -> Tensor:
    return F.as_given(F.apply(TABLE["cumsum"], (self,), {"dim": F._dim(dim, self._data.ndim)}),
                      dim=dim)


def _clamp_(self: Tensor, min: Any = None, max: Any = None) -> Tensor:
    F.check_clamp_inplace(self, min, max)
    kw = {k: v for k, v in (("min", min), ("max", max)) if v is not None}
    return apply_inplace(TABLE["clamp"], self, (), kw)


def _clamp_one(side: str) -> Any:
    """``clamp_min`` / ``clamp_max``: their own nodes (ClampMinBackward0), unlike clamp(min=)."""
    def m(self: Tensor, bound: Any) -> Tensor:
        dtype = self._dtype if self._dtype.is_floating_point else F.clamp_dtype(self, bound)
        t = self if dtype is self._dtype else F.to_dtype(self, dtype)
        return F.apply(TABLE["clamp_" + side], (t,), {side: bound}, dtype=dtype)
    return m


def _clamp_one_(side: str) -> Any:
    def m(self: Tensor, bound: Any) -> Tensor:
        F.check_clamp_inplace(self, bound)
        return apply_inplace(TABLE["clamp_" + side], self, (), {side: bound})
    return m


def _pow_(self: Tensor, e: Any) -> Tensor:
    if isinstance(e, Tensor):
        return F.binary_("pow_tensor", self, e)
    return F._quiet(apply_inplace)(TABLE["pow"], self, (), {"exponent": e})


def _fill_(self: Tensor, value: Any) -> Tensor:
    if isinstance(value, Tensor):
        return apply_inplace(TABLE["fill_tensor"], self, (value,))
    return apply_inplace(TABLE["fill"], self, (), {"value": value})


def _masked_fill_(self: Tensor, mask: Tensor, value: Any) -> Tensor:
    F.check_mask_inplace(self, mask)
    if isinstance(value, Tensor):
        return apply_inplace(TABLE["masked_fill_tensor"], self, (value,), {"mask": mask})
    return apply_inplace(TABLE["masked_fill"], self, (), {"mask": mask, "value": value})


def _random_(fill: Any) -> Any:
    """In-place draws (uniform_, normal_, random_, bernoulli_): plain writes that bump the
    version, from the ``generator=`` keyword's generator or the default one."""
    def m(self: Tensor, *args: Any, generator: Any = None, **kw: Any) -> Tensor:
        check_inplace(self)
        if not self._data.flags.writeable:        # an expanded view: elements share memory
            raise RuntimeError(msg.OVERLAPPING_WRITE)
        p = args[0] if args else kw.get("p")
        p = p if isinstance(p, Tensor) else None        # bernoulli_(Tensor p)
        if (is_grad_enabled() and (self.requires_grad or (p is not None and p.requires_grad))) \
                or grad_state.dual:
            # NB: drawn into a buffer of self's layout (the same order of draws), then written
            # through the table, so the node is PyTorch's (NormalBackward0, ...)
            buf = Tensor._make(np.empty_like(self._data), self._dtype)
            fill(rnd.resolve(generator), buf, *args, **kw)
            if p is not None:
                return apply_inplace(TABLE["bernoulli_tensor"], self, (p,),
                                     {"values": buf._data, "p_shape": tuple(p.shape)})
            return apply_inplace(TABLE[_random_key(fill, args, kw)], self, (),
                                 {"values": buf._data})
        if _WATCH:
            before_write(self)
        fill(rnd.resolve(generator), self, *args, **kw)
        self._vc.v += 1
        if events.listeners and self._vc.saves:
            events.emit("tensor_modified", self, None)
        return self
    return m


def _random_key(fill: Any, args: tuple[Any, ...], kw: dict[str, Any]) -> str:
    """The table op of an in-place draw (``random_`` has one per form)."""
    if fill is not _random_int:
        return {_uniform: "uniform_", _normal: "normal_", _bernoulli: "bernoulli_",
                random_draws.cauchy_fill: "cauchy_", random_draws.geometric_fill: "geometric_",
                random_draws.log_normal_fill: "log_normal_"}[fill]
    given = len(args) + len(kw)
    return ("random_", "random_to", "random_from_to")[min(given, 2)]


def _uniform(g: rnd.Generator, t: Tensor, a: float = 0.0, b: float = 1.0) -> None:
    rnd.check_floating(t._dtype, "check_uniform_bounds")
    if a > b:
        raise RuntimeError(f"uniform_ expects to return a [from, to) range, but found "
                           f"from={a:g} > to={b:g}")
    rnd.fill(t._data, rnd.uniform(g, t._data.size, t._dtype.np, a, b))


def _normal(g: rnd.Generator, t: Tensor, mean: float = 0.0, std: float = 1.0) -> None:
    if std < 0:
        raise RuntimeError(f"normal expects std >= 0.0, but found std {std:g}")
    rnd.check_floating(t._dtype, "normal_kernel_cpu")
    rnd.normal(g, t._data, mean, std)


def _random_int(g: rnd.Generator, t: Tensor, *args: Any, **kw: Any) -> None:
    """``random_()``, ``random_(to)``, ``random_(from, to)`` (``to=None``: the dtype's top)."""
    n = t._data.size
    if "from" in kw and "to" not in kw and len(args) < 2:
        raise TypeError("random_() received an invalid combination of arguments - got "
                        "(from=int, ), but expected one of:\n"
                        " * (*, torch.Generator generator = None)\n"
                        " * (int from, int to, *, torch.Generator generator = None)\n"
                        " * (int to, *, torch.Generator generator = None)\n")
    if not args and not kw:
        values = rnd.random_full(g, n, t._dtype)
    else:
        if len(args) == 1 and "to" not in kw:
            low, high = kw.get("from", 0), args[0]
        else:
            low, high = args[0] if args else kw.get("from", 0), (
                args[1] if len(args) > 1 else kw.get("to"))
        if high is None:
            high = rnd.top(t._dtype) + 1
        values = rnd.random_from_to(g, n, t._dtype, int(low), int(high))
    rnd.fill(t._data, values)


def _bernoulli(g: rnd.Generator, t: Tensor, p: Any = 0.5) -> None:
    if isinstance(p, Tensor):
        random_draws.bernoulli_tensor_fill(g, t, p)
        return
    rnd.fill(t._data, rnd.bernoulli(g, t._data.size, float(p)).astype(t._dtype.np))


def _softmax(name: str, fn: Any) -> Any:
    def m(self: Tensor, *args: Any, dim: Any = None, dtype: Any = None) -> Tensor:
        if args:
            dim, *rest = args
            dtype = rest[0] if rest else dtype
        elif dim is None:
            raise TypeError(f'{name}() missing 1 required positional arguments: "dim"')
        return fn(self, dim, dtype)
    m.__name__ = name
    return m


def _new(fill: Any) -> Any:
    def m(self: Tensor, *size: Any, dtype: Any = None, requires_grad: bool = False,
          **_: Any) -> Tensor:
        d = dtype or self._dtype
        arr = fill(factories.checked_size(size), d.np)
        return Tensor._make(arr, d, requires_grad)
    return m


def _new_tensor(self: Tensor, data: Any, dtype: Any = None, requires_grad: bool = False,
                **_: Any) -> Tensor:
    d = dtype or self._dtype
    return Tensor._make(np.array(data, dtype=d.np), d, requires_grad)


def _new_full(self: Tensor, size: Any, value: Any, dtype: Any = None, **_: Any) -> Tensor:
    d = dtype or self._dtype
    return Tensor._make(np.full(tuple(size), value, dtype=d.np), d)


def _iop(key: str) -> Any:
    def m(self: Tensor, other: Any) -> Tensor:
        return F.binary_(key, self, other)
    return m


def _rounding_(key: str) -> Any:
    def m(self: Tensor, other: Any) -> Tensor:
        return F.rounding_(key, self, other)
    return m


def _add_(self: Tensor, other: Any, alpha: Any = 1) -> Tensor:
    return F.binary_("add", self, other, alpha=alpha)


def _sub_(self: Tensor, other: Any, alpha: Any = 1) -> Tensor:
    F.no_bool_sub(self, other)
    return F.binary_("sub", self, other, alpha=alpha)


def _div_(self: Tensor, other: Any, rounding_mode: str | None = None) -> Tensor:
    if rounding_mode is not None:
        return F.rounding_("div_mode", self, other, rounding_mode)
    return F._quiet(F.binary_)("div", self, other)


def _bitwise(name: str, reflected: bool) -> Any:
    def m(self: Tensor, other: Any) -> Tensor:
        return F.bitwise(name, other, self) if reflected else F.bitwise(name, self, other)
    return m


def _eq(self: Tensor, other: Any) -> Any:
    if other is None or isinstance(other, str):
        return False
    return F.compare(np.equal, self, other)


def _ne(self: Tensor, other: Any) -> Any:
    if other is None or isinstance(other, str):
        return True
    return F.compare(np.not_equal, self, other)


def _cmp(fn: Any) -> Any:
    def m(self: Tensor, other: Any) -> Any:
        if isinstance(other, str):
            return NotImplemented       # NB: Python's own TypeError, as PyTorch gives
        return F.compare(fn, self, other)
    return m


def _expand_as(self: Tensor, other: Tensor) -> Tensor:
    return F.expand(self, other._data.shape)


def _all(self: Tensor, dim: Any = None, keepdim: bool = False) -> Tensor:
    out = np.all(self._data) if dim is None else np.all(self._data, axis=dim, keepdims=keepdim)
    return Tensor._make(np.asarray(out), dt.bool_)


def _any(self: Tensor, dim: Any = None, keepdim: bool = False) -> Tensor:
    out = np.any(self._data) if dim is None else np.any(self._data, axis=dim, keepdims=keepdim)
    return Tensor._make(np.asarray(out), dt.bool_)


def _zero_(self: Tensor) -> Tensor:
    return apply_inplace(TABLE["zero"], self)


METHODS: dict[str, Any] = {
    # operators
    "__add__": F.add, "__radd__": F.radd, "__iadd__": _add_,
    "__sub__": F.sub, "__rsub__": F.rsub, "__isub__": _sub_,
    "__mul__": F.mul, "__rmul__": F.mul, "__imul__": _iop("mul"),
    "__truediv__": F.div, "__rtruediv__": F.rdiv, "__itruediv__": _div_,
    "__pow__": F.pow, "__rpow__": lambda s, o: F.pow(o, s), "__ipow__": _pow_,
    "__matmul__": F.matmul, "__rmatmul__": lambda s, o: F.matmul(o, s),
    "__neg__": F.neg, "__pos__": lambda s: s, "__abs__": lambda s: F.unary("abs", s, False),
    "__eq__": _eq, "__ne__": _ne, "__lt__": _cmp(np.less), "__le__": _cmp(np.less_equal),
    "__gt__": _cmp(np.greater), "__ge__": _cmp(np.greater_equal),
    **{f"__{k}__": _bitwise(k, False) for k in ("and", "or", "xor", "lshift", "rshift")},
    **{f"__r{k}__": _bitwise(k, True) for k in ("and", "or", "xor", "lshift", "rshift")},
    "__invert__": F.invert, "bitwise_not": F.invert,
    "bitwise_and": _bitwise("and", False), "bitwise_or": _bitwise("or", False),
    "bitwise_xor": _bitwise("xor", False),
    "__floordiv__": F.floor_divide, "__rfloordiv__": lambda s, o: F.floor_divide(o, s),
    "__ifloordiv__": _rounding_("floor_divide"), "floor_divide": F.floor_divide,
    "floor_divide_": _rounding_("floor_divide"),
    "__mod__": F.remainder, "__rmod__": lambda s, o: F.remainder(o, s), "remainder": F.remainder,
    "__imod__": _rounding_("remainder"), "remainder_": _rounding_("remainder"),
    "fmod": F.fmod, "fmod_": _rounding_("fmod"),
    "nonzero": F.nonzero, "argwhere": F.argwhere,
    "__getitem__": indexing.getitem, "__setitem__": indexing.setitem,
    # arithmetic
    "add": F.add, "sub": F.sub, "subtract": F.sub, "mul": F.mul, "multiply": F.mul,
    "div": F.div, "divide": F.div, "true_divide": F.div, "pow": F.pow,
    "square": lambda s: F.pow(s, 2), "matmul": F.matmul, "mm": F.mm, "mv": F.mv,
    "dot": F.dot, "bmm": F.bmm, "maximum": lambda s, o: F.binary("maximum", s, o),
    "atan2": lambda s, o: F.binary("atan2", s, o, floating=True),
    "minimum": lambda s, o: F.binary("minimum", s, o),
    "clamp": F.clamp, "clip": F.clamp, "clamp_min": _clamp_one("min"),
    "clamp_max": _clamp_one("max"), "where": lambda s, c, o: F.where(c, s, o),
    "eq": _eq, "ne": _ne, "lt": _cmp(np.less), "le": _cmp(np.less_equal),
    "gt": _cmp(np.greater), "ge": _cmp(np.greater_equal),
    "isnan": lambda s: Tensor._make(np.isnan(s._data), dt.bool_),
    "isinf": lambda s: Tensor._make(np.isinf(s._data), dt.bool_),
    "isfinite": lambda s: Tensor._make(np.isfinite(s._data), dt.bool_),
    "all": _all, "any": _any,
    # reductions
    "sum": _sum, "mean": _mean, "max": _max, "min": _min, "amax": _amax,
    "argmax": lambda s, dim=None, keepdim=False: F.arg_reduce(np.argmax, s, dim, keepdim),
    "argmin": lambda s, dim=None, keepdim=False: F.arg_reduce(np.argmin, s, dim, keepdim),
    "prod": _prod,
    "median": lambda s, dim=None, keepdim=False: F.apply(TABLE["median"], (s,), dtype=s._dtype)
    if dim is None else F.max_min("median", s, dim, keepdim),
    "var": _var_std("var"), "std": _var_std("std"), "norm": _norm,
    "logsumexp": _logsumexp, "cumsum": _cumsum,
    "softmax": _softmax("softmax", F.softmax), "log_softmax": _softmax("log_softmax",
                                                                       F.log_softmax),
    # shape
    "view": F.view, "view_as": lambda s, o: F.view(s, o._data.shape), "reshape": F.reshape,
    "reshape_as": lambda s, o: F.reshape(s, o._data.shape), "flatten": F.flatten,
    "transpose": F.transpose, "swapaxes": F.transpose, "t": F.t_, "permute": F.permute,
    "unsqueeze": F.unsqueeze, "squeeze": F.squeeze, "expand": F.expand, "expand_as": _expand_as,
    "repeat": F.repeat,
    "contiguous": lambda s, memory_format=None: F.contiguous(s),
    "clone": lambda s, memory_format=None: F.clone(s),
    "select": F.select, "narrow": F.narrow, "split": F.split, "chunk": F.chunk,
    "unsafe_chunk": F.unsafe_chunk, "unsafe_split": F.unsafe_split,
    "unbind": F.unbind, "flip": lambda s, *dims: F.as_given(F.apply(TABLE["flip"], (s,), {
        "dims": tuple(F._dim(d, s._data.ndim) for d in F._shape_args(dims))}),
        dims=tuple(F._shape_args(dims))),
    "gather": F.gather,
    "masked_fill": F.masked_fill,
    # dtype
    "to": _to, "float": _type_conv(dt.float32), "double": _type_conv(dt.float64),
    "half": to_half, "bfloat16": to_bfloat16,
    "long": _type_conv(dt.int64), "int": _type_conv(dt.int32),
    "bool": _type_conv(dt.bool_), "type_as": lambda s, o: F.to_dtype(s, o._dtype),
    "cpu": lambda s, *a, **k: s, "cuda": lambda s, *a, **k: s,
    # in place
    "add_": _add_, "sub_": _sub_, "mul_": _iop("mul"), "div_": _div_, "pow_": _pow_,
    "zero_": _zero_, "fill_": _fill_, "copy_": lambda s, src, non_blocking=False: indexing.copy_(
        s, src), "clamp_": _clamp_, "clamp_min_": _clamp_one_("min"),
    "clamp_max_": _clamp_one_("max"), "masked_fill_": _masked_fill_,
    "uniform_": _random_(_uniform), "normal_": _random_(_normal),
    "random_": _random_(_random_int), "bernoulli_": _random_(_bernoulli),
    "cauchy_": _random_(random_draws.cauchy_fill),
    "geometric_": _random_(random_draws.geometric_fill),
    "log_normal_": _random_(random_draws.log_normal_fill),
    "new_zeros": _new(np.zeros), "new_ones": _new(np.ones), "new_empty": _new(np.zeros),
    "new_tensor": _new_tensor, "new_full": _new_full,
    "logit": lambda s, eps=None: F.unary("logit", s, eps=eps),
}
METHODS.update(selecting.METHODS)
METHODS.update(ordering.METHODS)
METHODS.update(scattering.METHODS)
METHODS.update(reducing_extra.METHODS)
METHODS.update(sampling.METHODS)
METHODS.update(random_draws.METHODS)
METHODS.update(stacking.METHODS)
METHODS.update(pointwise_extra.METHODS)
METHODS.update(products.METHODS)
METHODS.update(linalg.METHODS)
METHODS.update(linalg_more.METHODS)
METHODS.update(predicates.METHODS)
METHODS.update(searching.METHODS)
METHODS.update(creation_extra.METHODS)
for _k in _UNARY:
    METHODS[_k] = _method(_k, True)
    METHODS[_k + "_"] = _method_(_k)
for _k in _UNARY_SAME:
    METHODS[_k] = _method(_k, False)
    METHODS[_k + "_"] = _method_(_k)
for _k in ("neg", "relu"):          # NB: not of a bool tensor
    METHODS[_k] = _checked(METHODS[_k], _k)
    METHODS[_k + "_"] = _checked(METHODS[_k + "_"], _k)
METHODS.update(mathfns.METHODS)
METHODS.update(special_more.METHODS)
METHODS.update(misc_more.METHODS)
METHODS.update(copies.METHODS)
METHODS.update(tensor_memory.METHODS)
METHODS.update(conj_views.METHODS)
METHODS.update(names_extra.METHODS)

# NB: a binary operator with an operand it does not take (a tuple, a list, a string, None)
# gives Python NotImplemented, as PyTorch's do: Python then tries the other side (a list
# repeated by a one-element integer tensor) or raises its own words ("unsupported operand
# type(s) for +: 'Tensor' and 'tuple'")
_OPERANDS = (Tensor, bool, int, float, np.ndarray, np.generic)
_OPERATORS = {f"__{r}{k}__" for r in ("", "r") for k in (
    "add", "sub", "mul", "truediv", "floordiv", "mod", "pow", "matmul", "and", "or", "xor",
    "lshift", "rshift")} | {f"__{k}__" for k in ("eq", "ne", "lt", "le", "gt", "ge")}


def _operator(fn: Any) -> Any:
    def op(self: Tensor, other: Any) -> Any:
        if type(other) is not Tensor and not isinstance(other, _OPERANDS):
            return NotImplemented
        return fn(self, other)
    op.__name__ = getattr(fn, "__name__", "op")
    return op


for _name in _OPERATORS & METHODS.keys():
    METHODS[_name] = _operator(METHODS[_name])



def _compared(fn: Any) -> Any:
    """``t.eq(other)`` and the like: unlike ``==``, they refuse what is not a number or tensor."""
    def m(self: Tensor, other: Any) -> Any:
        if not isinstance(other, _OPERANDS):
            raise TypeError(f"{fn.__name__}() takes a tensor or a number")
        return fn(self, other)
    m.__name__ = fn.__name__
    return m


for _name in ("eq", "ne", "lt", "le", "gt", "ge"):
    METHODS[_name] = _compared(METHODS[_name])

# the implementations as they are (torch.* calls them, with its own arguments' checks); the
# methods check their arguments against PyTorch's signatures once a call has failed
IMPLEMENTATIONS = dict(METHODS)
for _name in (signatures.names(method=True) & METHODS.keys()) - _OPERATORS:
    if METHODS[_name] not in _SELF_CHECKED:
        METHODS[_name] = signatures.guard(METHODS[_name], _name, method=True)

for _name, _fn in METHODS.items():
    setattr(Tensor, _name, _fn)
# the methods the class defines itself (dim, item, detach, ...) are checked alike
for _name in signatures.names(method=True) - METHODS.keys() - _OPERATORS:
    if isinstance(Tensor.__dict__.get(_name), FunctionType):
        setattr(Tensor, _name, signatures.guard(Tensor.__dict__[_name], _name, method=True))
Tensor.T = property(F.numpy_T)  # type: ignore[attr-defined]

