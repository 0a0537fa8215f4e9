"""``torch.*`` names for the engine's creation, search, comparison and predicate helpers
(``logspace``, ``unique``, ``searchsorted``, ``greater``, ``bitwise_and``, ``is_nonzero``, ...),
and PyTorch's constants (``torch.pi``, ``torch.inf``, ...)."""

from __future__ import annotations

import math
from typing import Any

from ..engine import functional as _F
from ..engine import predicates as _P
from ..engine.creation_extra import (
    asarray,
    empty_strided,
    logspace,
    poisson,
    randint_like,
    scalar_tensor,
    tril_indices,
    triu_indices,
    vander,
)
from ..engine.creation_extra import range_ as range
from ..engine.searching import (
    bucketize,
    histc,
    histogram,
    isin,
    searchsorted,
    unique,
    unique_consecutive,
    unravel_index,
)
from ..engine.tensor import Tensor

__all__ = ["logspace", "tril_indices", "triu_indices", "scalar_tensor", "asarray",
           "randint_like", "empty_strided", "range", "vander", "poisson", "unique",
           "unique_consecutive", "searchsorted", "bucketize", "isin", "unravel_index", "histc",
           "histogram", "greater", "greater_equal", "less", "less_equal", "not_equal",
           "bitwise_and", "bitwise_or", "bitwise_xor", "bitwise_left_shift",
           "bitwise_right_shift", "isneginf", "isposinf", "isreal", "is_same_size", "is_signed",
           "is_complex", "is_floating_point", "is_conj", "is_neg", "is_inference", "pi", "e",
           "inf", "nan", "newaxis"]

pi, e, inf, nan, newaxis = math.pi, math.e, math.inf, math.nan, None


def _tensor_first(name: str, method: str) -> Any:
    """A ``torch.<name>(input, other)`` whose first argument must be a tensor."""
    def f(input: Any, other: Any, *, out: Any = None) -> Any:
        if not isinstance(input, Tensor):
            raise TypeError(f"{name}() received an invalid combination of arguments - got "
                            f"({type(input).__name__}, "
                            f"{'Tensor' if isinstance(other, Tensor) else type(other).__name__}),"
                            " but expected one of:\n"
                            " * (Tensor input, Tensor other, *, Tensor out = None)\n"
                            " * (Tensor input, Number other, *, Tensor out = None)\n")
        return getattr(input, method)(other)
    f.__name__ = name
    return f


greater = _tensor_first("greater", "gt")
greater_equal = _tensor_first("greater_equal", "ge")
less = _tensor_first("less", "lt")
less_equal = _tensor_first("less_equal", "le")
not_equal = _tensor_first("not_equal", "ne")


def _bitwise(name: str) -> Any:
    def f(input: Any, other: Any) -> Tensor:
        return _F.bitwise(name, input, other)
    f.__name__ = f"bitwise_{name}"
    return f


bitwise_and, bitwise_or, bitwise_xor = (_bitwise(k) for k in ("and", "or", "xor"))
bitwise_left_shift, bitwise_right_shift = _bitwise("lshift"), _bitwise("rshift")


def isneginf(input: Tensor) -> Tensor:
    return _P.METHODS["isneginf"](input)


def isposinf(input: Tensor) -> Tensor:
    return _P.METHODS["isposinf"](input)


def isreal(input: Tensor) -> Tensor:
    return _P.METHODS["isreal"](input)


def is_same_size(input: Tensor, other: Tensor) -> bool:
    return input._data.shape == other._data.shape


def is_signed(input: Tensor) -> bool:
    return input._dtype.is_signed


def is_complex(input: Tensor) -> bool:
    return False


def is_floating_point(input: Tensor) -> bool:
    return input._dtype.is_floating_point


def is_conj(input: Tensor) -> bool:
    return False


def is_neg(input: Tensor) -> bool:
    return False


def is_inference(input: Tensor) -> bool:
    return input.is_inference()
