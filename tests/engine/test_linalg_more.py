"""``torch.linalg.lstsq``, ``matrix_exp``, the LU family, ``solve_ex``, ``cholesky_solve``,
``triangular_solve``, ``matrix_rank``, ``cond``, ``tensorinv``, ``tensorsolve`` and ``vander``,
checked against real PyTorch 2.13 node for node (names, ``next_functions``, ``_saved_*``
values), with outputs, gradients and errors word for word."""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np
import pytest
from _markers import requires_torch

import graphviz_autograd.torch as ours

from .test_linalg_extra import _cases, _differences

pytestmark = pytest.mark.torch

_RNG = np.random.default_rng(11)


def _r(*shape: int) -> np.ndarray:
    return _RNG.standard_normal(shape).astype(np.float32)


def _tri(n: int) -> np.ndarray:
    return (_RNG.standard_normal((n, n)) + 3 * np.eye(n)).astype(np.float32)


def _low(n: int) -> np.ndarray:
    return np.tril(_tri(n)).astype(np.float32)


CASES = [
    # least squares
    ("torch.linalg.lstsq(p, q).solution", [_r(5, 3), _r(5, 2)]),
    ("torch.linalg.lstsq(p, q).solution", [_r(3, 5), _r(3, 2)]),
    ("torch.linalg.lstsq(p, q).solution", [_r(2, 4, 3), _r(2, 4, 2)]),
    ("torch.linalg.lstsq(p, q).solution", [_r(4, 3), _r(4)]),
    ("torch.linalg.lstsq(p, q).solution", [_r(2, 4, 3), _r(4, 2)]),
    ("torch.linalg.lstsq(p, q).solution", [_r(2, 4, 3), _r(2, 4)]),
    ("torch.linalg.lstsq(p, q, driver='gelsd').residuals", [_r(4, 3), _r(2, 4, 1)]),
    ("torch.linalg.lstsq(p, q, driver='gelsd').residuals", [_r(5, 3), _r(5, 2)]),
    ("torch.linalg.lstsq(p, q, driver='gelss').singular_values", [_r(5, 3), _r(5, 2)]),
    ("torch.linalg.lstsq(p, q, driver='gels').solution", [_r(5, 3), _r(5, 2)]),
    ("torch.linalg.lstsq(p, q).rank", [_r(5, 3), _r(5, 2)]),
    ("torch.linalg.lstsq(p, q, driver='gels').solution", [_r(3, 5), _r(3, 2)]),
    ("torch.linalg.lstsq(p, q, driver='gels').residuals", [_r(5, 3), _r(5, 2)]),
    # NB: a rank-deficient matrix's solution by SVD: PyTorch's default driver (gelsy) gives it
    # differently from one call to the next there (torch 2.13 on CPU: solutions up to 1.1 apart
    # over 20 calls on the same arrays), so no reference can be taken of it
    ("torch.linalg.lstsq(p, q, driver='gelsd').solution",
     [np.array([[1, 2, 2], [0, 1, 0], [3, 1, 6], [1, 1, 2]], np.float32), _r(4, 2)]),
    ("torch.linalg.lstsq(p, q, driver='gelsd').rank", [np.array([[1, 2, 2], [0, 1, 0],
                                                                 [3, 1, 6], [1, 1, 2]],
                                                                np.float32), _r(4, 2)]),
    ("torch.linalg.lstsq(p, q).residuals", [_r(5, 3), _r(5, 2)]),
    ("torch.linalg.lstsq(p, q, driver='foo')", [_r(5, 3), _r(5, 2)]),
    ("torch.linalg.lstsq(p, q)", [_r(5, 3), _r(4, 2)]),
    ("torch.linalg.lstsq(p, q.double())", [_r(5, 3), _r(5, 2)]),
    ("torch.linalg.lstsq(p, q)", [_r(5), _r(5)]),
    ("torch.lstsq(q, p)", [_r(5, 3), _r(5, 2)]),
    # the matrix exponential
    ("torch.linalg.matrix_exp(p)", [_r(3, 3)]), ("torch.matrix_exp(p * 4)", [_r(2, 3, 3)]),
    ("p.matrix_exp()", [_r(4, 4) * 0.01]), ("torch.linalg.matrix_exp(p)", [_r(1, 1)]),
    ("torch.linalg.matrix_exp(p.double() * 3)", [_r(3, 3)]),
    ("torch.linalg.matrix_exp(p)", [_r(2, 3)]), ("torch.linalg.matrix_exp(p)", [_r(3)]),
    ("torch.linalg.matrix_exp(p.long())", [_r(3, 3)]),
    # LU
    ("torch.linalg.lu_factor(p).LU", [_r(3, 3)]), ("torch.linalg.lu_factor(p)[1]", [_r(4, 4)]),
    ("torch.linalg.lu_factor_ex(p).LU", [_r(2, 3, 3)]),
    ("torch.linalg.lu_factor_ex(p).LU", [_r(3, 5)]),
    ("torch.linalg.lu_factor_ex(p).LU", [_r(5, 3)]),
    ("torch.linalg.lu_factor_ex(p * 0).info", [_r(3, 3)]),
    ("torch.linalg.lu_factor(p * 0)", [_r(3, 3)]), ("torch.linalg.lu_factor(p)", [_r(3)]),
    ("torch.linalg.lu_factor(p, pivot=False)", [_r(3, 3)]),
    ("torch.linalg.lu(p).L", [_r(3, 3)]), ("torch.linalg.lu(p).U", [_r(3, 3)]),
    ("torch.linalg.lu(p).P", [_r(4, 4)]), ("torch.linalg.lu(p).L", [_r(4, 2)]),
    ("torch.linalg.lu(p).U", [_r(2, 4)]), ("torch.linalg.lu(p)[2]", [_r(2, 4, 3)]),
    ("torch.lu_unpack(*torch.linalg.lu_factor(p)).L", [_r(3, 3)]),
    ("torch.lu_unpack(*torch.linalg.lu_factor(p))[2]", [_r(3, 5)]),
    ("torch.lu_unpack(*torch.linalg.lu_factor(p)).P", [_r(3, 3)]),
    ("torch.linalg.lu_solve(*torch.linalg.lu_factor(p), q)", [_r(3, 3), _r(3, 2)]),
    ("torch.linalg.lu_solve(*torch.linalg.lu_factor(p), q, adjoint=True)", [_r(3, 3), _r(3, 2)]),
    ("torch.linalg.lu_solve(*torch.linalg.lu_factor(p), q, left=False)", [_r(3, 3), _r(2, 3)]),
    ("torch.linalg.lu_solve(*torch.linalg.lu_factor(p), q, left=False, adjoint=True)",
     [_r(2, 3, 3), _r(2, 4, 3)]),
    ("torch.linalg.lu_solve(*torch.linalg.lu_factor(p), q)", [_r(3, 3), _r(2, 3)]),
    ("torch.linalg.lu_solve(*torch.linalg.lu_factor(p), q)", [_r(3, 3), _r(2, 3, 2)]),
    ("torch.linalg.lu_solve(*torch.linalg.lu_factor(p), q)", [_r(2, 3, 3), _r(3, 2)]),
    ("torch.lu_unpack(*torch.linalg.lu_factor(p), unpack_data=False).L", [_r(3, 3)]),
    ("torch.lu_unpack(*torch.linalg.lu_factor(p), unpack_pivots=False).P", [_r(3, 3)]),
    ("torch.lu(p, get_infos=True)[2]", [_r(2, 3, 3)]), ("p.lu()[0]", [_r(3, 3)]),
    ("torch.lu(p)[0]", [_r(3, 3)]), ("torch.lu_solve(q, *torch.linalg.lu_factor(p))",
                                     [_r(3, 3), _r(3, 1)]),
    # solves
    ("torch.linalg.solve_ex(p, q).result", [_r(3, 3), _r(3, 2)]),
    ("torch.linalg.solve_ex(p, q).info", [_r(3, 3), _r(3)]),
    ("torch.linalg.solve_ex(p * 0, q, check_errors=True)", [_r(2, 2), _r(2)]),
    ("torch.linalg.solve_ex(p * 0, q).result", [_r(2, 2), _r(2)]),
    ("torch.linalg.solve_ex(p, q).info", [np.array([[1, 2], [2, 4]], np.float32), _r(2)]),
    ("torch.linalg.solve_ex(p, q)[0]", [np.array([[1, 2], [2, 4]], np.float32), _r(2)]),
    ("torch.linalg.solve_ex(p, q, left=False)[0]",
     [np.array([[1, 2], [2, 4]], np.float32), _r(3, 2)]),
    ("torch.linalg.solve_ex(p * 0, q, left=False).result", [_r(2, 2), _r(1, 2)]),
    ("torch.linalg.solve_ex(p, q, left=False).result",
     [np.array([[1, 2, 3], [2, 4, 6], [1, 0, 1]], np.float32), _r(2, 3)]),
    ("torch.linalg.solve_ex(p, q).result",
     [np.array([[[1, 2, 3], [2, 4, 6], [1, 0, 1]], np.eye(3)], np.float32), _r(3, 2)]),
    ("torch.cholesky_solve(q, p)", [_low(3), _r(3, 2)]),
    ("torch.cholesky_solve(q, p.mT, upper=True)", [_low(3), _r(3, 2)]),
    ("q.cholesky_solve(p)", [_low(3), _r(2, 3, 2)]),
    ("torch.cholesky_solve(q, p)", [_low(3), _r(3)]),
    ("torch.cholesky_solve(q, p)", [_low(3), _r(2, 3)]),
    ("torch.triangular_solve(q, p).solution", [_tri(3), _r(3, 2)]),
    ("torch.triangular_solve(q, p, upper=False, transpose=True).solution", [_tri(3), _r(3, 2)]),
    ("torch.triangular_solve(q, p, unitriangular=True).solution", [_tri(3), _r(2, 3, 2)]),
    ("torch.triangular_solve(q, p).cloned_coefficient", [_tri(3), _r(3, 2)]),
    ("sum(q.triangular_solve(p, upper=False))", [_tri(3), _r(3, 3)]),
    ("torch.triangular_solve(q, p)", [_tri(3), _r(2, 3)]),
    ("torch.triangular_solve(q, p).solution", [_tri(3)[None].repeat(2, 0), _r(3, 1)]),
    # rank, condition numbers
    ("torch.linalg.matrix_rank(p)", [_r(3, 4)]),
    ("torch.linalg.matrix_rank(p @ p.mT[:2])", [_r(3, 4)]),
    ("torch.linalg.matrix_rank(p, atol=0.5, rtol=0.1)", [_r(2, 3, 4)]),
    ("torch.linalg.matrix_rank(p @ p.mT, hermitian=True)", [_r(3, 2)]),
    ("torch.linalg.matrix_rank(p)", [_r(3)]), ("torch.linalg.matrix_rank(p.long())", [_r(3, 3)]),
    ("torch.linalg.cond(p)", [_r(3, 3)]), ("torch.linalg.cond(p, -2)", [_r(2, 3, 4)]),
    ("torch.linalg.cond(p, 2)", [_r(4, 3)]), ("torch.linalg.cond(p)", [_r(3)]),
    ("torch.linalg.cond(p, 'foo')", [_r(3, 3)]), ("torch.linalg.cond(p, 'fro')", [_r(3, 3)]),
    ("torch.linalg.cond(p, 1)", [_r(2, 3, 3)]), ("torch.linalg.cond(p, float('-inf'))", [_r(3, 3)]),
    ("torch.linalg.cond(p, 'nuc')", [_r(3, 3)]), ("torch.linalg.cond(p, -1)", [_r(2, 3)]),
    ("torch.linalg.cond(p * 0, 'fro')", [_r(3, 3)]), ("torch.linalg.cond(p * 0, 1)", [_r(2, 2, 2)]),
    ("torch.linalg.cond(p, float('inf'))", [np.array([[1, 2], [2, 4]], np.float32)]),
    ("torch.linalg.inv_ex(p).inverse", [np.array([[1, 2], [2, 4]], np.float32)]),
    ("torch.linalg.inv_ex(p).info", [np.array([[[1, 2], [2, 4]], [[0, 0], [0, 1]]], np.float32)]),
    # Householder products
    ("torch.linalg.householder_product(p, q)", [_r(4, 3), _r(2)]),
    ("torch.linalg.householder_product(p, q)", [_r(2, 3, 3), _r(2, 3)]),
    ("torch.orgqr(p, q)", [_r(5, 2), _r(2)]), ("p.orgqr(q)", [_r(3, 2), _r(1)]),
    ("torch.linalg.householder_product(p, q)", [_r(2, 3), _r(2)]),
    ("torch.linalg.householder_product(p, q)", [_r(4, 3), _r(4)]),
    ("torch.linalg.householder_product(p, q.double())", [_r(4, 3), _r(2)]),
    # geqrf, ormqr
    ("torch.geqrf(p).a", [_r(4, 3)]), ("torch.geqrf(p)[1]", [_r(2, 3, 5)]),
    ("p.geqrf().tau", [_r(3, 3)]), ("torch.geqrf(p)", [_r(3)]),
    ("torch.geqrf(p.long())", [_r(3, 3)]),
    ("torch.ormqr(*torch.geqrf(p), q)", [_r(4, 3), _r(4, 2)]),
    ("torch.ormqr(*torch.geqrf(p.detach()), q, transpose=True)", [_r(4, 3), _r(4, 2)]),
    ("torch.ormqr(*torch.geqrf(p.detach()), q, left=False)", [_r(4, 3), _r(2, 4)]),
    ("torch.ormqr(*torch.geqrf(p.detach()), q, left=False, transpose=True)",
     [_r(2, 4, 4), _r(2, 3, 4)]),
    ("torch.ormqr(p, torch.geqrf(p.detach())[1], q)", [_r(4, 3), _r(4, 2)]),
    ("torch.ormqr(p, torch.geqrf(p)[1].detach() * q[:3, 0], q, transpose=True)",
     [_r(4, 3), _r(4, 2)]),
    ("torch.ormqr(*torch.geqrf(p), q)", [_r(4, 3), _r(3, 2)]),
    ("torch.ormqr(*torch.geqrf(p), q.double())", [_r(4, 3), _r(4, 2)]),
    # LDL^T
    ("torch.linalg.ldl_factor(p + p.mT).LD", [_r(4, 4)]),
    ("torch.linalg.ldl_factor_ex(p + p.mT).pivots", [_r(2, 5, 5)]),
    ("torch.linalg.ldl_factor_ex(p + p.mT - 3 * torch.eye(4), hermitian=True).LD", [_r(4, 4)]),
    ("torch.linalg.ldl_factor_ex(p * 0).info", [_r(3, 3)]),
    ("torch.linalg.ldl_factor(p * 0)", [_r(3, 3)]), ("torch.linalg.ldl_factor(p)", [_r(2, 3)]),
    ("torch.linalg.ldl_factor(p.long())", [_r(3, 3)]),
    ("torch.linalg.ldl_solve(*torch.linalg.ldl_factor(p + p.mT), q)", [_r(4, 4), _r(4, 2)]),
    ("torch.linalg.ldl_solve(*torch.linalg.ldl_factor(p + p.mT), q)", [_r(2, 5, 5), _r(5, 3)]),
    ("torch.linalg.ldl_solve(*torch.linalg.ldl_factor(p + p.mT), q)", [_r(3, 3), _r(3)]),
    ("torch.linalg.ldl_solve(*torch.linalg.ldl_factor(p + p.mT), q)", [_r(3, 3), _r(2, 3)]),
    ("torch.linalg.ldl_solve(*torch.linalg.ldl_factor(p + p.mT), q.double())",
     [_r(3, 3), _r(3, 2)]),
    # tensor inverses and solves, Vandermonde matrices
    ("torch.linalg.tensorinv(p, ind=1)", [_r(6, 2, 3)]),
    ("torch.linalg.tensorinv(p)", [_r(2, 2, 4)]),
    ("torch.linalg.tensorinv(p, ind=1)", [_r(2, 3, 6)]),
    ("torch.linalg.tensorinv(p, ind=0)", [_r(2, 3, 6)]),
    ("torch.linalg.tensorsolve(p + 4 * torch.eye(6).reshape(2, 3, 6), q)",
     [_r(2, 3, 6), _r(2, 3)]),
    ("torch.linalg.tensorsolve(p, q)", [_r(3, 3), _r(3)]),
    ("torch.linalg.tensorsolve(p, q, dims=(0,))", [_r(6, 2, 3), _r(2, 3)]),
    ("torch.linalg.tensorsolve(p, q)", [_r(2, 3, 6), _r(3)]),
    ("torch.linalg.vander(p)", [_r(3)]), ("torch.linalg.vander(p, N=5)", [_r(2, 3)]),
    ("torch.linalg.vander(p, N=1)", [_r(3)]), ("torch.linalg.vander(p.long())", [_r(3) * 3]),
]


