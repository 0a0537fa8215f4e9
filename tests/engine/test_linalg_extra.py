"""``einsum``, ``tensordot``, the fused and composite matrix products, distances and
``torch.linalg``, checked against real PyTorch 2.13 node for node: every node's name, its
``next_functions``, every ``_saved_*`` value (tensors by value), the output, each input's
gradient, and the errors word for word."""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np
import pytest
from _markers import requires_torch

import graphviz_autograd.torch as ours

from ._support import Recorder, differential

pytestmark = pytest.mark.torch

_RNG = np.random.default_rng(7)


def _r(*shape: int) -> np.ndarray:
    return _RNG.standard_normal(shape).astype(np.float32)


def _spd(n: int) -> np.ndarray:
    m = _RNG.standard_normal((n, n))
    return (m @ m.T + n * np.eye(n)).astype(np.float32)


def _tri(n: int) -> np.ndarray:
    return (_RNG.standard_normal((n, n)) + 3 * np.eye(n)).astype(np.float32)


def _describe(t: Any) -> list[dict[str, Any]]:
    """The graph of ``t`` as a list of nodes in first-visit order: name, next (by index) and
    every ``_saved_*`` value (tensors as arrays)."""
    nodes: list[Any] = []
    out: list[dict[str, Any]] = []

    def visit(fn: Any) -> Any:
        if fn is None:
            return None
        for i, n in enumerate(nodes):
            if n is fn:
                return i
        nodes.append(fn)
        entry: dict[str, Any] = {"name": fn.name(), "saved": {}}
        out.append(entry)
        for attr in sorted(a for a in dir(fn) if a.startswith("_saved_")):
            try:
                v = getattr(fn, attr)
            except RuntimeError as e:
                v = f"error: {e}"
            if hasattr(v, "detach"):
                v = ("tensor", tuple(v.shape), np.asarray(v.detach().tolist(), dtype=float))
            entry["saved"][attr] = v
        entry["next"] = [(visit(n), i) for n, i in fn.next_functions]
        return len(nodes) - 1
    visit(t.grad_fn)
    return out


def _run(module: Any, code: str, arrays: dict[str, np.ndarray]) -> dict[str, Any]:
    env: dict[str, Any] = {"torch": module}
    for name, v in arrays.items():
        env[name] = module.tensor(v.tolist(), requires_grad=True)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            y = eval(code, env)
        except Exception as e:
            return {"error": (type(e).__name__, str(e).split("\nException raised")[0])}
        result: dict[str, Any] = {"graph": _describe(y), "shape": tuple(y.shape),
                                  "value": np.asarray(y.detach().tolist(), dtype=float)}
        w = np.cos(np.arange(int(np.prod(y.shape)))).reshape(tuple(y.shape))
        try:
            y.backward(module.tensor(w.tolist(), dtype=y.dtype))
        except Exception as e:
            result["backward"] = (type(e).__name__, str(e).split("\nException raised")[0])
            return result
    result["grads"] = {k: None if env[k].grad is None else np.asarray(env[k].grad.tolist())
                       for k in arrays}
    return result


def _close(a: Any, b: Any) -> bool:
    return bool(np.allclose(a, b, rtol=1e-4, atol=1e-5, equal_nan=True))


# NB: singular vectors and eigenvectors are defined up to sign; numpy's LAPACK and PyTorch's may
# choose differently (a known difference), so these are compared by absolute value
_UP_TO_SIGN = {"_saved_U", "_saved_Vh", "_saved_eigenvectors"}


def _same_value(u: Any, v: Any, name: str = "") -> bool:
    if isinstance(u, tuple) and u and u[0] == "tensor":
        if not (isinstance(v, tuple) and bool(v) and v[0] == "tensor" and u[1] == v[1]):
            return False
        return _close(np.abs(u[2]), np.abs(v[2])) if name in _UP_TO_SIGN else _close(u[2], v[2])
    return bool(u == v)


