"""``torch.distributions.VonMises``: a circular distribution; log_prob through a polynomial
approximation of log I0 (Abramowitz and Stegun), samples by Best and Fisher's rejection method
in double, as PyTorch's (the same uniforms in the same order)."""

from __future__ import annotations

import math
from typing import Any

from ...engine.tensor import Size, Tensor
from . import constraints
from .distribution import Distribution
from .utils import broadcast_all, lazy_property, torch

__all__ = ["VonMises"]

_I0_SMALL = (1.0, 3.5156229, 3.0899424, 1.2067492, 0.2659732, 0.360768e-1, 0.45813e-2)
_I0_LARGE = (0.39894228, 0.1328592e-1, 0.225319e-2, -0.157565e-2, 0.916281e-2,
             -0.2057706e-1, 0.2635537e-1, -0.1647633e-1, 0.392377e-2)
_I1_SMALL = (0.5, 0.87890594, 0.51498869, 0.15084934, 0.2658733e-1, 0.301532e-2, 0.32411e-3)
_I1_LARGE = (0.39894228, -0.3988024e-1, -0.362018e-2, 0.163801e-2, -0.1031555e-1,
             0.2282967e-1, -0.2895312e-1, 0.1787654e-1, -0.420059e-2)


def _eval_poly(y: Tensor, coef: tuple[float, ...]) -> Any:
    """Horner's rule from the highest coefficient down."""
    result: Any = coef[-1]
    for c in reversed(coef[:-1]):
        result = c + y * result
    return result


def _log_modified_bessel_fn(x: Tensor, order: int = 0) -> Tensor:
    """log I_order(x) for order 0 or 1: one polynomial below 3.75, another above."""
    if order not in (0, 1):
        raise AssertionError(f"order must be 0 or 1, got {order}")
    y: Any = x / 3.75
    y = y * y
    small = _eval_poly(y, (_I0_SMALL, _I1_SMALL)[order])
    if order == 1:
        small = x.abs() * small
    small = small.log()
    y = 3.75 / x  # type: ignore[operator]
    large = x - 0.5 * x.log() + _eval_poly(y, (_I0_LARGE, _I1_LARGE)[order]).log()
    return torch.where(x.lt(3.75), small, large)


def _rejection_sample(loc: Tensor, concentration: Tensor, proposal_r: Tensor,
                      x: Tensor) -> Tensor:
    done = torch.zeros(x.shape, dtype=torch.bool)
    while not bool(done.all()):
        u1, u2, u3 = torch.rand((3, *x.shape), dtype=loc.dtype).unbind()
        z = torch.cos(math.pi * u1)
        f = (1 + proposal_r * z) / (proposal_r + z)
        c = concentration * (proposal_r - f)
        accept = ((c * (2 - c) - u2) > 0) | ((c / u2).log() + 1 - c >= 0)
        if bool(accept.any()):
            x = torch.where(accept, (u3 - 0.5).sign() * f.acos(), x)
            done = done | accept
    return (x + math.pi + loc) % (2 * math.pi) - math.pi


class VonMises(Distribution):
    arg_constraints = {"loc": constraints.real,  # noqa: RUF012
                       "concentration": constraints.positive}
    support = constraints.real
    has_rsample = False

    def __init__(self, loc: Any, concentration: Any, validate_args: bool | None = None) -> None:
        self.loc, self.concentration = broadcast_all(loc, concentration)
        super().__init__(self.loc.shape, Size(), validate_args)

    def log_prob(self, value: Any) -> Tensor:
        if self._validate_args:
            self._validate_sample(value)
        log_prob = self.concentration * torch.cos(value - self.loc)
        return (log_prob - math.log(2 * math.pi)
                - _log_modified_bessel_fn(self.concentration, order=0))

    @lazy_property
    def _loc(self) -> Tensor:
        return self.loc.to(torch.double)

    @lazy_property
    def _concentration(self) -> Tensor:
        return self.concentration.to(torch.double)

    @lazy_property
    def _proposal_r(self) -> Tensor:
        kappa = self._concentration
        tau = 1 + (1 + 4 * kappa ** 2).sqrt()
        rho = (tau - (2 * tau).sqrt()) / (2 * kappa)
        proposal_r = (1 + rho ** 2) / (2 * rho)
        return torch.where(kappa.lt(1e-5), 1 / kappa + kappa, proposal_r)

    def sample(self, sample_shape: Any = ()) -> Tensor:
        with torch.no_grad():
            x = torch.empty(self._extended_shape(sample_shape), dtype=self._loc.dtype)
            return _rejection_sample(self._loc, self._concentration, self._proposal_r,
                                     x).to(self.loc.dtype)

    def expand(self, batch_shape: Any, _instance: Any = None) -> VonMises:
        validate_args = self.__dict__.get("_validate_args")
        return type(self)(self.loc.expand(batch_shape), self.concentration.expand(batch_shape),
                          validate_args=validate_args)

    @property
    def mean(self) -> Tensor:
        return self.loc

    @property
    def mode(self) -> Tensor:
        return self.loc

    @lazy_property
    def variance(self) -> Tensor:
        return 1 - (_log_modified_bessel_fn(self.concentration, order=1)
                    - _log_modified_bessel_fn(self.concentration, order=0)).exp()