@requires_torch
@pytest.mark.parametrize(("code", "arrays"), _cases(*CASES))
def test_as_pytorch(code: str, arrays: dict[str, np.ndarray]) -> None:
    problems = _differences(code, arrays)
    assert not problems, f"{code}:\n" + "\n".join(problems)


def test_deprecated_names_warn_once_as_pytorch() -> None:
    from graphviz_autograd.engine import linalg_more

    a = ours.tensor([[2.0, 1.0], [1.0, 3.0]])
    linalg_more._LU_SOLVE_WARNED = linalg_more._LU_WARNED = False
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        lu_, piv = ours.lu(a)
        ours.lu(a)
        ours.lu_solve(a, lu_, piv)
    assert [str(w.message).split("\n")[0] for w in seen] == [
        "torch.lu is deprecated in favor of torch.linalg.lu_factor / torch.linalg.lu_factor_ex "
        "and will be removed in a future PyTorch release.",
        "torch.lu_solve is deprecated in favor of torch.linalg.lu_solveand will be removed in a "
        "future PyTorch release."]


def test_lu_factor_pivots_as_getrf() -> None:
    """The pivots of a matrix whose column maxima tie: the first of the largest wins."""
    _, piv = ours.linalg.lu_factor(ours.tensor([[1.0, 2.0, 3.0], [-1.0, 0.0, 1.0],
                                                [1.0, 1.0, 4.0]]))
    assert piv.tolist() == [1, 2, 3]
    a = ours.tensor([[1.0, 2.0, 3.0], [-1.0, 2.0, 1.0], [2.0, -2.0, 4.0]])
    _, piv = ours.linalg.lu_factor(a)
    assert piv.tolist() == [3, 3, 3]
    p, low, up = ours.linalg.lu(a)
    assert np.allclose((p @ low @ up).tolist(), a.tolist())