def _differences(code: str, arrays: dict[str, np.ndarray]) -> list[str]:
    import torch

    want, got = _run(torch, code, arrays), _run(ours, code, arrays)
    if "error" in want or "error" in got:
        return [] if want == got else [f"torch: {want.get('error')}\nours: {got.get('error')}"]
    problems = []
    if want["shape"] != got["shape"] or not _close(want["value"], got["value"]):
        problems.append(f"output: torch {want['value']} ours {got['value']}")
    if want.get("backward") != got.get("backward"):
        problems.append(f"backward: torch {want.get('backward')} ours {got.get('backward')}")
    for k in want.get("grads", {}):
        gw, gg = want["grads"][k], got["grads"][k]
        if (gw is None) != (gg is None) or (gw is not None and not _close(gw, gg)):
            problems.append(f"{k}.grad: torch {gw} ours {gg}")
    if len(want["graph"]) != len(got["graph"]):
        problems.append(f"graph: {len(want['graph'])} nodes, ours {len(got['graph'])}")
    for i, (x, y) in enumerate(zip(want["graph"], got["graph"], strict=False)):
        if (x["name"], x["next"], sorted(x["saved"])) != (y["name"], y["next"],
                                                          sorted(y["saved"])):
            problems.append(f"node {i}: torch {x['name']} {x['next']} {sorted(x['saved'])}, "
                            f"ours {y['name']} {y['next']} {sorted(y['saved'])}")
            break
        problems += [f"node {i} {x['name']}.{k}: torch {x['saved'][k]}, ours {y['saved'][k]}"
                     for k in x["saved"] if not _same_value(x["saved"][k], y["saved"][k], k)]
    return problems


def _cases(*cases: tuple[str, list[np.ndarray]]) -> list[Any]:
    return [pytest.param(code, dict(zip("pqst", ops, strict=False)), id=code + " " + " ".join(
        "x".join(map(str, o.shape)) or "0d" for o in ops)) for code, ops in cases]


EINSUM = [(f"torch.einsum({eq!r}, {', '.join('pqst'[:len(ops)])})", ops) for eq, ops in [
    ("ij,jk->ik", [_r(2, 3), _r(3, 4)]), ("ij,jk", [_r(2, 3), _r(3, 4)]),
    ("bij,bjk->bik", [_r(2, 3, 4), _r(2, 4, 5)]), ("i,i->", [_r(3), _r(3)]),
    ("ii->i", [_r(3, 3)]), ("ij->ji", [_r(2, 3)]), ("ij->", [_r(2, 3)]), ("ii", [_r(3, 3)]),
    ("bhqd,bhkd->bhqk", [_r(2, 2, 3, 4), _r(2, 2, 5, 4)]),
    ("...ij,...jk", [_r(2, 3, 4), _r(4, 5)]), ("...ij,...jk->...ik", [_r(3, 4), _r(2, 4, 5)]),
    ("ij,jk,kl->il", [_r(2, 3), _r(3, 4), _r(4, 5)]), ("ij,k->i", [_r(2, 3), _r(4)]),
    ("i...->...", [_r(2, 3, 4)]), ("...", [_r(2, 3)]), ("bAj,jk", [_r(2, 3, 4), _r(4, 5)]),
    ("ii,i->", [_r(3, 3), _r(3)]), ("ij,ij->ij", [_r(2, 3), _r(1, 3)]), ("iij->j", [_r(2, 2, 3)]),
    ("ijk,l->i", [_r(2, 3, 4), _r(5)]), ("ij,jkl->ik", [_r(2, 3), _r(3, 2, 2)]),
    ("ij,jkl->i", [_r(2, 3), _r(3, 4, 5)]),
    ("ij,jk->ik", [_r(2, 0), _r(0, 3)]), ("ij,jk->ik", [_r(2, 1), _r(3, 3)]),
    ("i,i", [_r(3), _r(1)]), ("ij,j->i", [_r(2, 1), _r(1)]), ("a...ij->ij", [_r(5, 2, 3, 4)]),
    ("...ij,j->i", [_r(6, 2, 3), _r(3)]), ("b...ij,...jk->...ik", [_r(2, 5, 1, 3, 4), _r(6, 4, 7)]),
    ("bn,anm,bm->ba", [_r(2, 3), _r(4, 3, 5), _r(2, 5)]), ("iji->j", [_r(2, 3, 2)]),
    ("ab,cd,bd->ac", [_r(2, 3), _r(4, 5), _r(3, 5)]), ("...ii->...i", [_r(2, 3, 3)]),
    ("bij,bkj->bik", [_r(1, 3, 4), _r(2, 5, 4)]), ("bij,bkj->bki", [_r(2, 3, 4), _r(2, 5, 4)]),
    ("ba,Bb", [_r(3, 3), _r(1, 3)]), ("xab,jkb->jkax", [_r(2, 3, 4), _r(5, 6, 4)]),
    ("xab,jkb->kxaj", [_r(2, 3, 4), _r(5, 6, 4)]), ("ij, jk -> ik", [_r(2, 3), _r(3, 4)]),
    # errors
    ("ij,jk->ik", [_r(2, 3), _r(4, 5)]), ("ij,jk", [_r(2, 3)]), ("ij", [_r(2, 3), _r(3)]),
    ("ijk", [_r(2, 3)]), ("i1", [_r(2, 3)]), ("ii", [_r(2, 3)]), ("ij->ii", [_r(2, 3)]),
    ("ij->k", [_r(2, 3)]), ("i.j", [_r(2, 3)]), ("...i,...i->...", [_r(2, 3, 5), _r(4, 5)]),
    ("ij->..", [_r(2, 3)]), ("...ij...", [_r(2, 3)]),
]] + [
    ("torch.einsum(p, [0, 1], q, [1, 2], [0, 2])", [_r(2, 3), _r(3, 4)]),
    ("torch.einsum(p, [0, Ellipsis], q, [Ellipsis])", [_r(2, 3), _r(3)]),
    ("torch.einsum('ij,jk', [p, q])", [_r(2, 3), _r(3, 4)]),
    ("torch.einsum('i->')", []),
]

