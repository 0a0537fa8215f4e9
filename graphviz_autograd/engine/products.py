"""The user-facing matrix products beyond ``@``: the fused ones with a bias (``addmv``, ``addr``,
``baddbmm``, ``addbmm``, one node each) and the composite ones (``ger``, ``inner``, ``vdot``,
``chain_matmul`` / ``linalg.multi_dot``, ``kron``, ``matrix_power``), checked with PyTorch's
messages and decomposed as PyTorch decomposes them."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from . import functional as F
from . import messages as msg
from .autocast import fp32 as _amp_fp32
from .autocast import lower as _amp_lower
from .autocast import state as _amp
from .autograd import apply, apply_inplace, check_inplace
from .ops_shape import view_array
from .optable import TABLE
from .tensor import Tensor

__all__ = ["addmv", "addr", "baddbmm", "addbmm", "outer", "inner", "vdot", "chain_matmul",
           "multi_dot", "kron", "matrix_power", "cross", "linalg_cross", "dist", "cdist",
           "vecdot"]


def _attrs(beta: Any, alpha: Any) -> dict[str, Any]:
    return {"alpha": alpha, "beta": beta}


def _bias_fits(bias: Tensor, size: tuple[int, ...]) -> None:
    """PyTorch's error where the bias cannot be expanded to the product's size (checked from
    the last dim, as its expand does)."""
    shape = bias._data.shape
    lead = len(size) - len(shape)
    for i in range(len(shape) - 1, -1, -1):
        if shape[i] != 1 and (i + lead < 0 or shape[i] != size[i + lead]):
            raise F._expand_mismatch(size[i + lead], shape[i], i + lead, size, shape)


def addmv(input: Tensor, mat: Tensor, vec: Tensor, *, beta: Any = 1, alpha: Any = 1) -> Tensor:
    _check_addmv(input, mat, vec)
    return apply(TABLE["addmv"], (input, mat, vec), _attrs(beta, alpha))


def _check_addmv(input: Tensor, mat: Tensor, vec: Tensor) -> tuple[int, ...]:
    if mat._data.ndim != 2 or vec._data.ndim != 1 or input._data.ndim > 1:
        raise RuntimeError(f"vector + matrix @ vector expected, got {input._data.ndim}, "
                           f"{mat._data.ndim}, {vec._data.ndim}")
    if not input._dtype is mat._dtype is vec._dtype:
        names = ", ".join(F._sname(t) for t in (input, mat, vec))
        last = names.rsplit(", ", 1)
        raise RuntimeError(f"addmv input tensors must have the same dtype, but got "
                           f"{last[0]}, and {last[1]}")
    n, m = mat._data.shape
    if m != vec._data.shape[0] or input._data.shape not in ((), (1,), (n,)):
        size = "" if input._data.ndim == 0 else str(input._data.shape[0])
        raise RuntimeError(f"size mismatch, got input ({size}), mat ({n}x{m}), vec "
                           f"({vec._data.shape[0]})")
    return (n,)


def addr(input: Tensor, vec1: Tensor, vec2: Tensor, *, beta: Any = 1, alpha: Any = 1) -> Tensor:
    _check_addr(input, vec1, vec2)
    return apply(TABLE["addr"], (input, vec1, vec2), _attrs(beta, alpha),
                 dtype=F.promote(input, vec1, vec2))


def _check_addr(input: Tensor, vec1: Tensor, vec2: Tensor) -> tuple[int, ...]:
    for name, v in (("vec1", vec1), ("vec2", vec2)):
        if v._data.ndim != 1:
            raise RuntimeError(f"addr: Expected 1-D argument {name}, but got {v._data.ndim}-D")
    size = (vec1._data.shape[0], vec2._data.shape[0])
    _bias_fits(input, size)
    return size


def _check_batches(b1: Tensor, b2: Tensor) -> None:
    for name, b in (("batch1", b1), ("batch2", b2)):
        if b._data.ndim != 3:
            raise RuntimeError(f"{name} must be a 3D tensor")


def baddbmm(input: Tensor, batch1: Tensor, batch2: Tensor, *, beta: Any = 1,
            alpha: Any = 1) -> Tensor:
    if _amp.dtype is not None:
        return _amp_lower(baddbmm, input, batch1, batch2, beta=beta, alpha=alpha)
    _check_baddbmm(input, batch1, batch2)
    return apply(TABLE["baddbmm"], (input, batch1, batch2), _attrs(beta, alpha))


def _check_baddbmm(input: Tensor, batch1: Tensor, batch2: Tensor) -> tuple[int, ...]:
    _check_batches(batch1, batch2)
    s1, s2 = batch1._data.shape, batch2._data.shape
    _bias_fits(input, (s1[0], s1[1], s2[2]))
    if s2[:2] != (s1[0], s1[2]):
        raise RuntimeError(f"Expected size for first two dimensions of batch2 tensor to be: "
                           f"[{s1[0]}, {s1[2]}] but got: [{s2[0]}, {s2[1]}].")
    return (s1[0], s1[1], s2[2])


def addbmm(input: Tensor, batch1: Tensor, batch2: Tensor, *, beta: Any = 1,
           alpha: Any = 1) -> Tensor:
    if _amp.dtype is not None:
        return _amp_lower(addbmm, input, batch1, batch2, beta=beta, alpha=alpha)
    _check_addbmm(input, batch1, batch2)
    s1, s2 = batch1._data.shape, batch2._data.shape
    attrs = {**_attrs(beta, alpha), "batch1_sym_argsize_0": s1[0], "batch1_sym_argsize_1": s1[1],
             "batch2_sym_argsize_2": s2[2]}
    return apply(TABLE["addbmm"], (input, batch1, batch2), attrs)


def _check_addbmm(input: Tensor, batch1: Tensor, batch2: Tensor) -> tuple[int, ...]:
    _check_batches(batch1, batch2)
    s1, s2 = batch1._data.shape, batch2._data.shape
    _bias_fits(input, (s1[1], s2[2]))
    if s1[0] != s2[0]:
        raise RuntimeError(f"batch1 and batch2 must have same number of batches, got {s1[0]} "
                           f"and {s2[0]}")
    if s1[2] != s2[1]:
        raise RuntimeError(f"Incompatible matrix sizes for bmm ({s1[1]}x{s1[2]} and "
                           f"{s2[1]}x{s2[2]})")
    return (s1[1], s2[2])


def _inplace(key: str, check: Any) -> Any:
    """``self.<key>_(a, b)``: the fused product written into ``self`` (its node rebased)."""
    def m(self: Tensor, a: Tensor, b: Tensor, *, beta: Any = 1, alpha: Any = 1) -> Tensor:
        check_inplace(self, (a, b))     # NB: PyTorch's autograd checks come first
        if key == "addr" and self._data.ndim != 2:
            raise RuntimeError(f"2D tensor expected, got {self._data.ndim}D tensor for input")
        size = check(self, a, b)
        if tuple(size) != self._data.shape:
            raise RuntimeError(f"Bad in-place call: input tensor size {_shape(self._data.shape)} "
                               f"and output tensor size {_shape(size)} should match")
        attrs = _attrs(beta, alpha)
        if key == "addbmm":
            s1, s2 = a._data.shape, b._data.shape
            attrs.update(batch1_sym_argsize_0=s1[0], batch1_sym_argsize_1=s1[1],
                         batch2_sym_argsize_2=s2[2])
        return apply_inplace(TABLE[key], self, (a, b), attrs)
    m.__name__ = key + "_"
    return m


def outer(a: Tensor, b: Tensor) -> Tensor:
    for name, v in (("self", a), ("vec2", b)):
        if v._data.ndim != 1:
            raise RuntimeError(f"outer: Expected 1-D argument {name}, but got {v._data.ndim}-D")
    return F.mul(F.reshape(a, (a._data.shape[0], 1)), b)


def inner(a: Tensor, b: Tensor) -> Tensor:
    if a._data.ndim == 0 or b._data.ndim == 0:
        return F.mul(a, b)
    sa, sb = a._data.shape, b._data.shape
    if sa[-1] != sb[-1]:
        raise RuntimeError(f"inner() the last dimension must match on both input tensors but "
                           f"got shapes {_shape(sa)} and {_shape(sb)}")
    from .einsum import tensordot
    return tensordot(a, b, ([-1], [-1]))


def _shape(shape: Sequence[int]) -> str:
    return "[" + ", ".join(str(s) for s in shape) + "]"


def vdot(a: Tensor, b: Tensor) -> Tensor:
    F.check_vectors("vdot", a, b)
    return apply(TABLE["vdot"], (a, b))


_CHAIN_WARNED = False


def chain_matmul(*matrices: Any) -> Tensor:
    global _CHAIN_WARNED
    if not _CHAIN_WARNED:
        # NB: PyTorch warns once per process
        _CHAIN_WARNED = True
        msg.warn_user("torch.chain_matmul is deprecated and will be removed in a future PyTorch "
                      "release. Use torch.linalg.multi_dot instead, which accepts a list of two "
                      "or more tensors rather than multiple parameters.", UserWarning)
    if len(matrices) == 1 and isinstance(matrices[0], list | tuple):
        matrices = tuple(matrices[0])
    for m in matrices:
        if m._data.ndim != 2:
            raise RuntimeError(f"Tensor dimension is {m._data.ndim}, expected 2 instead.")
    if len(matrices) == 1:
        return F.clone(matrices[0])
    return multi_dot(matrices)


def multi_dot(tensors: Sequence[Tensor]) -> Tensor:
    """PyTorch's multi_dot: vectors at the ends as a row and a column, then the cheapest order
    of ``mm``s (three matrices: two costs compared; more: the classic matrix-chain order)."""
    n = len(tensors)
    if n < 2:
        raise RuntimeError(f"multi_dot(): expected at least 2 tensors but got {n}")
    ts = list(tensors)
    first, last = ts[0]._data.ndim, ts[-1]._data.ndim
    if first not in (1, 2):
        raise RuntimeError(f"multi_dot(): the first tensor must be 1D or 2D but got {first}D")
    for i in range(1, n - 1):
        if ts[i]._data.ndim != 2:
            raise RuntimeError(f"multi_dot(): tensor {i} must be 2D but got "
                               f"{ts[i]._data.ndim}D")
    if last not in (1, 2):
        raise RuntimeError(f"multi_dot(): the last tensor must be 1D or 2D but got {last}D")
    for i in range(1, n):
        if ts[i]._dtype is not ts[0]._dtype:
            raise RuntimeError(f"multi_dot(): all tensors must have be the same dtype but tensor "
                               f"0 is {_cname(ts[0])} and tensor {i} {_cname(ts[i])}")
    out_shape = [*ts[0]._data.shape[:-1], *ts[-1]._data.shape[1:]]
    if first == 1:
        ts[0] = F.unsqueeze(ts[0], 0)
    if last == 1:
        ts[-1] = F.unsqueeze(ts[-1], -1)
    for i in range(n - 1):
        if ts[i]._data.shape[1] != ts[i + 1]._data.shape[0]:
            raise RuntimeError(f"multi_dot(): tensors {i} and {i + 1} with shapes "
                               f"{_shape(ts[i]._data.shape)} and "
                               f"{_shape(ts[i + 1]._data.shape)} cannot be multiplied")
    if n == 2:
        out = F.mm(ts[0], ts[1])
    elif n == 3:
        a, b = ts[0]._data.shape[0], ts[1]._data.shape[0]
        c, d = ts[2]._data.shape
        if a * c * (b + d) > b * d * (a + c):
            out = F.mm(ts[0], F.mm(ts[1], ts[2]))
        else:
            out = F.mm(F.mm(ts[0], ts[1]), ts[2])
    else:
        out = _chain(ts, _chain_order(ts), 0, n - 1)
    return F.view(out, tuple(out_shape))


def _cname(t: Tensor) -> str:
    return msg.CTYPE_NAME.get(t._dtype.name, t._dtype.name)


def _chain_order(ts: list[Tensor]) -> list[list[int]]:
    """The split of each sub-chain that costs the fewest multiplications (the first such)."""
    n = len(ts)
    p = [t._data.shape[0] for t in ts] + [ts[-1]._data.shape[1]]
    cost = [[0] * n for _ in range(n)]
    split = [[0] * n for _ in range(n)]
    for length in range(1, n):
        for i in range(n - length):
            j = i + length
            cost[i][j] = -1
            for k in range(i, j):
                q = cost[i][k] + cost[k + 1][j] + p[i] * p[k + 1] * p[j + 1]
                if cost[i][j] < 0 or q < cost[i][j]:
                    cost[i][j], split[i][j] = q, k
    return split


def _chain(ts: list[Tensor], split: list[list[int]], i: int, j: int) -> Tensor:
    if i == j:
        return ts[i]
    k = split[i][j]
    left = _chain(ts, split, i, k)
    return F.mm(left, _chain(ts, split, k + 1, j))


def kron(a: Tensor, b: Tensor) -> Tensor:
    """PyTorch's kron: each operand viewed with interleaved unit dims, one ``mul``, and the
    product viewed back (``_unsafe_view``s, which refuse a non-contiguous operand as a view
    would)."""
    nd = max(a._data.ndim, b._data.ndim)
    pa, pb = nd - a._data.ndim, nd - b._data.ndim
    sa = [a._data.shape[i - pa] if i >= pa else 1 for i in range(nd)]
    sb = [b._data.shape[i - pb] if i >= pb else 1 for i in range(nd)]
    shape_a = tuple(x for s in sa for x in (s, 1))
    shape_b = tuple(x for s in sb for x in (1, s))
    result = tuple(x * y for x, y in zip(sa, sb, strict=True))
    # NB: the second operand first (PyTorch's compiler evaluates mul's arguments so)
    vb = _unsafe_view(b, shape_b)
    va = _unsafe_view(a, shape_a)
    # NB: the product laid out as PyTorch's TensorIterator lays it (numpy's order can differ,
    # and the layout decides whether the last view succeeds)
    from .einsum import _iterator_layout
    return _unsafe_view(_iterator_layout(F.mul(va, vb), (va, vb)), result)


def _unsafe_view(t: Tensor, shape: tuple[int, ...]) -> Tensor:
    try:
        view_array(t._data, shape)
    except ValueError:
        raise RuntimeError("view size is not compatible with input tensor's size and stride (at "
                           "least one dimension spans across two contiguous subspaces). Use "
                           ".reshape(...) instead.") from None
    return F._unsafe_view(t, shape)


def matrix_power(t: Tensor, n: int) -> Tensor:
    if not isinstance(n, int) or isinstance(n, bool):
        raise TypeError(f"matrix_power(): argument 'n' (position 2) must be int, not "
                        f"{type(n).__name__}")
    shape = t._data.shape
    if len(shape) < 2:
        raise RuntimeError("linalg.matrix_power: The input tensor A must have at least 2 "
                           "dimensions.")
    if shape[-1] != shape[-2]:
        raise RuntimeError(f"linalg.matrix_power: A must be batches of square matrices, but they "
                           f"are {shape[-2]} by {shape[-1]} matrices")
    if n == 0:
        # NB: PyTorch copies the identity into a clone of the input
        from .indexing import copy_
        eye = Tensor._make(np.broadcast_to(np.eye(shape[-1], dtype=t._data.dtype), shape).copy(),
                           t._dtype)
        return copy_(F.clone(t), eye)
    a = t
    if n < 0:
        from .linalg import inv
        a, n = inv(t), -n
        if n == 1:
            return a
    if n == 1:
        return F.clone(a)
    if n == 2:
        return F.matmul(a, a)
    if n == 3:
        return F.matmul(F.matmul(a, a), a)
    z: Tensor | None = None
    result: Tensor | None = None
    while n > 0:
        bit, n = n % 2, n // 2
        z = a if z is None else F.matmul(z, z)
        if bit:
            result = z if result is None else F.matmul(result, z)
    assert result is not None
    return result


def cross(a: Tensor, b: Tensor, dim: int | None = None) -> Tensor:
    if dim is None:
        msg.warn_user("Using torch.cross without specifying the dim arg is deprecated.\n"
                      "Please either pass the dim explicitly or simply use torch.linalg.cross.\n"
                      "The default value of dim will change to agree with that of linalg.cross "
                      "in a future release.", UserWarning)
        shape = np.broadcast_shapes(a._data.shape, b._data.shape)
        dim = next((i for i, s in enumerate(shape) if s == 3), None)
        if dim is None:
            raise RuntimeError("no dimension of size 3 in input")
    return linalg_cross(a, b, dim=dim)


def linalg_cross(a: Tensor, b: Tensor, *, dim: int = -1) -> Tensor:
    na, nb = a._data.ndim, b._data.ndim
    if na != nb:
        raise RuntimeError("linalg.cross: inputs must have the same number of dimensions.")
    d = F._dim(dim, na)
    sa, sb = a._data.shape[d], b._data.shape[d]
    if sa != 3 or sb != 3:
        raise RuntimeError(f"linalg.cross: inputs dimension {dim} must have length 3. Got {sa} "
                           f"and {sb}")
    F._broadcast_all(a._data.shape, b._data.shape)
    return F.as_given(apply(TABLE["linalg_cross"], (a, b), {"dim": d}, dtype=F.promote(a, b)),
                      dim=dim)


def dist(a: Tensor, b: Tensor, p: Any = 2) -> Tensor:
    F._broadcast_all(a._data.shape, b._data.shape)
    return apply(TABLE["dist"], (a, b), {"p": p}, dtype=F.promote(a, b))


_CDIST_MODES = ("use_mm_for_euclid_dist_if_necessary", "use_mm_for_euclid_dist",
                "donot_use_mm_for_euclid_dist")


def cdist(x1: Tensor, x2: Tensor, p: float = 2.0, compute_mode: str | None = None) -> Tensor:
    """PyTorch's cdist: one CdistBackward0 node, or for the euclidean distance between many
    rows (more than 25 on a side, or as asked) its matrix-product form, viewed."""
    if _amp.dtype is not None:
        return _amp_fp32(cdist, x1, x2, p, compute_mode)
    mode = _CDIST_MODES[0] if compute_mode is None else compute_mode
    if mode not in _CDIST_MODES:
        raise ValueError(f"{compute_mode} is not a valid value for compute_mode")
    n1, n2 = x1._data.ndim, x2._data.ndim
    if n1 < 2 or n2 < 2:
        raise RuntimeError(f"cdist only supports at least 2D tensors, X{1 if n1 < 2 else 2} got: "
                           f"{n1 if n1 < 2 else n2}D")
    c1, c2 = x1._data.shape[-1], x2._data.shape[-1]
    if c1 != c2:
        raise RuntimeError(f"X1 and X2 must have the same number of columns. X1: {c1} X2: {c2}")
    if p < 0:
        raise RuntimeError("cdist only supports non-negative p values")
    r1, r2 = x1._data.shape[-2], x2._data.shape[-2]
    batch = F._broadcast_all(x1._data.shape[:-2], x2._data.shape[:-2])
    use_mm = p == 2 and (mode == _CDIST_MODES[1] or (mode == _CDIST_MODES[0]
                                                      and (r1 > 25 or r2 > 25)))
    if not use_mm:
        return apply(TABLE["cdist"], (x1, x2), {"p": float(p)}, dtype=F.promote(x1, x2))
    if n1 == 2 and n2 == 2:
        out = apply(TABLE["euclidean_dist"], (x1, x2), dtype=F.promote(x1, x2))
        return F.view(out, (r1, r2))
    nb = int(np.prod(batch, dtype=np.int64))
    e1 = F.view(F.contiguous(F.expand(x1, (*batch, r1, c1))), (nb, r1, c1))
    e2 = F.view(F.contiguous(F.expand(x2, (*batch, r2, c2))), (nb, r2, c2))
    out = apply(TABLE["euclidean_dist"], (e1, e2), dtype=F.promote(x1, x2))
    return F.view(out, (*batch, r1, r2))


def vecdot(x: Tensor, y: Tensor, *, dim: int = -1) -> Tensor:
    """PyTorch's linalg.vecdot for real tensors: the product summed over ``dim``."""
    if _amp.dtype is not None:
        return _amp_lower(vecdot, x, y, dim=dim)
    return F.sum(F.mul(x, y), dim)