@pytest.mark.parametrize("code", [
    "torch.linalg.lu_factor(N[:, :1]).LU", "torch.linalg.lu(N[:1]).U",
    "torch.linalg.lstsq(N, N[0]).solution",
    "torch.linalg.lu_solve(*torch.linalg.lu_factor(N), N, adjoint=True)",
    "torch.linalg.householder_product(N, N[0])"])
def test_create_graph_through_these_is_refused(code: str) -> None:
    n = ours.tensor([[2.0, 0.5], [0.25, 1.5]], requires_grad=True)
    out = eval(code, {"torch": ours, "N": n})
    with pytest.raises(NotImplementedError, match="create_graph through"):
        ours.autograd.grad(out.sum(), n, create_graph=True)


@requires_torch
def test_matrix_exp_of_large_norms_as_pytorch() -> None:
    """Scaling and squaring: the values and gradient in float64 agree closely."""
    import torch

    a = (_r(4, 4) * 5).astype(np.float64)
    got: list[Any] = []
    for module in (torch, ours):
        t = module.tensor(a.tolist(), dtype=module.float64, requires_grad=True)
        e = module.linalg.matrix_exp(t)
        (e * module.arange(16.0, dtype=module.float64).reshape(4, 4)).sum().backward()
        got.append((np.asarray(e.tolist()), np.asarray(t.grad.tolist())))
    assert np.allclose(got[0][0], got[1][0], rtol=1e-10)
    assert np.allclose(got[0][1], got[1][1], rtol=1e-9)


