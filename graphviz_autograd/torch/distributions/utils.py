"""``torch.distributions.utils``: broadcasting parameters, logits and probabilities, and the
lazily computed attributes the distributions share."""

from __future__ import annotations

from numbers import Number
from typing import Any

from ... import torch as _torch_module
from ...engine.tensor import Size, Tensor

__all__ = ["broadcast_all", "logits_to_probs", "clamp_probs", "probs_to_logits",
           "lazy_property", "euler_constant", "tril_matrix_to_vec", "vec_to_tril_matrix"]

euler_constant = 0.57721566490153286060
# NB: typed loosely: most of the engine's torch functions are made in a loop
torch: Any = _torch_module


def broadcast_all(*values: Any) -> tuple[Tensor, ...]:
    """The values as tensors of one shape: numbers become tensors of the first tensor's dtype
    (the default dtype if none), then all are broadcast."""
    if not all(isinstance(v, (Tensor, Number)) for v in values):
        raise ValueError("Input arguments must all be instances of Number, torch.Tensor or "
                         "objects implementing __torch_function__.")
    if not all(isinstance(v, Tensor) for v in values):
        dtype = next((v.dtype for v in values if isinstance(v, Tensor)),
                     torch.get_default_dtype())
        values = tuple(v if isinstance(v, Tensor) else torch.tensor(v, dtype=dtype)
                       for v in values)
    return tuple(torch.broadcast_tensors(*values))


def _standard_normal(shape: Any, dtype: Any, device: Any = None) -> Tensor:
    return torch.empty(Size(shape), dtype=dtype).normal_()


def _sum_rightmost(value: Tensor, dim: int) -> Tensor:
    """``value`` summed over its ``dim`` rightmost dims (one reshape, one sum)."""
    if dim == 0:
        return value
    return value.reshape((*tuple(value.shape[:-dim]), -1)).sum(-1)


def logits_to_probs(logits: Tensor, is_binary: bool = False) -> Tensor:
    if is_binary:
        return torch.sigmoid(logits)
    return torch.nn.functional.softmax(logits, dim=-1)


def clamp_probs(probs: Tensor) -> Tensor:
    eps = torch.finfo(probs.dtype).eps
    return probs.clamp(min=eps, max=1 - eps)


def probs_to_logits(probs: Tensor, is_binary: bool = False) -> Tensor:
    clamped = clamp_probs(probs)
    if is_binary:
        return torch.log(clamped) - torch.log1p(-clamped)
    return torch.log(clamped)


class lazy_property:  # noqa: N801 -- PyTorch's name
    """An attribute computed (with grad enabled) on first use and then kept on the instance."""

    def __init__(self, wrapped: Any) -> None:
        self.wrapped = wrapped
        self.__name__ = wrapped.__name__
        self.__doc__ = wrapped.__doc__

    def __get__(self, instance: Any, owner: Any = None) -> Any:
        if instance is None:
            return self
        with torch.enable_grad():
            value = self.wrapped(instance)
        setattr(instance, self.wrapped.__name__, value)
        return value


class BinaryParams:
    """``probs`` and ``logits`` of a distribution over a binary outcome, each derived lazily
    from the one given (``_param``), as PyTorch's Bernoulli-like classes define them."""

    _param: Tensor

    @lazy_property
    def logits(self) -> Tensor:
        return probs_to_logits(self.probs, is_binary=True)

    @lazy_property
    def probs(self) -> Tensor:
        return logits_to_probs(self.logits, is_binary=True)

    @property
    def param_shape(self) -> Size:
        return self._param.size()

    def _set_counted(self, total_count: Any, probs: Any, logits: Any) -> Tensor:
        """A count and one of probs or logits (Binomial, NegativeBinomial), broadcast
        together; returns the parameter given."""
        if (probs is None) == (logits is None):
            raise ValueError("Either `probs` or `logits` must be specified, but not both.")
        count, param = broadcast_all(total_count, probs if probs is not None else logits)
        self.total_count = count.type_as(param)
        if probs is not None:
            self.probs = param
        else:
            self.logits = param
        self._param = param
        return param

    def _expand_counted(self, cls: Any, batch_shape: Any, instance: Any) -> Any:
        new = self._expanded(cls, batch_shape,  # type: ignore[attr-defined]
                             ("total_count", "probs", "logits"), instance)
        new._param = new.__dict__["logits" if "logits" in self.__dict__ else "probs"]
        return new


def tril_matrix_to_vec(mat: Tensor, diag: int = 0) -> Tensor:
    """The lower triangle (from diagonal ``diag``) of each matrix, row by row."""
    n = mat.shape[-1]
    if diag < -n or diag >= n:
        raise ValueError(f"diag ({diag}) provided is outside [{-n}, {n - 1}].")
    arange = torch.arange(n)
    return mat[..., arange < arange.view(-1, 1) + (diag + 1)]


def vec_to_tril_matrix(vec: Tensor, diag: int = 0) -> Tensor:
    """The inverse of ``tril_matrix_to_vec``: a square matrix, zero above diagonal ``diag``."""
    n = (-(1 + 2 * diag) + ((1 + 2 * diag) ** 2 + 8 * vec.shape[-1]
                            + 4 * abs(diag) * (diag + 1)) ** 0.5) / 2
    eps = torch.finfo(vec.dtype).eps
    if round(n) - n > eps:
        raise ValueError(f"The size of last dimension is {vec.shape[-1]} which cannot be "
                         "expressed as the lower triangular part of a square D x D matrix.")
    size = round(n)
    mat = vec.new_zeros((*vec.shape[:-1], size, size))
    arange = torch.arange(size)
    mat[..., arange < arange.view(-1, 1) + (diag + 1)] = vec
    return mat
