"""Table entries: the matmul family (mm, mv, dot, bmm, addmm, addmv, addr, addbmm; baddbmm is
``ops_attention``'s)."""

from __future__ import annotations

from typing import Any

import numpy as np

from .optable import Op, Save, element_strides, keep_strides, register, strides_key

_KEYS = {name: strides_key(name) for name in ("self", "mat1", "mat2")}
_MM_KEYS = (_KEYS["self"], _KEYS["mat2"])


def _column_major(c: Any, name: str, i: int) -> bool:
    """Was input ``i`` (``name``) column-major (a transposed matrix)? PyTorch then gives its
    gradient as one too: computed transposed (strides kept by ``optable.keep_strides``). NB:
    asked with create_graph only, where it shapes the graph; on arrays the same product is
    taken directly (the values agree but for rounding)"""
    strides = element_strides(c.node, _KEYS[name], i)
    return len(strides) == 2 and strides[0] == 1 and strides[1] == c.shape(i)[0]


def _mm(a: Any, b: Any, D: Any) -> Any:
    out = D.mm(a, b)
    return keep_strides(out, a, b, _MM_KEYS) if D.tensor_mode else out


def _mat1_grad(g: Any, m2: Any, column_major: bool, D: Any) -> Any:
    # NB: PyTorch's mm_mat1_backward: (mat2 @ grad.t()).t() for a column-major mat1
    return D.t(_mm(m2, D.t(g), D)) if column_major else _mm(g, D.t(m2), D)


def _mat2_grad(g: Any, m1: Any, column_major: bool, D: Any) -> Any:
    # NB: PyTorch's mm_mat2_backward: (grad.t() @ mat1).t() for a column-major mat2
    return D.t(_mm(D.t(g), m1, D)) if column_major else _mm(D.t(m1), g, D)


def _mm_bw(c: Any, g: Any, D: Any) -> tuple[Any, ...]:
    if not D.tensor_mode:          # NB: the hot path: the products directly
        return (D.mm(g, D.t(c.mat2)) if c.needs[0] else None,
                D.mm(D.t(c.self), g) if c.needs[1] else None)
    # NB: mat2's first, as PyTorch's generated code (see ops_pointwise._mul_bw)
    g2 = _mat2_grad(g, c.self, _column_major(c, "mat2", 1), D) if c.needs[1] else None
    return (_mat1_grad(g, c.mat2, _column_major(c, "self", 0), D) if c.needs[0] else None), g2


def _mv_bw(c: Any, g: Any, D: Any) -> tuple[Any, ...]:
    # NB: PyTorch's grad.outer(vec): grad as a column times vec (its double backward's nodes)
    return (D.mul(D.reshape(g, shape=(-1, 1)), c.vec) if c.needs[0] else None,
            D.mv(D.t(c.self), g) if c.needs[1] else None)


def _dot_bw(c: Any, g: Any, D: Any) -> tuple[Any, ...]:
    return (D.mul(g, c.tensor) if c.needs[0] else None,
            D.mul(g, c.self) if c.needs[1] else None)


def _bmm_bw(c: Any, g: Any, D: Any) -> tuple[Any, ...]:
    g2 = D.bmm(D.transpose(c.self, dim0=1, dim1=2), g) if c.needs[1] else None
    return (D.bmm(g, D.transpose(c.mat2, dim0=1, dim1=2)) if c.needs[0] else None), g2


def _scale(x: Any, k: Any, D: Any) -> Any:
    return x if k == 1 else D.mul_scalar(x, other=k)


def _addmm_fwd(bias: Any, m1: Any, m2: Any, beta: Any = 1, alpha: Any = 1) -> Any:
    prod = m1 @ m2
    if alpha != 1:
        prod = prod * alpha
    return prod + bias if beta == 1 else prod + beta * bias


def _addmm_bw(c: Any, g: Any, D: Any) -> tuple[Any, ...]:
    alpha, beta = c.attrs.get("alpha", 1), c.attrs.get("beta", 1)
    if not D.tensor_mode:          # NB: the hot path: the products directly
        return (_scale(g, beta, D) if c.needs[0] else None,
                _scale(D.mm(g, D.t(c.mat2)), alpha, D) if c.needs[1] else None,
                _scale(D.mm(D.t(c.mat1), g), alpha, D) if c.needs[2] else None)
    return (_scale(g, beta, D) if c.needs[0] else None,
            _scale(_mat1_grad(g, c.mat2, _column_major(c, "mat1", 1), D), alpha, D)
            if c.needs[1] else None,
            _scale(_mat2_grad(g, c.mat1, _column_major(c, "mat2", 2), D), alpha, D)
            if c.needs[2] else None)