@requires_torch
@pytest.mark.parametrize("code", [
    "torch.linalg.lu_factor(p).LU", "torch.linalg.lu(p).L", "torch.linalg.lu(p).P",
    "torch.lu_unpack(*torch.linalg.lu_factor(p)).U", "torch.linalg.matrix_exp(p)",
    "torch.linalg.lu_solve(*torch.linalg.lu_factor(p), p)",
    "torch.linalg.lu_solve(*torch.linalg.lu_factor(p), p, left=False)",
    "torch.cholesky_solve(p, p.tril() + 3 * torch.eye(3))",
    "torch.triangular_solve(p, p + 3 * torch.eye(3)).solution",
    "torch.triangular_solve(p, p + 3 * torch.eye(3)).cloned_coefficient",
    "torch.linalg.lstsq(p, p).solution", "torch.linalg.householder_product(p, p[0])",
    "torch.linalg.tensorinv(p.reshape(3, 3, 1), ind=1)", "torch.linalg.vander(p[0])"])
def test_output_strides_as_pytorch(code: str) -> None:
    """The layout of each output (LAPACK's column-major results included): it decides later
    views and copies."""
    import torch

    a = _r(3, 3) + 3 * np.eye(3, dtype=np.float32)
    strides = []
    for module in (torch, ours):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            strides.append(eval(code, {"torch": module, "p": module.tensor(a.tolist())}).stride())
    assert strides[0] == strides[1]



@requires_torch
def test_ldl_pivots_as_sytrf() -> None:
    """Bunch-Kaufman's choices (1x1 and 2x2 blocks, the interchanges) on indefinite matrices,
    some with small diagonals: pivots, factors and solutions as PyTorch's LAPACK gives them."""
    import torch

    rng = np.random.default_rng(5)
    for i in range(60):
        n = int(rng.integers(1, 7))
        m = rng.standard_normal((n, n))
        m = m + m.T
        if i % 2:
            m[np.diag_indices(n)] *= 0.01
        b = rng.standard_normal((n, 2))
        for dtype in ("float32", "float64"):
            got = []
            for module in (torch, ours):
                a = module.tensor(m.astype(dtype).tolist(), dtype=getattr(module, dtype))
                ld, piv = module.linalg.ldl_factor(a)
                x = module.linalg.ldl_solve(ld, piv, module.tensor(b.tolist(), dtype=a.dtype))
                got.append((piv.tolist(), np.asarray(ld.tolist()), np.asarray(x.tolist())))
            assert got[0][0] == got[1][0]
            assert np.allclose(got[0][1], got[1][1], rtol=1e-4, atol=1e-5)
            assert np.allclose(got[0][2], got[1][2], rtol=1e-3, atol=1e-4)