SHAPES = [
    ("torch.tensordot(p, q)", [_r(2, 3, 4), _r(3, 4, 5)]),
    ("torch.tensordot(p, q, dims=([1, 2], [1, 0]))", [_r(2, 3, 4), _r(4, 3, 5)]),
    ("torch.tensordot(p, q, dims=0)", [_r(2, 3), _r(4, 5)]),
    ("torch.tensordot(p, q, dims=torch.tensor([[0], [0]]))", [_r(3, 2), _r(3, 5)]),
    ("torch.tensordot(p, q, dims=([1], [0]))", [_r(2, 3), _r(1, 5)]),
    ("torch.tensordot(p, q, dims=2)", [_r(2, 3), _r(2, 3)]),
    ("torch.tensordot(p, q, dims=1)", [_r(3), _r(3)]),
    ("torch.tensordot(p, q, dims=([0, 0], [0, 1]))", [_r(3, 3), _r(3, 3)]),
    ("torch.tensordot(p, q, dims=(1, 0))", [_r(2, 3), _r(3, 5)]),
    ("torch.tensordot(p, q, dims=5)", [_r(3, 3), _r(3, 3)]),
    # a non-contiguous pair contracted to one number: a product and a sum, not a dot
    ("torch.tensordot(p.t(), q.t())", [_r(2, 3), _r(2, 3)]),
    ("torch.tensordot(p.t(), q)", [_r(2, 3), _r(3, 2)]),
    ("torch.tensordot(p[:, 0], q[:, 1], dims=1)", [_r(3, 2), _r(3, 2)]),
    ("torch.tensordot(p.transpose(1, 2), q.transpose(0, 1), dims=([1, 2], [1, 0]))",
     [_r(1, 3, 2), _r(2, 3, 1)]),
    ("p.diagonal(-1)", [_r(3, 4)]), ("torch.diagonal(p, 1, -1, 0)", [_r(2, 3, 4)]),
    ("p.diagonal(0, 1, 1)", [_r(3, 4)]), ("torch.movedim(p, (0, 1), (2, 0))", [_r(2, 3, 4)]),
    ("torch.moveaxis(p, -1, 0)", [_r(2, 3, 4)]),
    ("torch.linalg.vecdot(p, q, dim=0)", [_r(2, 3), _r(3)]),
    ("torch.linalg.matmul(p, q)", [_r(2, 3), _r(3)]),
    ("torch.linalg.diagonal(p, offset=1, dim1=0, dim2=2)", [_r(2, 3, 3)]),
    ("torch.trace(p)", [_r(3, 4)]), ("torch.trace(p)", [_r(3)]),
    ("torch.trace(p.long())", [_r(3, 3)]),
]

