"""``torch.distributions.transforms``, continued: transforms onto structured sets (softmax and
stick-breaking onto the simplex, lower-Cholesky, positive-definite and correlation-Cholesky
matrices), reshapes, a distribution's cdf, and the Cat / Stack combinators."""

from __future__ import annotations

import math
from typing import Any

from ...engine.tensor import Size
from . import constraints
from .transforms import Transform, _clipped_sigmoid
from .utils import _sum_rightmost, torch, tril_matrix_to_vec, vec_to_tril_matrix

__all__ = ["CatTransform", "CorrCholeskyTransform", "CumulativeDistributionTransform",
           "LowerCholeskyTransform", "PositiveDefiniteTransform", "ReshapeTransform",
           "SoftmaxTransform", "StackTransform", "StickBreakingTransform"]


class SoftmaxTransform(Transform):
    domain = constraints.real_vector
    codomain = constraints.simplex

    def __eq__(self, other: object) -> bool:
        return isinstance(other, SoftmaxTransform)

    __hash__ = object.__hash__

    def _call(self, x: Any) -> Any:
        probs = (x - x.max(-1, True)[0]).exp()
        return probs / probs.sum(-1, True)

    def _inverse(self, y: Any) -> Any:
        return y.log()

    def forward_shape(self, shape: Any) -> Any:
        if len(shape) < 1:
            raise ValueError("Too few dimensions on input")
        return shape

    inverse_shape = forward_shape


class StickBreakingTransform(Transform):
    """R^(K-1) to the K-simplex by breaking a stick: each coordinate a sigmoid's share of
    what is left."""

    domain = constraints.real_vector
    codomain = constraints.simplex
    bijective = True

    def __eq__(self, other: object) -> bool:
        return isinstance(other, StickBreakingTransform)

    __hash__ = object.__hash__

    def _call(self, x: Any) -> Any:
        pad = torch.nn.functional.pad
        offset = x.shape[-1] + 1 - x.new_ones(x.shape[-1]).cumsum(-1)
        z = _clipped_sigmoid(x - offset.log())
        z_cumprod = (1 - z).cumprod(-1)
        return pad(z, [0, 1], value=1) * pad(z_cumprod, [1, 0], value=1)

    def _inverse(self, y: Any) -> Any:
        y_crop = y[..., :-1]
        offset = y.shape[-1] - y.new_ones(y_crop.shape[-1]).cumsum(-1)
        sf = 1 - y_crop.cumsum(-1)
        sf = torch.clamp(sf, min=torch.finfo(y.dtype).tiny)
        return y_crop.log() - sf.log() + offset.log()

    def log_abs_det_jacobian(self, x: Any, y: Any) -> Any:
        offset = x.shape[-1] + 1 - x.new_ones(x.shape[-1]).cumsum(-1)
        x = x - offset.log()
        return (-x + torch.nn.functional.logsigmoid(x) + y[..., :-1].log()).sum(-1)

    def forward_shape(self, shape: Any) -> Any:
        if len(shape) < 1:
            raise ValueError("Too few dimensions on input")
        return Size((*shape[:-1], shape[-1] + 1))

    def inverse_shape(self, shape: Any) -> Any:
        if len(shape) < 1:
            raise ValueError("Too few dimensions on input")
        return Size((*shape[:-1], shape[-1] - 1))


class LowerCholeskyTransform(Transform):
    """A square matrix to a lower-triangular one with a positive diagonal (exp of the
    diagonal); not bijective."""

    domain = constraints.independent(constraints.real, 2)
    codomain = constraints.lower_cholesky

    def __eq__(self, other: object) -> bool:
        return isinstance(other, LowerCholeskyTransform)

    __hash__ = object.__hash__

    def _call(self, x: Any) -> Any:
        return x.tril(-1) + x.diagonal(dim1=-2, dim2=-1).exp().diag_embed()

    def _inverse(self, y: Any) -> Any:
        return y.tril(-1) + y.diagonal(dim1=-2, dim2=-1).log().diag_embed()


