"""``einsum`` and ``tensordot``, decomposed as PyTorch 2.13 decomposes them on the CPU: each
operand's repeated subscripts taken as diagonals, its dims permuted into one shared order (output
subscripts first, then the contracted ones), then the operands contracted left to right with
sums, ``mul`` and ``bmm``.

NB: PyTorch hands einsums of three or more operands to opt_einsum when that package is
installed, which may reorder the contractions; this engine always contracts left to right, as
PyTorch does without it (``torch.backends.opt_einsum.is_available()`` is False there)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from . import functional as F
from .ordering import diagonal
from .stacking import movedim
from .tensor import Tensor

__all__ = ["einsum", "tensordot"]

_ELLIPSIS = -1          # the label of an ellipsis in a parsed operand
_N_LABELS = 52          # A-Z then a-z, PyTorch's order for an implicit output


# -- parsing -------------------------------------------------------------------------------------
def _label(ch: str) -> int:
    return ord(ch) - ord("A") if ch.isupper() else ord(ch) - ord("a") + 26


def _char(label: int) -> str:
    return chr(ord("A") + label) if label < 26 else chr(ord("a") + label - 26)


def _invalid(i: int) -> RuntimeError:
    return RuntimeError(f"einsum(): invalid subscript given at index {i} in the equation string, "
                        "subscripts must be in [a-zA-Z]")


def _parse_inputs(lhs: str, n_ops: int) -> list[list[int]]:
    labels: list[list[int]] = [[]]
    dots, found_ell = 0, False
    for i, ch in enumerate(lhs):
        if ch == " ":
            continue
        if ch == ".":
            if found_ell:
                raise RuntimeError(f"einsum(): found '.' for operand {len(labels) - 1} for which "
                                   "an ellipsis was already found")
            dots += 1
            if dots == 3:
                labels[-1].append(_ELLIPSIS)
                dots, found_ell = 0, True
            continue
        if dots:
            raise RuntimeError(f"einsum(): found '.' for operand {len(labels) - 1} that is not "
                               "part of any ellipsis")
        if ch == ",":
            if len(labels) == n_ops:
                raise RuntimeError("einsum(): fewer operands were provided than specified in "
                                   "the equation")
            labels.append([])
            found_ell = False
        elif ch.isascii() and ch.isalpha():
            labels[-1].append(_label(ch))
        else:
            raise _invalid(i)
    if dots:
        raise RuntimeError(f"einsum(): found '.' for operand {len(labels) - 1} that is not part "
                           "of any ellipsis")
    if len(labels) != n_ops:
        raise RuntimeError("einsum(): more operands were provided than specified in the "
                           "equation" if len(labels) < n_ops else
                           "einsum(): fewer operands were provided than specified in the "
                           "equation")
    return labels


def _parse_output(rhs: str, start: int, counts: list[int]) -> list[int]:
    out: list[int] = []
    dots, found_ell = 0, False
    for i, ch in enumerate(rhs, start):
        if ch == " ":
            continue
        if ch == ".":
            if found_ell:
                raise RuntimeError("einsum(): found '.' for output for which an ellipsis was "
                                   "already found")
            dots += 1
            if dots == 3:
                out.append(_ELLIPSIS)
                dots, found_ell = 0, True
            continue
        if dots:
            break
        if not (ch.isascii() and ch.isalpha()):
            raise _invalid(i)
        label = _label(ch)
        if label in out:
            raise RuntimeError(f"einsum(): output subscript {ch} appears more than once in the "
                               "output")
        if not counts[label]:
            raise RuntimeError(f"einsum(): output subscript {ch} does not appear in the "
                               "equation for any input operand")
        out.append(label)
    if dots:
        raise RuntimeError("einsum(): found '.' for output that is not part of any ellipsis "
                           "(...)")
    return out


def _shape_text(shape: Sequence[int]) -> str:
    return "[" + ", ".join(str(s) for s in shape) + "]"


# -- the decomposition ---------------------------------------------------------------------------
def einsum(*args: Any) -> Tensor:
    if len(args) < 2:
        raise ValueError("einsum(): must specify the equation string and at least one operand, "
                         "or at least one operand and its subscripts list")
    if isinstance(args[0], Tensor):
        # NB: the sublist form: operand, subscripts, operand, subscripts, ..., [output]
        eq = ",".join("".join(_sublist_char(s) for s in subs) for subs in args[1::2])
        if len(args) % 2 == 1:
            eq += "->" + "".join(_sublist_char(s) for s in args[-1])
            operands: Sequence[Any] = args[:-1:2]
        else:
            operands = args[::2]
    else:
        eq, operands = args[0], args[1:]
    if len(operands) == 1 and isinstance(operands[0], list | tuple):
        operands = operands[0]
    return _einsum(eq, list(operands))


def _sublist_char(n: Any) -> str:
    if n is Ellipsis:
        return "..."
    if 0 <= n < _N_LABELS:
        return _char(n)
    raise ValueError("einsum(): subscript in subscript list is not within the valid range "
                     "[0, 52)")


def _einsum(eq: str, ops: list[Tensor]) -> Tensor:
    if not ops:
        raise RuntimeError("einsum(): must provide at least one operand")
    arrow = eq.find("->")
    lhs = eq if arrow < 0 else eq[:arrow]
    labels = _parse_inputs(lhs, len(ops))

    counts = [0] * _N_LABELS
    ell_dims = 0
    for i, (op, subs) in enumerate(zip(ops, labels, strict=True)):
        n_named = len([s for s in subs if s != _ELLIPSIS])
        if _ELLIPSIS in subs:
            ell_dims = max(ell_dims, op._data.ndim - n_named)
            if op._data.ndim < n_named:
                raise RuntimeError(f"einsum(): the number of subscripts in the equation "
                                   f"({n_named}) is more than the number of dimensions "
                                   f"({op._data.ndim}) for operand {i}")
        elif n_named != op._data.ndim:
            raise RuntimeError(f"einsum(): the number of subscripts in the equation ({n_named}) "
                               f"does not match the number of dimensions ({op._data.ndim}) for "
                               f"operand {i} and no ellipsis was given")
        for s in subs:
            if s != _ELLIPSIS:
                counts[s] += 1

    # each label's (and the ellipsis') place in the shared order: the output's dims first
    place = [-1] * _N_LABELS
    n_places = 0
    ell_place = -1
    if arrow >= 0:
        out_labels = _parse_output(eq[arrow + 2:], arrow + 2, counts)
        for s in out_labels:
            if s == _ELLIPSIS:
                ell_place, n_places = n_places, n_places + ell_dims
            else:
                place[s], n_places = n_places, n_places + 1
    else:
        if any(_ELLIPSIS in subs for subs in labels):
            ell_place, n_places = 0, ell_dims
        for s in range(_N_LABELS):
            if counts[s] == 1:
                place[s], n_places = n_places, n_places + 1
    n_out = n_places
    if ell_place < 0:
        # NB: an ellipsis missing from the output: its dims are summed, before the labels
        ell_place, n_places = n_places, n_places + ell_dims
    for s in range(_N_LABELS):
        if counts[s] and place[s] < 0:
            place[s], n_places = n_places, n_places + 1

    sizes = [1] * _N_LABELS
    ell_sizes = [1] * ell_dims
    aligned = []
    for i, (op, subs) in enumerate(zip(ops, labels, strict=True)):
        aligned.append(_align(i, op, subs, place, n_places, ell_place, ell_dims, sizes,
                              ell_sizes))

    if len(aligned) == 1:
        out = aligned[0]
        if n_places > n_out:
            out = F.sum(out, tuple(range(n_out, n_places)))
        return out
    return _contract(aligned, ops, n_out, n_places)


def _align(i: int, op: Tensor, subs: list[int], place: list[int], n_places: int,
           ell_place: int, ell_dims: int, sizes: list[int], ell_sizes: list[int]) -> Tensor:
    """Operand ``i`` with its repeated subscripts taken as diagonals and its dims permuted
    into the shared order (size 1 where it lacks a label)."""
    perm = [-1] * n_places
    seen = [-1] * _N_LABELS
    t = op
    j = 0
    for s in subs:
        if s == _ELLIPSIS:
            covered = op._data.ndim - (len(subs) - 1)
            for k in range(ell_dims - covered, ell_dims):
                size = t._data.shape[j]
                if size != 1:
                    if ell_sizes[k] not in (1, size):
                        raise RuntimeError(
                            f"einsum(): dimension {j} covered by ellipsis in operand {i}has "
                            f"size {size} which does not broadcast with previously seen "
                            f"ellipsis with size {ell_sizes[k]} for the respective dimension")
                    ell_sizes[k] = size
                perm[ell_place + k] = j
                j += 1
        elif seen[s] != -1:
            first = seen[s]
            shape = t._data.shape
            if shape[first] != shape[j]:
                raise RuntimeError(f"einsum(): subscript {_char(s)} is repeated for operand "
                                   f"{i} but the sizes don't match, {shape[j]} != "
                                   f"{shape[first]}")
            t = movedim(diagonal(t, 0, first, j), -1, first)
        else:
            size = t._data.shape[j]
            if size != 1:
                if sizes[s] not in (1, size):
                    raise RuntimeError(f"einsum(): subscript {_char(s)} has size {size} for "
                                       f"operand {i} which does not broadcast with previously "
                                       f"seen size {sizes[s]}")
                sizes[s] = size
            seen[s] = j
            perm[place[s]] = j
            j += 1
    for k, p in enumerate(perm):
        if p == -1:
            t = F.unsqueeze(t, t._data.ndim)
            perm[k] = j
            j += 1
    return F.permute(t, tuple(perm))


def _contract(aligned: list[Tensor], ops: list[Tensor], n_out: int, n_places: int) -> Tensor:
    # the last operand with a size other than 1 in each dim: the dim is summed there
    last = [0] * n_places
    for d in range(n_places):
        size = aligned[0]._data.shape[d]
        for i in range(1, len(aligned)):
            s = aligned[i]._data.shape[d]
            if size != s and size != 1 and s != 1:
                shapes = " ".join(f"{_shape_text(o._data.shape)}->{_shape_text(a._data.shape)}"
                                  for o, a in zip(ops, aligned, strict=True))
                raise RuntimeError("einsum(): operands do not broadcast with remapped shapes "
                                   f"(original->remapped): {shapes}")
            if s != 1:
                size, last[d] = s, i
    result = aligned[0]
    summed = tuple(d for d in range(n_out, n_places)
                   if last[d] == 0 and result._data.shape[d] != 1)
    if summed:
        result = F.sum(result, summed, keepdim=True)
    for i in range(1, len(aligned)):
        operand = aligned[i]
        pair: list[int] = []
        alone: list[int] = []
        for d in range(n_out, n_places):
            if last[d] == i:
                (alone if result._data.shape[d] == 1 else pair).append(d)
        if alone:
            operand = F.sum(operand, tuple(alone), keepdim=True)
        if pair:
            result = _sumproduct_pair(result, operand, pair)
        else:
            result = _iterator_layout(F.mul(result, operand), (result, operand))
    if n_places > n_out:
        result = F.view(result, result._data.shape[:n_out])
    return result


def _iterator_layout(out: Tensor, inputs: Sequence[Tensor]) -> Tensor:
    """``out`` (an elementwise result of ``inputs``) laid out in memory as PyTorch's
    TensorIterator lays it out: dims ordered by the inputs' strides, fastest first (numpy orders
    them otherwise in some cases; the layout decides whether a later reshape views or copies)."""
    shape = out._data.shape
    nd = len(shape)
    strides = []
    for t in inputs:
        sh, st = t._data.shape, t._data.strides
        lead = nd - len(sh)
        strides.append([0] * lead + [0 if sh[i] == 1 and shape[lead + i] != 1 else st[i]
                                     for i in range(len(sh))])
    order = list(range(nd - 1, -1, -1))

    def should_swap(d0: int, d1: int) -> int:
        for st in strides:
            s0, s1 = st[d0], st[d1]
            if s0 == 0 or s1 == 0:
                continue
            if s0 != s1:
                return 1 if s0 > s1 else -1
            if shape[d0] > shape[d1]:
                return 1
        return 0

    # NB: TensorIterator's insertion sort, where an ambiguous comparison moves on
    for i in range(1, nd):
        d1 = i
        for d0 in range(i - 1, -1, -1):
            c = should_swap(order[d0], order[d1])
            if c > 0:
                order[d0], order[d1] = order[d1], order[d0]
                d1 = d0
            elif c < 0:
                break
    slowest_first = order[::-1]
    data = out._data
    want = np.empty([shape[d] for d in slowest_first], dtype=data.dtype).transpose(
        np.argsort(slowest_first))
    if [w for w, n in zip(want.strides, shape, strict=True) if n > 1] != \
            [h for h, n in zip(data.strides, shape, strict=True) if n > 1]:
        want[...] = data
        out._data = want
    return out


def _sumproduct_pair(left: Tensor, right: Tensor, summed: list[int]) -> Tensor:
    """``(left * right).sum(summed, keepdim=True)`` as one ``bmm``: the dims in both (the
    batch), in left only, summed, in right only, each group flattened."""
    both: list[int] = []
    lonly: list[int] = []
    ronly: list[int] = []
    ls, rs = left._data.shape, right._data.shape
    for d in range(len(ls)):
        if d in summed:
            continue
        if ls[d] != 1 and rs[d] != 1:
            both.append(d)
        elif ls[d] != 1:
            lonly.append(d)
        else:
            ronly.append(d)
    if lonly and ronly and ronly[-1] < lonly[0]:
        # NB: PyTorch swaps the operands when all of right's own dims come before left's
        left, right, lonly, ronly = right, left, ronly, lonly
        ls, rs = rs, ls
    n_both = _prod(ls[d] for d in both)
    n_left = _prod(ls[d] for d in lonly)
    n_right = _prod(rs[d] for d in ronly)
    n_sum = _prod(ls[d] for d in summed)
    out_shape = (*(ls[d] for d in both), *(ls[d] for d in lonly), *(1 for _ in summed),
                 *(rs[d] for d in ronly))
    lperm = (*both, *lonly, *summed, *ronly)
    rperm = (*both, *summed, *ronly, *lonly)
    operm = [0] * len(ls)
    for k, d in enumerate(lperm):
        operm[d] = k
    a = F.reshape(F.permute(left, lperm), (n_both, n_left, n_sum))
    b = F.reshape(F.permute(right, rperm), (n_both, n_sum, n_right))
    return F.permute(F.view(F.bmm(a, b), out_shape), tuple(operm))


# -- tensordot -----------------------------------------------------------------------------------
def tensordot(a: Tensor, b: Tensor, dims: Any = 2, out: Any = None) -> Tensor:
    """PyTorch's tensordot: each operand permuted (free dims, then contracted), reshaped to a
    matrix, one ``mm``, and the product reshaped; a contracted dim of size 1 on one side is
    summed on the other first."""
    if out is not None:
        raise NotImplementedError("tensordot(out=) is not supported by this engine")
    if isinstance(dims, Tensor):
        dims = dims.tolist() if dims._data.size > 1 else int(dims._data.item())
    if isinstance(dims, int):
        if dims < 0:
            raise RuntimeError(f"tensordot expects dims >= 0, but got dims={dims}")
        if dims > min(a._data.ndim, b._data.ndim):
            raise RuntimeError(f"tensordot expects dims < ndim_a or ndim_b, but got dims={dims}")
        dims_a: list[int] = list(range(-dims, 0))
        dims_b: list[int] = list(range(dims))
    else:
        dims_a, dims_b = dims
        for d in (dims_a, dims_b):
            if isinstance(d, int):
                raise TypeError("tensordot(): argument 'dims_self' (position 3) must be tuple "
                                "of ints, not int" if d is dims_a else "tensordot(): argument "
                                "'dims_other' (position 4) must be tuple of ints, not int")
        dims_a, dims_b = list(dims_a), list(dims_b)
    if len(dims_a) != len(dims_b):
        raise RuntimeError("both dimension lists should have same length")
    if a._dtype is not b._dtype:
        raise RuntimeError("both inputs should have same dtype")
    na, nb = a._data.ndim, b._data.ndim
    contracted_a = _dim_set(dims_a, na)
    contracted_b = _dim_set(dims_b, nb)
    t1, t2 = a, b
    for da, db in zip(dims_a, dims_b, strict=True):
        s1, s2 = t1._data.shape[F._dim(da, na)], t2._data.shape[F._dim(db, nb)]
        if s2 == 1:
            t1 = F.sum(t1, da, keepdim=True)
        elif s1 == 1:
            t2 = F.sum(t2, db, keepdim=True)
        elif s1 != s2:
            raise RuntimeError(f"contracted dimensions need to match, but first has size {s1} "
                               f"in dim {da} and second has size {s2} in dim {db}")
    free_a = [d for d in range(na) if d not in contracted_a]
    free_b = [d for d in range(nb) if d not in contracted_b]
    sizes = [t1._data.shape[d] for d in free_a] + [t2._data.shape[d] for d in free_b]
    csize = _prod(t1._data.shape[d] for d in contracted_a)
    rows = _prod(t1._data.shape[d] for d in free_a)
    cols = _prod(t2._data.shape[d] for d in free_b)
    # NB: one number per side left: PyTorch takes a dot of the flattened operands
    as_dot = rows == 1 and cols == 1
    if as_dot:
        # NB: both permuted, then both flattened (or squeezed), the second first (PyTorch's
        # order, as its compiler evaluates the arguments of dot; it orders the backward)
        p1 = F.permute(t1, (*free_a, *dims_a))
        p2 = F.permute(t2, (*dims_b, *free_b))
        if p1._data.flags.c_contiguous and p2._data.flags.c_contiguous:
            f2 = F.flatten(p2)
            product = F.dot(F.flatten(p1), f2)
        else:
            # NB: PyTorch multiplies a non-contiguous pair elementwise and sums, not a dot
            s2 = F.squeeze(p2)
            product = F.sum(F.mul(F.squeeze(p1), s2))
    else:
        m1 = F.reshape(F.permute(t1, (*free_a, *dims_a)), (rows, csize))
        m2 = F.reshape(F.permute(t2, (*dims_b, *free_b)), (csize, cols))
        product = F.mm(m1, m2)
    return F.reshape(product, tuple(sizes))


def _dim_set(dims: list[int], ndim: int) -> set[int]:
    out: set[int] = set()
    for d in dims:
        k = F._dim(d, ndim)
        if k in out:
            raise RuntimeError(f"dim {k} appears multiple times in the list of dims")
        out.add(k)
    return out


def _prod(xs: Any) -> int:
    n = 1
    for x in xs:
        n *= int(x)
    return n