PRODUCTS = [
    ("torch.addmv(p, q, s, beta=2, alpha=3)", [_r(1), _r(3, 4), _r(4)]),
    ("p.addmv(q, s)", [_r(3), _r(3, 4), _r(4)]), ("torch.addmv(p, q, s)", [_r(3), _r(3, 4), _r(5)]),
    ("torch.addmv(p, q, s)", [_r(3), _r(4), _r(4)]),
    ("torch.addr(p, q, s, beta=2, alpha=3)", [_r(4), _r(3), _r(4)]),
    ("torch.addr(p, q, s)", [_r(2, 2), _r(3), _r(4)]),
    ("torch.baddbmm(p, q, s)", [_r(3, 5), _r(2, 3, 4), _r(2, 4, 5)]),
    ("torch.baddbmm(p, q, s)", [_r(2, 3, 5), _r(2, 3, 4), _r(2, 3, 5)]),
    ("torch.addbmm(p, q, s, alpha=2)", [_r(5), _r(2, 3, 4), _r(2, 4, 5)]),
    ("torch.addbmm(p, q, s)", [_r(3, 5), _r(2, 3, 4), _r(3, 4, 5)]),
    ("(p * 1).addmv_(q, s, beta=2, alpha=0.5)", [_r(3), _r(3, 4), _r(4)]),
    ("(p * 1).addmv_(q, s)", [_r(1), _r(3, 4), _r(4)]),
    ("(p * 1).addr_(q, s)", [_r(4), _r(3), _r(4)]),
    ("(p * 1).baddbmm_(q, s)", [_r(2, 3, 5), _r(2, 3, 4), _r(2, 4, 5)]),
    ("(p * 1)[0].addbmm_(q, s, alpha=2)._base", [_r(2, 3, 5), _r(2, 3, 4), _r(2, 4, 5)]),
    ("p[0].addmv_(q, s)", [_r(2, 3), _r(3, 4), _r(4)]),
    ("torch.ger(p, q)", [_r(3), _r(4)]), ("torch.inner(p, q)", [_r(2, 3), _r(4, 3)]),
    ("torch.inner(p, q)", [_r(), _r(3)]), ("torch.vdot(p, q)", [_r(3), _r(4)]),
    ("torch.linalg.multi_dot([p, q, s])", [_r(3), _r(3, 4), _r(4)]),
    ("torch.linalg.multi_dot([p, q, s, t])", [_r(2, 3), _r(3, 6), _r(6, 1), _r(1, 5)]),
    ("torch.linalg.multi_dot([p, q, s])", [_r(2, 3), _r(3), _r(3, 3)]),
    ("torch.linalg.multi_dot([p, q.double()])", [_r(2, 3), _r(3, 3)]),
    ("torch.chain_matmul(p, q)", [_r(2, 3), _r(3, 4)]), ("torch.chain_matmul(p)", [_r(2, 3)]),
    ("torch.kron(p, q)", [_r(2), _r(4, 5)]), ("torch.kron(p.t(), q)", [_r(3, 2), _r(4, 5)]),
    ("torch.matrix_power(p, 0)", [_r(3, 3)]), ("torch.matrix_power(p, 5)", [_r(2, 3, 3)]),
    ("p.matrix_power(6)", [_r(3, 3)]), ("torch.matrix_power(p, -2)", [_r(3, 3)]),
    ("torch.linalg.matrix_power(p, -1)", [_r(3, 3)]), ("torch.matrix_power(p, 2)", [_r(2, 3)]),
    ("torch.cross(p, q)", [_r(3, 2), _r(3, 2)]), ("torch.cross(p, q)", [_r(4, 2), _r(4, 2)]),
    ("torch.linalg.cross(p, q)", [_r(2, 3), _r(1, 3)]),
    ("torch.cross(p, q, dim=1)", [_r(2, 4), _r(2, 4)]),
    ("torch.dist(p, q, float('inf'))", [_r(2, 3), _r(2, 3)]),
    ("torch.dist(p, q, 0)", [_r(2, 3), _r(2, 3)]), ("torch.dist(p, q, 0.5)", [_r(2, 3), _r(3)]),
    ("torch.cdist(p, q)", [_r(30, 3), _r(30, 3)]), ("torch.cdist(p, q)", [_r(2, 30, 3), _r(5, 3)]),
    ("torch.cdist(p, q, p=float('inf'))", [_r(4, 3), _r(5, 3)]),
    ("torch.cdist(p, q, p=1.5)", [_r(2, 4, 3), _r(5, 3)]),
    ("torch.cdist(p, q)", [_r(4, 3), _r(5, 2)]),
]