class ReshapeTransform(Transform):
    """The rightmost dims reshaped from ``in_shape`` to ``out_shape`` (a log |det J| of 0)."""

    bijective = True

    def __init__(self, in_shape: Any, out_shape: Any, cache_size: int = 0) -> None:
        self.in_shape = Size(in_shape)
        self.out_shape = Size(out_shape)
        if self.in_shape.numel() != self.out_shape.numel():
            raise ValueError("in_shape, out_shape have different numbers of elements")
        super().__init__(cache_size=cache_size)

    @constraints.dependent_property
    def domain(self) -> Any:
        return constraints.independent(constraints.real, len(self.in_shape))

    @constraints.dependent_property
    def codomain(self) -> Any:
        return constraints.independent(constraints.real, len(self.out_shape))

    def with_cache(self, cache_size: int = 1) -> Transform:
        if self._cache_size == cache_size:
            return self
        return ReshapeTransform(self.in_shape, self.out_shape, cache_size=cache_size)

    def _call(self, x: Any) -> Any:
        return x.reshape(Size(x.shape[:x.dim() - len(self.in_shape)]) + self.out_shape)

    def _inverse(self, y: Any) -> Any:
        return y.reshape(Size(y.shape[:y.dim() - len(self.out_shape)]) + self.in_shape)

    def log_abs_det_jacobian(self, x: Any, y: Any) -> Any:
        return x.new_zeros(x.shape[:x.dim() - len(self.in_shape)])

    def _reshaped(self, shape: Any, have: Size, want: Size) -> Size:
        if len(shape) < len(have):
            raise ValueError("Too few dimensions on input")
        cut = len(shape) - len(have)
        if Size(shape[cut:]) != have:
            raise ValueError(f"Shape mismatch: expected {Size(shape[cut:])} but got {have}")
        return Size(shape[:cut]) + want

    def forward_shape(self, shape: Any) -> Any:
        return self._reshaped(shape, self.in_shape, self.out_shape)

    def inverse_shape(self, shape: Any) -> Any:
        return self._reshaped(shape, self.out_shape, self.in_shape)


class CumulativeDistributionTransform(Transform):
    """A distribution's cdf as a transform onto [0, 1] (its log |det J| is its log_prob)."""

    bijective = True
    codomain = constraints.unit_interval
    sign = +1

    def __init__(self, distribution: Any, cache_size: int = 0) -> None:
        super().__init__(cache_size=cache_size)
        self.distribution = distribution

    @property
    def domain(self) -> Any:
        return self.distribution.support

    def _call(self, x: Any) -> Any:
        return self.distribution.cdf(x)

    def _inverse(self, y: Any) -> Any:
        return self.distribution.icdf(y)

    def log_abs_det_jacobian(self, x: Any, y: Any) -> Any:
        return self.distribution.log_prob(x)

    def with_cache(self, cache_size: int = 1) -> Transform:
        if self._cache_size == cache_size:
            return self
        return CumulativeDistributionTransform(self.distribution, cache_size=cache_size)


class PositiveDefiniteTransform(Transform):
    """A square matrix to a positive-definite one: ``L L^T`` of its lower-Cholesky image."""

    domain = constraints.independent(constraints.real, 2)
    codomain = constraints.positive_definite

    def __eq__(self, other: object) -> bool:
        return isinstance(other, PositiveDefiniteTransform)

    __hash__ = object.__hash__

    def _call(self, x: Any) -> Any:
        x = LowerCholeskyTransform()(x)
        return x @ x.mT

    def _inverse(self, y: Any) -> Any:
        return LowerCholeskyTransform().inv(torch.linalg.cholesky(y))


