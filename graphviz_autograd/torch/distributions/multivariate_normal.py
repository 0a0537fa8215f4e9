"""``torch.distributions.MultivariateNormal``: loc and one of covariance_matrix, precision_matrix
or scale_tril (kept as the Cholesky factor); log_prob solves with the triangular factor."""

from __future__ import annotations

import math
from typing import Any

from ...engine.tensor import Size, Tensor
from . import constraints
from .distribution import Distribution
from .utils import _standard_normal, lazy_property, torch

__all__ = ["MultivariateNormal"]


def _batch_mv(bmat: Tensor, bvec: Tensor) -> Tensor:
    return torch.matmul(bmat, bvec.unsqueeze(-1)).squeeze(-1)


def _batch_mahalanobis(bL: Tensor, bx: Tensor) -> Tensor:
    """``|L^-1 x|^2`` for a batch of lower-triangular ``L`` and a (wider) batch of ``x``.

    The batch dims of ``x`` are regrouped so that each ``L`` solves all its ``x`` at once:
    ``x`` is reshaped and permuted to (b, n, c), solved, and the result permuted back.
    """
    n = bx.size(-1)
    bx_batch = tuple(bx.shape[:-1])
    l_dims = bL.dim() - 2
    outer = len(bx_batch) - l_dims
    old, new = outer + l_dims, outer + 2 * l_dims
    shape = tuple(bx.shape[:outer])
    for s_l, s_x in zip(bL.shape[:-2], bx.shape[outer:-1]):
        shape += (s_x // s_l, s_l)
    bx = bx.reshape((*shape, n))
    perm = (list(range(outer)) + list(range(outer, new, 2)) + list(range(outer + 1, new, 2))
            + [new])
    bx = bx.permute(perm)
    flat_l = bL.reshape(-1, n, n)
    flat_x = bx.reshape(-1, flat_l.size(0), n)
    m_swap = torch.linalg.solve_triangular(flat_l, flat_x.permute(1, 2, 0),
                                           upper=False).pow(2).sum(-2)
    permuted = m_swap.t().reshape(bx.shape[:-1])
    inverse = list(range(outer))
    for i in range(l_dims):
        inverse += [outer + i, old + i]
    return permuted.permute(inverse).reshape(bx_batch)


def _precision_to_scale_tril(p: Tensor) -> Tensor:
    lf = torch.linalg.cholesky(torch.flip(p, (-2, -1)))
    l_inv = torch.transpose(torch.flip(lf, (-2, -1)), -2, -1)
    eye = torch.eye(p.shape[-1], dtype=p.dtype)
    return torch.linalg.solve_triangular(l_inv, eye, upper=False)


class MultivariateNormal(Distribution):
    arg_constraints = {"loc": constraints.real_vector,  # noqa: RUF012
                       "covariance_matrix": constraints.positive_definite,
                       "precision_matrix": constraints.positive_definite,
                       "scale_tril": constraints.lower_cholesky}
    support = constraints.real_vector
    has_rsample = True

    def __init__(self, loc: Tensor, covariance_matrix: Tensor | None = None,
                 precision_matrix: Tensor | None = None, scale_tril: Tensor | None = None,
                 validate_args: bool | None = None) -> None:
        if loc.dim() < 1:
            raise ValueError("loc must be at least one-dimensional.")
        given = [(n, m) for n, m in (("covariance_matrix", covariance_matrix),
                                     ("scale_tril", scale_tril),
                                     ("precision_matrix", precision_matrix)) if m is not None]
        if len(given) != 1:
            raise ValueError("Exactly one of covariance_matrix or precision_matrix or "
                             "scale_tril may be specified.")
        name, matrix = given[0]
        if matrix.dim() < 2:
            raise ValueError(f"{name} matrix must be at least two-dimensional, with optional "
                             "leading batch dimensions" if name == "scale_tril" else
                             f"{name} must be at least two-dimensional, with optional "
                             "leading batch dimensions")
        batch_shape = Size(torch.broadcast_shapes(matrix.shape[:-2], loc.shape[:-1]))
        setattr(self, name, matrix.expand((*batch_shape, -1, -1)))
        self.loc = loc.expand((*batch_shape, -1))
        super().__init__(batch_shape, self.loc.shape[-1:], validate_args=validate_args)
        if scale_tril is not None:
            self._unbroadcasted_scale_tril = scale_tril
        elif covariance_matrix is not None:
            self._unbroadcasted_scale_tril = torch.linalg.cholesky(covariance_matrix)
        else:
            assert precision_matrix is not None
            self._unbroadcasted_scale_tril = _precision_to_scale_tril(precision_matrix)

    def expand(self, batch_shape: Any, _instance: Any = None) -> MultivariateNormal:
        new = self._expanded(MultivariateNormal, batch_shape,
                             ("loc", "covariance_matrix", "scale_tril", "precision_matrix"),
                             _instance, self.event_shape)
        new._unbroadcasted_scale_tril = self._unbroadcasted_scale_tril
        return new

    def _square(self) -> Size:
        return self._batch_shape + self._event_shape + self._event_shape

    @lazy_property
    def scale_tril(self) -> Tensor:
        return self._unbroadcasted_scale_tril.expand(self._square())

    @lazy_property
    def covariance_matrix(self) -> Tensor:
        tril = self._unbroadcasted_scale_tril
        return torch.matmul(tril, tril.mT).expand(self._square())

    @lazy_property
    def precision_matrix(self) -> Tensor:
        return torch.cholesky_inverse(self._unbroadcasted_scale_tril).expand(self._square())

    @property
    def mean(self) -> Tensor:
        return self.loc

    @property
    def mode(self) -> Tensor:
        return self.loc

    @property
    def variance(self) -> Tensor:
        return self._unbroadcasted_scale_tril.pow(2).sum(-1).expand(
            self._batch_shape + self._event_shape)

    def rsample(self, sample_shape: Any = ()) -> Tensor:
        eps = _standard_normal(self._extended_shape(sample_shape), self.loc.dtype)
        return self.loc + _batch_mv(self._unbroadcasted_scale_tril, eps)

    def _half_log_det(self) -> Tensor:
        return self._unbroadcasted_scale_tril.diagonal(dim1=-2, dim2=-1).log().sum(-1)

    def log_prob(self, value: Any) -> Tensor:
        if self._validate_args:
            self._validate_sample(value)
        m = _batch_mahalanobis(self._unbroadcasted_scale_tril, value - self.loc)
        return -0.5 * (self._event_shape[0] * math.log(2 * math.pi) + m) - self._half_log_det()

    def entropy(self) -> Tensor:
        h = 0.5 * self._event_shape[0] * (1.0 + math.log(2 * math.pi)) + self._half_log_det()
        return h if len(self._batch_shape) == 0 else h.expand(self._batch_shape)