LINALG = [
    ("p.inverse()", [_r(2, 3, 3)]), ("torch.linalg.inv_ex(p).inverse", [_r(3, 3)]),
    ("torch.linalg.inv(p)", [_r(2, 3)]), ("torch.linalg.inv(p * 0)", [_r(2, 2, 2)]),
    ("torch.linalg.inv(p.long())", [_r(2, 2)]), ("torch.det(p)", [_r(2, 3, 3)]),
    ("torch.det(p)", [np.array([[1, 2, 3], [2, 4, 6], [1, 0, 1]], dtype=np.float32)]),
    ("torch.linalg.slogdet(p)[1]", [np.array([[1, 2], [2, 4]], dtype=np.float32)]),
    ("torch.det(p)", [_r(3)]), ("torch.linalg.slogdet(p).logabsdet", [_r(2, 3, 3)]),
    ("torch.slogdet(p)[1]", [_r(3, 3)]), ("torch.logdet(p)", [_r(3, 3)]),
    ("torch.logdet(-p @ p.t())", [_r(3, 3)]), ("p.logdet()", [_r(2, 3)]),
    ("torch.linalg.solve(p, q)", [_r(2, 3, 3), _r(2, 3, 2)]),
    ("torch.linalg.solve(p, q)", [_r(3, 3), _r(3)]),
    ("torch.linalg.solve(p * 0, q)", [_r(2, 2), _r(2)]),
    ("torch.linalg.solve(p, q)", [_r(2, 2), _r(3, 1)]), ("torch.diag_embed(p)", [_r(2, 3)]),
    ("torch.linalg.solve(p, q, left=False)", [_r(3, 3), _r(2, 3)]),
    ("torch.linalg.solve(p, q, left=False)", [_r(2, 3, 3), _r(2, 4, 3)]),
    ("torch.linalg.solve(p, q, left=False)", [_r(3, 3), _r(3)]),
    ("torch.linalg.solve(p, q, left=False)", [_r(3, 3), _r(3, 2)]),
    ("torch.diag_embed(p, -1, 2, 0)", [_r(2, 3)]), ("p.diag_embed(0, 1, 1)", [_r(2, 3)]),
    ("torch.linalg.cholesky(p, upper=True)", [_spd(3)]), ("torch.cholesky(p)", [_spd(3)]),
    ("torch.linalg.cholesky(-p)", [_spd(2)]), ("torch.linalg.cholesky_ex(p).L", [_spd(3)]),
    ("torch.linalg.vector_norm(p, ord=1, dim=1)", [_r(3, 3)]),
    ("torch.linalg.matrix_norm(p)", [_r(3, 3)]),
    ("torch.linalg.matrix_norm(p, ord=float('inf'))", [_r(3, 4)]),
    ("torch.linalg.matrix_norm(p, ord=1, keepdim=True)", [_r(2, 3, 4)]),
    ("torch.linalg.norm(p)", [_r(3, 3)]), ("torch.linalg.norm(p, 1)", [_r(3, 3)]),
    ("torch.linalg.norm(p, 3)", [_r(3)]), ("torch.linalg.norm(p, dim=(0, 1))", [_r(3, 3)]),
    ("torch.linalg.vector_norm(p.long())", [_r(3)]), ("torch.linalg.matrix_norm(p)", [_r(3)]),
    ("torch.linalg.matrix_norm(p, ord=3)", [_r(3, 3)]), ("torch.linalg.norm(p, 'fro')", [_r(3)]),
    ("torch.linalg.svdvals(p)", [_r(2, 3, 5)]), ("torch.linalg.svd(p)[1]", [_r(4, 3)]),
    ("torch.svd(p).S", [_r(3, 3)]), ("torch.linalg.matrix_norm(p, 2)", [_r(2, 3, 4)]),
    ("torch.linalg.norm(p, 'nuc')", [_r(3, 4)]), ("torch.linalg.eigvalsh(p)", [_r(2, 3)]),
    ("torch.linalg.eigh(p, UPLO='U').eigenvalues", [_r(3, 3)]),
    ("torch.linalg.qr(p).Q", [_r(4, 3)]), ("torch.linalg.qr(p).R", [_r(3, 5)]),
    ("torch.linalg.qr(p).Q", [_r(2, 3, 5)]), ("torch.linalg.qr(p, mode='complete').R", [_r(3, 4)]),
    ("torch.linalg.qr(p, mode='complete').Q", [_r(4, 3)]),
    ("torch.linalg.qr(p, mode='r').R", [_r(4, 3)]),
    ("torch.linalg.qr(p, mode='x')", [_r(4, 3)]), ("torch.linalg.pinv(p)", [_r(4, 3)]),
    ("torch.linalg.pinv(p)", [_r(3, 5)]), ("p.pinverse()", [_r(2, 3, 4)]),
    ("torch.linalg.solve_triangular(p, q, upper=False)", [_tri(3), _r(3, 2)]),
    ("torch.linalg.solve_triangular(p, q, upper=True, unitriangular=True)", [_tri(3), _r(3, 2)]),
    ("torch.linalg.solve_triangular(p, q, upper=False, left=False)", [_tri(3), _r(2, 3)]),
    ("torch.linalg.solve_triangular(p, q, upper=True)", [_tri(3), _r(2, 3, 2)]),
    ("torch.linalg.solve_triangular(p, q)", [_tri(3), _r(3, 2)]),
    ("torch.linalg.solve_triangular(p, q, upper=True)", [_tri(3), _r(3)]),
    ("torch.linalg.solve_triangular(p, q, upper=True, left=False)", [_tri(3), _r(4, 2)]),
    ("torch.linalg.matrix_norm(p, 'nuc', keepdim=True)", [_r(3, 3)]),
    ("torch.linalg.vector_norm(p, dtype=torch.float64)", [_r(3)]),
    ("torch.linalg.vector_norm(p, ord=0, dim=1)", [_r(3, 4) * (_r(3, 4) > 0)]),
    ("torch.linalg.vector_norm(p, ord=float('-inf'), dim=0)", [_r(3, 4)]),
    ("torch.linalg.vector_norm(p, ord=-1.5)", [_r(3, 4)]),
    ("torch.linalg.matrix_norm(p, 2, dim=(0, 2), keepdim=True)", [_r(2, 3, 4)]),
    ("torch.linalg.matrix_norm(p, -2)", [_r(2, 3, 4)]), ("torch.linalg.norm(p, -1)", [_r(3, 4)]),
    ("torch.linalg.matrix_norm(p, float('-inf'), keepdim=True)", [_r(2, 3, 4)]),
]