def _method(fn: Any) -> Any:
    def m(self: Tensor, *args: Any, **kw: Any) -> Any:
        return fn(self, *args, **kw)
    m.__name__ = fn.__name__
    return m


METHODS = {name: _method(globals()[name]) for name in (
    "addmv", "addr", "baddbmm", "addbmm", "outer", "inner", "vdot", "kron", "matrix_power",
    "cross", "dist")}
METHODS["ger"] = METHODS["outer"]


def _addmm(self: Tensor, mat1: Tensor, mat2: Tensor, *, beta: Any = 1, alpha: Any = 1) -> Tensor:
    from .functional import addmm
    return addmm(self, mat1, mat2, beta, alpha)


def _addmm_(self: Tensor, mat1: Tensor, mat2: Tensor, *, beta: Any = 1, alpha: Any = 1
            ) -> Tensor:
    from .functional import ADDMM_KEYS, _matrices, _mm_check, addmm_dtypes
    from .optable import keep_strides
    check_inplace(self, (mat1, mat2))
    addmm_dtypes(self, mat1, mat2)
    _matrices(mat1, mat2)
    _mm_check(mat1, mat2)
    size = (mat1._data.shape[0], mat2._data.shape[1])
    if size != self._data.shape:
        raise RuntimeError(f"Bad in-place call: input tensor size {_shape(self._data.shape)} "
                           f"and output tensor size {_shape(size)} should match")
    return keep_strides(apply_inplace(TABLE["addmm"], self, (mat1, mat2),
                                      {"alpha": alpha, "beta": beta}), mat1, mat2, ADDMM_KEYS)


METHODS.update({"addmm": _addmm, "addmm_": _addmm_})
METHODS.update({"addmv_": _inplace("addmv", _check_addmv), "addr_": _inplace("addr", _check_addr),
                "baddbmm_": _inplace("baddbmm", _check_baddbmm),
                "addbmm_": _inplace("addbmm", _check_addbmm)})