class CatTransform(Transform):
    """Transforms applied to consecutive slices of ``dim`` (``lengths`` each), concatenated."""

    def __init__(self, tseq: Any, dim: int = 0, lengths: Any = None,
                 cache_size: int = 0) -> None:
        if not all(isinstance(t, Transform) for t in tseq):
            raise AssertionError("All elements of tseq must be Transform instances")
        if cache_size:
            tseq = [t.with_cache(cache_size) for t in tseq]
        super().__init__(cache_size=cache_size)
        self.transforms = list(tseq)
        self.lengths = list(lengths) if lengths is not None else [1] * len(self.transforms)
        if len(self.lengths) != len(self.transforms):
            raise AssertionError(f"lengths ({len(self.lengths)}) must match transforms "
                                 f"({len(self.transforms)})")
        self.dim = dim

    @property
    def event_dim(self) -> int:
        return max(t.event_dim for t in self.transforms)

    @property
    def length(self) -> int:
        return sum(self.lengths)

    def with_cache(self, cache_size: int = 1) -> Transform:
        if self._cache_size == cache_size:
            return self
        return CatTransform(self.transforms, self.dim, self.lengths, cache_size)

    def _pieces(self, t: Any) -> list[Any]:
        out, start = [], 0
        for length in self.lengths:
            out.append(t.narrow(self.dim, start, length))
            start = start + length
        return out

    def _checked(self, t: Any, what: str, name: str) -> None:
        if not -t.dim() <= self.dim < t.dim():
            raise AssertionError(f"dim {self.dim} out of range for {what} with {t.dim()} "
                                 "dimensions")
        if t.size(self.dim) != self.length:
            raise AssertionError(f"{name}.size({self.dim}) = {t.size(self.dim)} must equal "
                                 f"length {self.length}")

    def _call(self, x: Any) -> Any:
        self._checked(x, "tensor", "x")
        return torch.cat([t(p) for t, p in zip(self.transforms, self._pieces(x))],
                         dim=self.dim)

    def _inverse(self, y: Any) -> Any:
        self._checked(y, "tensor", "y")
        return torch.cat([t.inv(p) for t, p in zip(self.transforms, self._pieces(y))],
                         dim=self.dim)

    def log_abs_det_jacobian(self, x: Any, y: Any) -> Any:
        self._checked(x, "x", "x")
        self._checked(y, "y", "y")
        terms = []
        for t, xs, ys in zip(self.transforms, self._pieces(x), self._pieces(y)):
            term = t.log_abs_det_jacobian(xs, ys)
            if t.event_dim < self.event_dim:
                term = _sum_rightmost(term, self.event_dim - t.event_dim)
            terms.append(term)
        dim = self.dim - x.dim() if self.dim >= 0 else self.dim
        dim = dim + self.event_dim
        return torch.cat(terms, dim=dim) if dim < 0 else sum(terms)

    @property
    def bijective(self) -> bool:  # type: ignore[override]
        return all(t.bijective for t in self.transforms)

    @constraints.dependent_property
    def domain(self) -> Any:
        return constraints.cat([t.domain for t in self.transforms], self.dim, self.lengths)

    @constraints.dependent_property
    def codomain(self) -> Any:
        return constraints.cat([t.codomain for t in self.transforms], self.dim, self.lengths)