@requires_torch
@pytest.mark.parametrize(("code", "arrays"), _cases(*EINSUM, *SHAPES, *PRODUCTS, *LINALG))
def test_as_pytorch(code: str, arrays: dict[str, np.ndarray]) -> None:
    problems = _differences(code, arrays)
    assert not problems, f"{code}:\n" + "\n".join(problems)


@requires_torch
@pytest.mark.parametrize("code", [
    "U, S, Vh = torch.linalg.svd(A, full_matrices=False); "
    "out = (U * U * torch.arange(3.0)).sum() + (Vh ** 4).sum()",
    "U, S, Vh = torch.linalg.svd(A.mT); out = (U ** 4).sum() + (Vh[:3] ** 2).sum() + S.sum()",
    "L, V = torch.linalg.eigh(A[:3] + A[:3].mT); out = (V ** 4).sum() + L.sum()",
    "V = torch.svd(A).V; out = (V ** 2 * torch.arange(3.0)).sum()"])
def test_singular_and_eigen_vectors_gradients_as_pytorch(code: str) -> None:
    """Gradients through the vectors, by losses that do not depend on their signs."""
    import torch

    grads = []
    a = _r(4, 3).astype(np.float64)
    for module in (torch, ours):
        env: dict[str, Any] = {"torch": module,
                               "A": module.tensor(a.tolist(), dtype=module.float64,
                                                  requires_grad=True)}
        exec(code, env)
        env["out"].backward()
        grads.append(np.asarray(env["A"].grad.tolist()))
    assert np.allclose(grads[0], grads[1], rtol=1e-6, atol=1e-8)


