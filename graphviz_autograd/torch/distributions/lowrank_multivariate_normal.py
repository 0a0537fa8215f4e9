"""``torch.distributions.LowRankMultivariateNormal``: covariance ``W W^T + diag(D)``; log_prob
and entropy through the small capacitance matrix ``I + W^T D^-1 W`` (Woodbury), as PyTorch's."""

from __future__ import annotations

import math
from typing import Any

from ...engine.tensor import Size, Tensor
from . import constraints
from .distribution import Distribution
from .multivariate_normal import _batch_mahalanobis, _batch_mv
from .utils import _standard_normal, lazy_property, torch

__all__ = ["LowRankMultivariateNormal"]


def _with_identity(k: Tensor, m: int) -> Tensor:
    """``k + I`` as PyTorch adds it: in place, on the diagonal of a flat view."""
    k.view(-1, m * m)[:, ::m + 1] += 1
    return k


def _batch_capacitance_tril(w: Tensor, d: Tensor) -> Tensor:
    m = w.size(-1)
    wt_dinv = w.mT / d.unsqueeze(-2)
    k = torch.matmul(wt_dinv, w).contiguous()
    return torch.linalg.cholesky(_with_identity(k, m))


def _batch_lowrank_logdet(w: Tensor, d: Tensor, capacitance_tril: Tensor) -> Tensor:
    return 2 * capacitance_tril.diagonal(dim1=-2, dim2=-1).log().sum(-1) + d.log().sum(-1)


def _batch_lowrank_mahalanobis(w: Tensor, d: Tensor, x: Tensor,
                               capacitance_tril: Tensor) -> Tensor:
    wt_dinv_x = _batch_mv(w.mT / d.unsqueeze(-2), x)
    return (x.pow(2) / d).sum(-1) - _batch_mahalanobis(capacitance_tril, wt_dinv_x)


class LowRankMultivariateNormal(Distribution):
    arg_constraints = {"loc": constraints.real_vector,  # noqa: RUF012
                       "cov_factor": constraints.independent(constraints.real, 2),
                       "cov_diag": constraints.independent(constraints.positive, 1)}
    support = constraints.real_vector
    has_rsample = True

    def __init__(self, loc: Tensor, cov_factor: Tensor, cov_diag: Tensor,
                 validate_args: bool | None = None) -> None:
        if loc.dim() < 1:
            raise ValueError("loc must be at least one-dimensional.")
        event_shape = loc.shape[-1:]
        if cov_factor.dim() < 2:
            raise ValueError("cov_factor must be at least two-dimensional, with optional "
                             "leading batch dimensions")
        if cov_factor.shape[-2:-1] != event_shape:
            raise ValueError(f"cov_factor must be a batch of matrices with shape "
                             f"{event_shape[0]} x m")
        if cov_diag.shape[-1:] != event_shape:
            raise ValueError(f"cov_diag must be a batch of vectors with shape {event_shape}")
        try:
            loc_, self.cov_factor, cov_diag_ = torch.broadcast_tensors(
                loc.unsqueeze(-1), cov_factor, cov_diag.unsqueeze(-1))
        except RuntimeError as e:
            raise ValueError(f"Incompatible batch shapes: loc {loc.shape}, cov_factor "
                             f"{cov_factor.shape}, cov_diag {cov_diag.shape}") from e
        self.loc = loc_[..., 0]
        self.cov_diag = cov_diag_[..., 0]
        self._unbroadcasted_cov_factor = cov_factor
        self._unbroadcasted_cov_diag = cov_diag
        self._capacitance_tril = _batch_capacitance_tril(cov_factor, cov_diag)
        super().__init__(self.loc.shape[:-1], event_shape, validate_args=validate_args)

    def expand(self, batch_shape: Any, _instance: Any = None) -> LowRankMultivariateNormal:
        new = self._get_checked_instance(LowRankMultivariateNormal, _instance)
        loc_shape = Size(batch_shape) + self.event_shape
        new.loc = self.loc.expand(loc_shape)
        new.cov_diag = self.cov_diag.expand(loc_shape)
        new.cov_factor = self.cov_factor.expand(loc_shape + self.cov_factor.shape[-1:])
        new._unbroadcasted_cov_factor = self._unbroadcasted_cov_factor
        new._unbroadcasted_cov_diag = self._unbroadcasted_cov_diag
        new._capacitance_tril = self._capacitance_tril
        Distribution.__init__(new, Size(batch_shape), self.event_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    @property
    def mean(self) -> Tensor:
        return self.loc

    @property
    def mode(self) -> Tensor:
        return self.loc

    def _square(self) -> Size:
        return self._batch_shape + self._event_shape + self._event_shape

    @lazy_property
    def variance(self) -> Tensor:
        return (self._unbroadcasted_cov_factor.pow(2).sum(-1)
                + self._unbroadcasted_cov_diag).expand(self._batch_shape + self._event_shape)

    @lazy_property
    def scale_tril(self) -> Tensor:
        n = self._event_shape[0]
        diag_sqrt = self._unbroadcasted_cov_diag.sqrt().unsqueeze(-1)
        dinvsqrt_w = self._unbroadcasted_cov_factor / diag_sqrt
        k = torch.matmul(dinvsqrt_w, dinvsqrt_w.mT).contiguous()
        return (diag_sqrt * torch.linalg.cholesky(_with_identity(k, n))).expand(self._square())

    @lazy_property
    def covariance_matrix(self) -> Tensor:
        w = self._unbroadcasted_cov_factor
        return (torch.matmul(w, w.mT)
                + torch.diag_embed(self._unbroadcasted_cov_diag)).expand(self._square())

    @lazy_property
    def precision_matrix(self) -> Tensor:
        wt_dinv = self._unbroadcasted_cov_factor.mT / self._unbroadcasted_cov_diag.unsqueeze(-2)
        a = torch.linalg.solve_triangular(self._capacitance_tril, wt_dinv, upper=False)
        return (torch.diag_embed(self._unbroadcasted_cov_diag.reciprocal())
                - a.mT @ a).expand(self._square())

    def rsample(self, sample_shape: Any = ()) -> Tensor:
        shape = self._extended_shape(sample_shape)
        eps_w = _standard_normal(shape[:-1] + self.cov_factor.shape[-1:], self.loc.dtype)
        eps_d = _standard_normal(shape, self.loc.dtype)
        return (self.loc + _batch_mv(self._unbroadcasted_cov_factor, eps_w)
                + self._unbroadcasted_cov_diag.sqrt() * eps_d)

    def _log_det(self) -> Tensor:
        return _batch_lowrank_logdet(self._unbroadcasted_cov_factor,
                                     self._unbroadcasted_cov_diag, self._capacitance_tril)

    def log_prob(self, value: Any) -> Tensor:
        if self._validate_args:
            self._validate_sample(value)
        m = _batch_lowrank_mahalanobis(self._unbroadcasted_cov_factor,
                                       self._unbroadcasted_cov_diag, value - self.loc,
                                       self._capacitance_tril)
        return -0.5 * (self._event_shape[0] * math.log(2 * math.pi) + self._log_det() + m)

    def entropy(self) -> Tensor:
        h = 0.5 * (self._event_shape[0] * (1.0 + math.log(2 * math.pi)) + self._log_det())
        return h if len(self._batch_shape) == 0 else h.expand(self._batch_shape)
