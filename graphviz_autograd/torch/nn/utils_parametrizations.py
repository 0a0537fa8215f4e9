"""``torch.nn.utils.parametrizations``: ``spectral_norm`` and ``weight_norm`` as
parametrizations (``_SpectralNorm``, ``_WeightNorm``), drawn, iterated and composed as
PyTorch's."""

from __future__ import annotations

from typing import Any

import numpy as np

from ...engine import functional as _F
from ...engine.grad_mode import no_grad
from ...engine.products import vdot
from ...engine.tensor import Tensor
from . import functional as F
from . import utils_parametrize as parametrize
from .modules import Module
from .utils_spectral import _is_conv_transpose, _weight_norm, norm_except_dim, normalize_into

__all__ = ["orthogonal", "spectral_norm", "weight_norm"]


# -- orthogonal ----------------------------------------------------------------------------------
_MAPS = ("matrix_exp", "cayley", "householder")


def _is_orthogonal(q: Tensor) -> bool:
    n, k = q.size(-2), q.size(-1)
    eye = _torch().eye(k, dtype=q.dtype)
    eps = 10.0 * n * _torch().finfo(q.dtype).eps
    return bool(_torch().allclose(q.mH @ q, eye, atol=eps))


def _make_orthogonal(a: Tensor) -> Tensor:
    """The Q of ``a``'s QR with R's diagonal made positive (LAPACK's geqrf and
    householder_product, as PyTorch)."""
    q, r = _torch().linalg.qr(a)
    return q * r.diagonal(dim1=-2, dim2=-1).sgn().unsqueeze(-2)


def _geqrf(a: Tensor) -> tuple[Tensor, Tensor]:
    """LAPACK's geqrf of each matrix: R on and above the diagonal, the reflectors below, and
    their factors."""
    arr = a.detach().numpy()
    n, k = arr.shape[-2:]
    flat = arr.reshape(-1, n, k)
    outs = [np.linalg.qr(m, mode="raw") for m in flat]
    h = np.stack([o[0].T for o in outs]).reshape(arr.shape).astype(arr.dtype)
    tau = np.stack([o[1] for o in outs]).reshape((*arr.shape[:-2], min(n, k))).astype(arr.dtype)
    return _torch().from_numpy(np.ascontiguousarray(h)), _torch().from_numpy(tau)


def _torch() -> Any:
    from ... import torch
    return torch


class _Orthogonal(Module):
    def __init__(self, weight: Tensor, orthogonal_map: str, *,
                 use_trivialization: bool = True) -> None:
        super().__init__()
        if weight.is_complex() and orthogonal_map == "householder":
            raise ValueError("The householder parametrization does not support complex "
                             "tensors.")
        self.shape = weight.shape
        self.orthogonal_map = orthogonal_map
        if use_trivialization:
            self.register_buffer("base", None)

    def forward(self, X: Tensor) -> Tensor:
        torch = _torch()
        n, k = X.size(-2), X.size(-1)
        transposed = n < k
        if transposed:
            X = X.mT
            n, k = k, n
        if self.orthogonal_map == "householder":
            A = X.tril(diagonal=-1)
            tau = 2.0 / (1.0 + (A * A).sum(dim=-2))
            Q = torch.linalg.householder_product(A, tau)
            Q = Q * X.diagonal(dim1=-2, dim2=-1).int().unsqueeze(-2)
            if "base" in self._buffers:
                Q = self.base @ Q
            return Q.mT if transposed else Q
        X = X.tril()
        if n != k:
            X = torch.cat([X, X.new_zeros(n, n - k).expand(*X.shape[:-2], -1, -1)], dim=-1)
        A = X - X.mH
        if self.orthogonal_map == "matrix_exp":
            Q = torch.matrix_exp(A)
        else:
            eye = torch.eye(n, dtype=A.dtype)
            Q = torch.linalg.solve(torch.add(eye, A, alpha=-0.5), torch.add(eye, A, alpha=0.5))
        if n != k:
            Q = Q[..., :k]
        if "base" in self._buffers:
            Q = self.base @ Q
        if transposed:
            Q = Q.mT
        return Q

    def right_inverse(self, Q: Tensor) -> Tensor:
        with no_grad():
            return self._right_inverse(Q)

    def _right_inverse(self, Q: Tensor) -> Tensor:
        torch = _torch()
        if Q.shape != self.shape:
            raise ValueError(f"Expected a matrix or batch of matrices of shape {self.shape}. "
                             f"Got a tensor of shape {Q.shape}.")
        q_init = Q
        n, k = Q.size(-2), Q.size(-1)
        transpose = n < k
        if transpose:
            Q = Q.mT
            n, k = k, n
        if "base" not in self._buffers:
            if self.orthogonal_map in ("cayley", "matrix_exp"):
                raise NotImplementedError("It is not possible to assign to the matrix "
                                          "exponential or the Cayley parametrizations when "
                                          "use_trivialization=False.")
            A, tau = _geqrf(Q)
            diag = A.diagonal(dim1=-2, dim2=-1)
            diag.sign_()
            diag[tau == 0.0] *= -1
            return A.mT if transpose else A
        if n == k:
            Q = _make_orthogonal(Q) if not _is_orthogonal(Q) else Q.clone()
        else:
            N = torch.randn(*Q.size()[:-2], n, n - k, dtype=Q.dtype)
            Q = _make_orthogonal(torch.cat([Q, N], dim=-1))
        self.base = Q
        neg_id = torch.zeros_like(q_init)
        neg_id.diagonal(dim1=-2, dim2=-1).fill_(-1.0)
        return neg_id