@requires_torch
def test_einsum_create_graph_as_pytorch() -> None:
    """The gradient's graph of a contraction (create_graph) is PyTorch's node for node."""
    import torch

    graphs = []
    va, vb = _r(2, 3), _r(3, 2)
    for module in (torch, ours):
        a = module.tensor(va.tolist(), requires_grad=True)
        b = module.tensor(vb.tolist(), requires_grad=True)
        out = module.einsum("ij,jk,ii->ik", a, b, module.ones(2, 2) + a[:, :2])
        (g,) = module.autograd.grad(out.sum(), a, create_graph=True)
        graphs.append(([n["name"] for n in _describe(g)], g.detach().tolist()))
    assert graphs[0][0] == graphs[1][0]
    assert np.allclose(graphs[0][1], graphs[1][1], rtol=1e-5)


def test_the_linalg_namespace_is_torch_linalg_in_scripts() -> None:
    from graphviz_autograd.torch_alias import native_torch

    with native_torch():
        import torch.linalg as linalg  # type: ignore[import-not-found]

        assert linalg is ours.linalg
    assert ours.linalg.LinAlgError.__mro__[1] is RuntimeError


@pytest.mark.parametrize("code", [
    "torch.linalg.det(N * torch.tensor([[1.0, 1.0], [0.0, 0.0]]))",
    "torch.cdist(N, N * 2)", "torch.cdist(N, N * 2, compute_mode='use_mm_for_euclid_dist')",
    "torch.linalg.svdvals(N)", "torch.linalg.eigvalsh(N)", "torch.linalg.qr(N).R",
    "torch.linalg.pinv(N)"])
def test_create_graph_through_a_decomposition_is_refused(code: str) -> None:
    n = ours.tensor([[2.0, 0.5], [0.25, 1.5]], requires_grad=True)
    out = eval(code, {"torch": ours, "N": n})
    with pytest.raises(NotImplementedError, match="create_graph through"):
        ours.autograd.grad(out.sum(), n, create_graph=True)


VIEWS = ["h.view(3, 1, 1, 1)", "h.reshape(1, 3)", "h.view(-1)", "p.view(2, 1, 3, 1)",
         "p.permute(1, 0, 2).reshape(3, 2, 1)", "q.view(1, 4)", "q.unsqueeze(0).view(4, 1, 1)",
         "torch.kron(h, torch.ones(3, 3))", "torch.kron(torch.ones(2, 2), h)"]


@pytest.mark.parametrize("code", VIEWS)
def test_views_of_size_1_dims_take_pytorchs_strides(code: str) -> None:
    """A size-1 dim's stride is free, and PyTorch's view sets it by its own rule; it decides
    the layout of a later elementwise result, so whether ``kron`` of such a view can view its
    product back (seed 42313 of the random programs: PyTorch raises there)."""
    def snippet(rec: Recorder) -> None:
        torch = rec.torch
        h = torch.movedim(torch.tensor([1.0, 2.0, 3.0]).unsqueeze(0), 0, 1)
        p = torch.arange(6.0).reshape(2, 1, 3).transpose(0, 2)
        q = torch.arange(4.0).reshape(4, 1)[:, :1].t().t()
        env = {"torch": torch, "h": h, "p": p, "q": q}
        rec.attempt("strides", lambda: eval(code, env).stride())
    differential(snippet)
