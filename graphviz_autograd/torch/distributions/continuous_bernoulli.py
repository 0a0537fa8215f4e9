"""``torch.distributions.ContinuousBernoulli``: the continuous relaxation on [0, 1] whose
normaliser has a closed form (a Taylor series near probs = 0.5); samples by its inverse cdf."""

from __future__ import annotations

import math
from numbers import Number
from typing import Any

from ...engine.tensor import Size, Tensor
from ..nn.functional import binary_cross_entropy_with_logits
from . import constraints
from .distribution import ExponentialFamily
from .utils import (
    broadcast_all,
    clamp_probs,
    lazy_property,
    logits_to_probs,
    probs_to_logits,
    torch,
)

__all__ = ["ContinuousBernoulli"]


class ContinuousBernoulli(ExponentialFamily):
    arg_constraints = {"probs": constraints.unit_interval,  # noqa: RUF012
                       "logits": constraints.real}
    support = constraints.unit_interval
    _mean_carrier_measure = 0
    has_rsample = True

    def __init__(self, probs: Any = None, logits: Any = None,
                 lims: tuple[float, float] = (0.499, 0.501),
                 validate_args: bool | None = None) -> None:
        if (probs is None) == (logits is None):
            raise ValueError("Either `probs` or `logits` must be specified, but not both.")
        given = probs if probs is not None else logits
        (param,) = broadcast_all(given)
        if probs is not None:
            if validate_args is not None and not bool(
                    self.arg_constraints["probs"].check(param).all()):
                raise ValueError("The parameter probs has invalid values")
            self.probs = clamp_probs(param)
            self._param = self.probs
        else:
            self.logits = param
            self._param = param
        self._lims = lims
        super().__init__(Size() if isinstance(given, Number) else self._param.size(),
                         validate_args=validate_args)

    def expand(self, batch_shape: Any, _instance: Any = None) -> ContinuousBernoulli:
        new = self._expanded(ContinuousBernoulli, batch_shape, ("probs", "logits"), _instance)
        new._lims = self._lims
        new._param = new.__dict__["logits" if "logits" in self.__dict__ else "probs"]
        return new

    def _new(self, *args: Any, **kwargs: Any) -> Tensor:
        return self._param.new(*args, **kwargs)

    def _outside_unstable_region(self) -> Tensor:
        return torch.max(torch.le(self.probs, self._lims[0]),
                         torch.gt(self.probs, self._lims[1]))

    def _cut_probs(self) -> Tensor:
        return torch.where(self._outside_unstable_region(), self.probs,
                           self._lims[0] * torch.ones_like(self.probs))

    def _cont_bern_log_norm(self) -> Tensor:
        cut = self._cut_probs()
        below_half = torch.where(torch.le(cut, 0.5), cut, torch.zeros_like(cut))
        above_half = torch.where(torch.ge(cut, 0.5), cut, torch.ones_like(cut))
        log_norm = torch.log(torch.abs(torch.log1p(-cut) - torch.log(cut))) - torch.where(
            torch.le(cut, 0.5), torch.log1p(-2.0 * below_half),
            torch.log(2.0 * above_half - 1.0))
        x = torch.pow(self.probs - 0.5, 2)
        taylor = math.log(2.0) + (4.0 / 3.0 + 104.0 / 45.0 * x) * x
        return torch.where(self._outside_unstable_region(), log_norm, taylor)

    @property
    def mean(self) -> Tensor:
        cut = self._cut_probs()
        mus = cut / (2.0 * cut - 1.0) + 1.0 / (torch.log1p(-cut) - torch.log(cut))
        x = self.probs - 0.5
        taylor = 0.5 + (1.0 / 3.0 + 16.0 / 45.0 * torch.pow(x, 2)) * x
        return torch.where(self._outside_unstable_region(), mus, taylor)

    @property
    def stddev(self) -> Tensor:
        return torch.sqrt(self.variance)

    @property
    def variance(self) -> Tensor:
        cut = self._cut_probs()
        variances = (cut * (cut - 1.0) / torch.pow(1.0 - 2.0 * cut, 2)
                     + 1.0 / torch.pow(torch.log1p(-cut) - torch.log(cut), 2))
        x = torch.pow(self.probs - 0.5, 2)
        taylor = 1.0 / 12.0 - (1.0 / 15.0 - 128.0 / 945.0 * x) * x
        return torch.where(self._outside_unstable_region(), variances, taylor)

    @lazy_property
    def logits(self) -> Tensor:
        return probs_to_logits(self.probs, is_binary=True)

    @lazy_property
    def probs(self) -> Tensor:
        return clamp_probs(logits_to_probs(self.logits, is_binary=True))

    @property
    def param_shape(self) -> Size:
        return self._param.size()

    def sample(self, sample_shape: Any = ()) -> Tensor:
        u = torch.rand(self._extended_shape(sample_shape), dtype=self.probs.dtype)
        with torch.no_grad():
            return self.icdf(u)

    def rsample(self, sample_shape: Any = ()) -> Tensor:
        u = torch.rand(self._extended_shape(sample_shape), dtype=self.probs.dtype)
        return self.icdf(u)

    def log_prob(self, value: Any) -> Tensor:
        if self._validate_args:
            self._validate_sample(value)
        logits, value = broadcast_all(self.logits, value)
        return (-binary_cross_entropy_with_logits(logits, value, reduction="none")
                + self._cont_bern_log_norm())

    def cdf(self, value: Any) -> Tensor:
        if self._validate_args:
            self._validate_sample(value)
        cut = self._cut_probs()
        cdfs = ((torch.pow(cut, value) * torch.pow(1.0 - cut, 1.0 - value) + cut - 1.0)
                / (2.0 * cut - 1.0))
        unbounded = torch.where(self._outside_unstable_region(), cdfs, value)
        return torch.where(torch.le(value, 0.0), torch.zeros_like(value),
                           torch.where(torch.ge(value, 1.0), torch.ones_like(value),
                                       unbounded))

    def icdf(self, value: Any) -> Tensor:
        cut = self._cut_probs()
        return torch.where(
            self._outside_unstable_region(),
            (torch.log1p(-cut + value * (2.0 * cut - 1.0)) - torch.log1p(-cut))
            / (torch.log(cut) - torch.log1p(-cut)),
            value)

    def entropy(self) -> Tensor:
        log_probs0 = torch.log1p(-self.probs)
        log_probs1 = torch.log(self.probs)
        return self.mean * (log_probs0 - log_probs1) - self._cont_bern_log_norm() - log_probs0

    @property
    def _natural_params(self) -> tuple[Tensor]:
        return (self.logits,)

    def _log_normalizer(self, x: Any) -> Tensor:
        unstable = torch.max(torch.le(x, self._lims[0] - 0.5),
                             torch.gt(x, self._lims[1] - 0.5))
        cut = torch.where(unstable, x, (self._lims[0] - 0.5) * torch.ones_like(x))
        log_norm = torch.log(torch.abs(torch.special.expm1(cut))) - torch.log(torch.abs(cut))
        taylor = 0.5 * x + torch.pow(x, 2) / 24.0 - torch.pow(x, 4) / 2880.0
        return torch.where(unstable, log_norm, taylor)