def orthogonal(module: Module, name: str = "weight", orthogonal_map: str | None = None, *,
               use_trivialization: bool = True) -> Module:
    """``module.<name>`` kept orthogonal through the ``matrix_exp``, ``cayley`` or
    ``householder`` map (PyTorch's default: ``matrix_exp`` for square matrices, else
    ``householder``)."""
    weight = getattr(module, name, None)
    if not isinstance(weight, Tensor):
        raise ValueError(f"Module '{module}' has no parameter or buffer with name '{name}'")
    if weight.ndim < 2:
        raise ValueError("Expected a matrix or batch of matrices. "
                         f"Got a tensor of {weight.ndim} dimensions.")
    if orthogonal_map is None:
        orthogonal_map = ("matrix_exp" if weight.size(-2) == weight.size(-1)
                          or weight.is_complex() else "householder")
    if orthogonal_map not in _MAPS:
        raise ValueError('orthogonal_map has to be one of "matrix_exp", "cayley", '
                         f'"householder". Got: {orthogonal_map}')
    orth = _Orthogonal(weight, orthogonal_map, use_trivialization=use_trivialization)
    parametrize.register_parametrization(module, name, orth, unsafe=True)
    return module


class _WeightNorm(Module):
    def __init__(self, dim: int | None = 0) -> None:
        super().__init__()
        self.dim = -1 if dim is None else dim

    def forward(self, weight_g: Tensor, weight_v: Tensor) -> Tensor:
        return _weight_norm(weight_v, weight_g, self.dim)

    def right_inverse(self, weight: Tensor) -> tuple[Tensor, Tensor]:
        return norm_except_dim(weight, 2, self.dim), weight


def weight_norm(module: Module, name: str = "weight", dim: int | None = 0) -> Module:
    """``module.<name>`` as ``g * v / ||v||``: ``parametrizations.<name>.original0`` is ``g``,
    ``original1`` is ``v``."""
    parametrize.register_parametrization(module, name, _WeightNorm(dim), unsafe=True)
    return module


class _SpectralNorm(Module):
    def __init__(self, weight: Tensor, n_power_iterations: int = 1, dim: int = 0,
                 eps: float = 1e-12) -> None:
        super().__init__()
        ndim = weight.ndim
        if dim >= ndim or dim < -ndim:
            raise IndexError("Dimension out of range (expected to be in range of "
                             f"[-{ndim}, {ndim - 1}] but got {dim})")
        if n_power_iterations <= 0:
            raise ValueError("Expected n_power_iterations to be positive, but "
                             f"got n_power_iterations={n_power_iterations}")
        self.dim = dim if dim >= 0 else dim + ndim
        self.eps = eps
        if ndim > 1:
            self.n_power_iterations = n_power_iterations
            weight_mat = self._reshape_weight_to_matrix(weight)
            h, w = weight_mat.size()
            u = weight_mat.new_empty(h).normal_(0, 1)
            v = weight_mat.new_empty(w).normal_(0, 1)
            self.register_buffer("_u", F.normalize(u, dim=0, eps=self.eps))
            self.register_buffer("_v", F.normalize(v, dim=0, eps=self.eps))
            # NB: 15 iterations at the start, as PyTorch, so that u and v are good estimates
            self._power_method(weight_mat, 15)

    def _reshape_weight_to_matrix(self, weight: Tensor) -> Tensor:
        if self.dim != 0:
            weight = weight.permute(self.dim, *(d for d in range(weight.dim()) if d != self.dim))
        return weight.flatten(1)

    def _power_method(self, weight_mat: Tensor, n_power_iterations: int) -> None:
        with no_grad():
            for _ in range(n_power_iterations):
                # NB: u first, then v (the hook form updates v first)
                normalize_into(_F.mv(weight_mat, self._v), self._u, self.eps)
                normalize_into(_F.mv(weight_mat.t(), self._u), self._v, self.eps)

    def forward(self, weight: Tensor) -> Tensor:
        if weight.ndim == 1:
            return F.normalize(weight, dim=0, eps=self.eps)
        weight_mat = self._reshape_weight_to_matrix(weight)
        if self.training:
            self._power_method(weight_mat, self.n_power_iterations)
        u = self._u.clone()
        v = self._v.clone()
        sigma = vdot(u, _F.mv(weight_mat, v))
        return weight / sigma

    def right_inverse(self, value: Tensor) -> Tensor:
        return value


def spectral_norm(module: Module, name: str = "weight", n_power_iterations: int = 1,
                  eps: float = 1e-12, dim: int | None = None) -> Module:
    """``module.<name>`` divided by its largest singular value, estimated by power
    iteration (buffers ``parametrizations.<name>.0._u`` and ``._v``).

    >>> from graphviz_autograd import torch
    >>> m = spectral_norm(torch.nn.Linear(4, 3))
    >>> list(m.state_dict())[1:]
    ['parametrizations.weight.original', 'parametrizations.weight.0._u', \
'parametrizations.weight.0._v']
    """
    weight = getattr(module, name, None)
    if not isinstance(weight, Tensor):
        raise ValueError(f"Module '{module}' has no parameter or buffer with name '{name}'")
    if dim is None:
        dim = 1 if _is_conv_transpose(module) else 0
    parametrize.register_parametrization(
        module, name, _SpectralNorm(weight, n_power_iterations, dim, eps))
    return module
