"""``torch.distributions.Bernoulli``: probs (or logits); samples through ``torch.bernoulli``,
log_prob and entropy through ``binary_cross_entropy_with_logits``."""

from __future__ import annotations

import math
from numbers import Number
from typing import Any

from ...engine.tensor import Size, Tensor
from ..nn.functional import binary_cross_entropy_with_logits
from . import constraints
from .distribution import ExponentialFamily
from .utils import (
    BinaryParams,
    broadcast_all,
    torch,
)

__all__ = ["Bernoulli"]


class Bernoulli(BinaryParams, ExponentialFamily):
    arg_constraints = {"probs": constraints.unit_interval, "logits": constraints.real}  # noqa: RUF012
    support = constraints.boolean
    has_enumerate_support = True
    _mean_carrier_measure = 0

    def __init__(self, probs: Any = None, logits: Any = None,
                 validate_args: bool | None = None) -> None:
        if (probs is None) == (logits is None):
            raise ValueError("Either `probs` or `logits` must be specified, but not both.")
        given = probs if probs is not None else logits
        (param,) = broadcast_all(given)
        if probs is not None:
            self.probs = param
        else:
            self.logits = param
        self._param = param
        super().__init__(Size() if isinstance(given, Number) else param.size(),
                         validate_args=validate_args)

    def expand(self, batch_shape: Any, _instance: Any = None) -> Bernoulli:
        new = self._expanded(Bernoulli, batch_shape, ("probs", "logits"), _instance)
        new._param = new.__dict__["logits" if "logits" in self.__dict__ else "probs"]
        return new

    def _new(self, *args: Any, **kwargs: Any) -> Tensor:
        return self._param.new(*args, **kwargs)

    @property
    def mean(self) -> Tensor:
        return self.probs

    @property
    def mode(self) -> Tensor:
        mode = (self.probs >= 0.5).to(self.probs.dtype)
        mode[self.probs == 0.5] = math.nan
        return mode

    @property
    def variance(self) -> Tensor:
        return self.probs * (1 - self.probs)

    def sample(self, sample_shape: Any = ()) -> Tensor:
        shape = self._extended_shape(sample_shape)
        with torch.no_grad():
            return torch.bernoulli(self.probs.expand(shape))

    def log_prob(self, value: Any) -> Tensor:
        if self._validate_args:
            self._validate_sample(value)
        logits, value = broadcast_all(self.logits, value)
        return -binary_cross_entropy_with_logits(logits, value, reduction="none")

    def entropy(self) -> Tensor:
        return binary_cross_entropy_with_logits(self.logits, self.probs, reduction="none")

    def enumerate_support(self, expand: bool = True) -> Tensor:
        values = torch.arange(2, dtype=self._param.dtype)
        values = values.view((-1,) + (1,) * len(self._batch_shape))
        if expand:
            values = values.expand((-1, *self._batch_shape))
        return values

    @property
    def _natural_params(self) -> tuple[Tensor]:
        return (torch.logit(self.probs),)

    def _log_normalizer(self, x: Any) -> Tensor:
        return torch.log1p(torch.exp(x))