# -- the fused products with a bias: beta * self + alpha * product ------------------------------
def _biased(prod: Any, bias: Any, beta: Any, alpha: Any) -> Any:
    if alpha != 1:
        prod = prod * alpha
    if beta == 0:
        # NB: as PyTorch, beta=0 ignores self (nan and inf in it included)
        return prod + np.zeros_like(bias)
    return prod + bias if beta == 1 else prod + beta * bias


def _addmv_fwd(bias: Any, mat: Any, vec: Any, beta: Any = 1, alpha: Any = 1) -> Any:
    return _biased(mat @ vec, bias, beta, alpha)


def _addr_fwd(bias: Any, v1: Any, v2: Any, beta: Any = 1, alpha: Any = 1) -> Any:
    return _biased(np.multiply.outer(v1, v2), bias, beta, alpha)


def _addbmm_fwd(bias: Any, b1: Any, b2: Any, beta: Any = 1, alpha: Any = 1, **_: Any) -> Any:
    return _biased(np.matmul(b1, b2).sum(axis=0), bias, beta, alpha)


def _ab(c: Any) -> tuple[Any, Any]:
    return c.attrs.get("alpha", 1), c.attrs.get("beta", 1)


def _addmv_bw(c: Any, g: Any, D: Any) -> tuple[Any, ...]:
    alpha, beta = _ab(c)
    # NB: the matrix's gradient as PyTorch's grad.ger(vec): grad as a column times vec
    # NB: in input order, as PyTorch's generated code for these fused products
    g0 = _scale(g, beta, D) if c.needs[0] else None
    g1 = _scale(D.mul(D.reshape(g, shape=(-1, 1)), c.vec), alpha, D) if c.needs[1] else None
    return g0, g1, _scale(D.mv(D.t(c.mat), g), alpha, D) if c.needs[2] else None


def _addr_bw(c: Any, g: Any, D: Any) -> tuple[Any, ...]:
    alpha, beta = _ab(c)
    g0 = _scale(g, beta, D) if c.needs[0] else None
    g1 = _scale(D.mv(g, c.vec2), alpha, D) if c.needs[1] else None
    return g0, g1, _scale(D.mv(D.t(g), c.vec1), alpha, D) if c.needs[2] else None


def _addbmm_bw(c: Any, g: Any, D: Any) -> tuple[Any, ...]:
    alpha, beta = _ab(c)
    a = c.attrs
    size = (a["batch1_sym_argsize_0"], a["batch1_sym_argsize_1"], a["batch2_sym_argsize_2"])
    g0 = _scale(g, beta, D) if c.needs[0] else None
    g2 = g1 = None
    if c.needs[1]:
        wide = D.expand(D.unsqueeze(g, dim=0), size=size)
        g1 = _scale(D.bmm(wide, D.transpose(c.batch2, dim0=1, dim1=2)), alpha, D)
    if c.needs[2]:
        wide = D.expand(D.unsqueeze(g, dim=0), size=size)
        g2 = _scale(D.bmm(D.transpose(c.batch1, dim0=1, dim1=2), wide), alpha, D)
    return g0, g1, g2


register(
    # NB: np.dot, not np.matmul: the same product of two matrices, with less overhead per call
    Op("mm", "MmBackward0", ("self", "mat2"), np.dot, _mm_bw,
       (Save("mat2", (0,)), Save("self", (1,))), exact=True),
    Op("mv", "MvBackward0", ("self", "vec"), np.matmul, _mv_bw,
       (Save("self", (1,)), Save("vec", (0,))), exact=True),
    Op("dot", "DotBackward0", ("self", "tensor"), np.dot, _dot_bw,
       (Save("self", (1,)), Save("tensor", (0,)))),
    Op("bmm", "BmmBackward0", ("self", "mat2"), np.matmul, _bmm_bw,
       (Save("mat2", (0,)), Save("self", (1,))), exact=True),
    Op("addmm", "AddmmBackward0", ("self", "mat1", "mat2"), _addmm_fwd, _addmm_bw,
       (Save("mat1", (2,)), Save("mat2", (1,))), ("alpha", "beta")),
    Op("addmv", "AddmvBackward0", ("self", "mat", "vec"), _addmv_fwd, _addmv_bw,
       (Save("mat", (2,)), Save("vec", (1,))), ("alpha", "beta")),
    Op("addr", "AddrBackward0", ("self", "vec1", "vec2"), _addr_fwd, _addr_bw,
       (Save("vec1", (2,)), Save("vec2", (1,))), ("alpha", "beta")),
    Op("addbmm", "AddbmmBackward0", ("self", "batch1", "batch2"), _addbmm_fwd, _addbmm_bw,
       (Save("batch1", (2,)), Save("batch2", (1,))),
       ("alpha", "batch1_sym_argsize_0", "batch1_sym_argsize_1", "batch2_sym_argsize_2",
        "beta")),
)