class StackTransform(Transform):
    """Transforms applied to the successive entries of ``dim``, stacked again."""

    def __init__(self, tseq: Any, dim: int = 0, cache_size: int = 0) -> None:
        if not all(isinstance(t, Transform) for t in tseq):
            raise AssertionError("All elements of tseq must be Transform instances")
        if cache_size:
            tseq = [t.with_cache(cache_size) for t in tseq]
        super().__init__(cache_size=cache_size)
        self.transforms = list(tseq)
        self.dim = dim

    def with_cache(self, cache_size: int = 1) -> Transform:
        if self._cache_size == cache_size:
            return self
        return StackTransform(self.transforms, self.dim, cache_size)

    def _slice(self, z: Any) -> list[Any]:
        return [z.select(self.dim, i) for i in range(z.size(self.dim))]

    def _checked(self, t: Any, what: str, name: str) -> None:
        if not -t.dim() <= self.dim < t.dim():
            raise AssertionError(f"dim {self.dim} out of range for {what} with {t.dim()} "
                                 "dimensions")
        if t.size(self.dim) != len(self.transforms):
            raise AssertionError(f"{name}.size({self.dim}) = {t.size(self.dim)} must equal "
                                 f"len(transforms) {len(self.transforms)}")

    def _call(self, x: Any) -> Any:
        self._checked(x, "tensor", "x")
        return torch.stack([t(s) for s, t in zip(self._slice(x), self.transforms)],
                           dim=self.dim)

    def _inverse(self, y: Any) -> Any:
        self._checked(y, "tensor", "y")
        return torch.stack([t.inv(s) for s, t in zip(self._slice(y), self.transforms)],
                           dim=self.dim)

    def log_abs_det_jacobian(self, x: Any, y: Any) -> Any:
        self._checked(x, "x", "x")
        self._checked(y, "y", "y")
        return torch.stack([t.log_abs_det_jacobian(a, b) for a, b, t in
                            zip(self._slice(x), self._slice(y), self.transforms)],
                           dim=self.dim)

    @property
    def bijective(self) -> bool:  # type: ignore[override]
        return all(t.bijective for t in self.transforms)

    @constraints.dependent_property
    def domain(self) -> Any:
        return constraints.stack([t.domain for t in self.transforms], self.dim)

    @constraints.dependent_property
    def codomain(self) -> Any:
        return constraints.stack([t.codomain for t in self.transforms], self.dim)


class CorrCholeskyTransform(Transform):
    """An unconstrained vector of D(D-1)/2 entries to the Cholesky factor of a correlation
    matrix: tanh onto (-1, 1), then stick-breaking along each row so rows have unit norm."""

    domain = constraints.real_vector
    codomain = constraints.corr_cholesky
    bijective = True

    def _call(self, x: Any) -> Any:
        pad = torch.nn.functional.pad
        x = torch.tanh(x)
        eps = torch.finfo(x.dtype).eps
        x = x.clamp(min=-1 + eps, max=1 - eps)
        r = vec_to_tril_matrix(x, diag=-1)
        z = r ** 2
        z1m_cumprod_sqrt = (1 - z).sqrt().cumprod(-1)
        r = r + torch.eye(r.shape[-1], dtype=r.dtype)
        return r * pad(z1m_cumprod_sqrt[..., :-1], [1, 0], value=1)

    def _inverse(self, y: Any) -> Any:
        pad = torch.nn.functional.pad
        y_cumsum = 1 - torch.cumsum(y * y, dim=-1)
        y_cumsum_shifted = pad(y_cumsum[..., :-1], [1, 0], value=1)
        y_vec = tril_matrix_to_vec(y, diag=-1)
        y_cumsum_vec = tril_matrix_to_vec(y_cumsum_shifted, diag=-1)
        t = y_vec / y_cumsum_vec.sqrt()
        return (t.log1p() - t.neg().log1p()) / 2

    def log_abs_det_jacobian(self, x: Any, y: Any, intermediates: Any = None) -> Any:
        y1m_cumsum = 1 - (y * y).cumsum(dim=-1)
        y1m_cumsum_tril = tril_matrix_to_vec(y1m_cumsum, diag=-2)
        stick_breaking_logdet = 0.5 * y1m_cumsum_tril.log().sum(-1)
        tanh_logdet = -2 * (x + torch.nn.functional.softplus(-2 * x)
                            - math.log(2.0)).sum(dim=-1)
        return stick_breaking_logdet + tanh_logdet

    def forward_shape(self, shape: Any) -> Any:
        if len(shape) < 1:
            raise ValueError("Too few dimensions on input")
        n = shape[-1]
        d = round((0.25 + 2 * n) ** 0.5 + 0.5)
        if d * (d - 1) // 2 != n:
            raise ValueError("Input is not a flattened lower-diagonal number")
        return Size((*shape[:-1], d, d))

    def inverse_shape(self, shape: Any) -> Any:
        if len(shape) < 2:
            raise ValueError("Too few dimensions on input")
        if shape[-2] != shape[-1]:
            raise ValueError("Input is not square")
        d = shape[-1]
        return Size((*shape[:-2], d * (d - 1) // 2))
