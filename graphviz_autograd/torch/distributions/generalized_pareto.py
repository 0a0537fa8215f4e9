"""``torch.distributions.GeneralizedPareto``: loc, scale and a real concentration (0 is the
exponential limit, handled by ``where``); samples by the inverse cdf of a uniform."""

from __future__ import annotations

import math
from numbers import Number
from typing import Any

from ...engine.tensor import Size, Tensor
from . import constraints
from .distribution import Distribution
from .utils import broadcast_all, torch

__all__ = ["GeneralizedPareto"]


class GeneralizedPareto(Distribution):
    arg_constraints = {"loc": constraints.real, "scale": constraints.positive,  # noqa: RUF012
                       "concentration": constraints.real}
    has_rsample = True

    def __init__(self, loc: Any, scale: Any, concentration: Any,
                 validate_args: bool | None = None) -> None:
        self.loc, self.scale, self.concentration = broadcast_all(loc, scale, concentration)
        numbers = all(isinstance(v, Number) for v in (loc, scale, concentration))
        super().__init__(Size() if numbers else self.loc.size(), validate_args=validate_args)

    def expand(self, batch_shape: Any, _instance: Any = None) -> GeneralizedPareto:
        return self._expanded(GeneralizedPareto, batch_shape, ("loc", "scale", "concentration"),
                              _instance)

    def rsample(self, sample_shape: Any = ()) -> Tensor:
        u = torch.rand(self._extended_shape(sample_shape), dtype=self.loc.dtype)
        return self.icdf(u)

    def _safe(self) -> tuple[Tensor, Tensor]:
        eq_zero = torch.isclose(self.concentration, torch.tensor(0.0))
        return eq_zero, torch.where(eq_zero, torch.ones_like(self.concentration),
                                    self.concentration)

    def log_prob(self, value: Any) -> Tensor:
        if self._validate_args:
            self._validate_sample(value)
        z = self._z(value)
        eq_zero, safe_conc = self._safe()
        y = 1 / safe_conc + torch.ones_like(z)  # type: ignore[operator]
        where_nonzero = torch.where(y == 0, y, y * torch.log1p(safe_conc * z))
        return -self.scale.log() - torch.where(eq_zero, z, where_nonzero)

    def log_survival_function(self, value: Any) -> Tensor:
        if self._validate_args:
            self._validate_sample(value)
        z = self._z(value)
        eq_zero, safe_conc = self._safe()
        return torch.where(eq_zero, -z, -torch.log1p(safe_conc * z) / safe_conc)

    def log_cdf(self, value: Any) -> Tensor:
        return torch.log1p(-torch.exp(self.log_survival_function(value)))

    def cdf(self, value: Any) -> Tensor:
        return torch.exp(self.log_cdf(value))

    def icdf(self, value: Any) -> Tensor:
        concentration = self.concentration
        eq_zero = torch.isclose(concentration, torch.zeros_like(concentration))
        safe_conc = torch.where(eq_zero, torch.ones_like(concentration), concentration)
        logu = torch.log1p(-value)
        where_nonzero = self.loc + self.scale / safe_conc * torch.expm1(-safe_conc * logu)
        return torch.where(eq_zero, self.loc - self.scale * logu, where_nonzero)

    def _z(self, x: Any) -> Tensor:
        return (x - self.loc) / self.scale

    @property
    def mean(self) -> Tensor:
        valid = self.concentration.lt(1)
        safe_conc = torch.where(valid, self.concentration, 0.5)
        return torch.where(valid, self.loc + self.scale / (1 - safe_conc), math.nan)

    @property
    def variance(self) -> Tensor:
        valid = self.concentration.lt(0.5)
        safe_conc = torch.where(valid, self.concentration, 0.25)
        result = self.scale ** 2 / ((1 - safe_conc) ** 2 * (1 - 2 * safe_conc))
        return torch.where(valid, result, math.nan)

    def entropy(self) -> Tensor:
        return torch.broadcast_to(torch.log(self.scale) + self.concentration + 1,
                                  self._batch_shape)

    @property
    def mode(self) -> Tensor:
        return self.loc

    @constraints.dependent_property(is_discrete=False, event_dim=0)
    def support(self) -> Any:
        lower = self.loc
        upper = torch.where(self.concentration.lt(0), lower - self.scale / self.concentration,
                            math.inf)
        return constraints.interval(lower, upper)
