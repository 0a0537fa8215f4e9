"""A second family of ops for the random programs (``_random_programs``): ordering, triangles and
diagonals, scatters, shape composites, products, fused pointwise ops, activations (in place
too) and losses. Leaves hold distinct values (sometimes one zero), and ops whose result depends
on ties (sort, topk, kthvalue, cummax, ...) only see leaves, so PyTorch's choice is specified.

``program_extra(seed)`` is a function of its seed only, like ``program``.
"""

from __future__ import annotations

import random
from collections.abc import Callable

from ._random_programs import UNKNOWN, Shape, Var, broadcast, program

F = "torch.nn.functional"
Op = tuple[str, Shape | None]


def _values(rng: random.Random, n: int) -> list[float]:
    out = [v / 100 for v in rng.sample([v for v in range(-200, 201) if v], n)]
    if n > 1 and rng.random() < 0.15:
        out[rng.randrange(n)] = 0.0
    return out


def _literal(values: list[float], shape: Shape) -> str:
    if shape == ():
        return repr(values[0])
    step = len(values) // shape[0]
    return "[" + ", ".join(_literal(values[i * step:(i + 1) * step], shape[1:])
                           for i in range(shape[0])) + "]"


def leaf(rng: random.Random, name: str, shape: Shape) -> str:
    dtype = ", dtype=torch.float64" if rng.random() < 0.2 else ""
    n = 1
    for s in shape:
        n *= s
    return (f"{name} = torch.tensor({_literal(_values(rng, n), shape)}{dtype}, "
            "requires_grad=True)")


def _size(shape: Shape) -> int:
    n = 1
    for s in shape:
        n *= s
    return n


# -- one op of each group: (template of the result, its shape), None where the shape does not fit
def ordering(rng: random.Random, v: str, shape: Shape) -> Op:
    """Only on a leaf (distinct values): the engine and PyTorch pick the same element."""
    if shape == ():
        return rng.choice([(f"{v}.sort().values", ()), (f"{v}.cumprod(0)", ()),
                           (f"{v}.logcumsumexp(0)", ()), (f"{v}.cummax(0).values", ())])
    n = shape[-1]
    k = min(2, n)
    ops: list[Op] = [(f"{v}.sort(-1).values", shape), (f"{v}.sort(0, descending=True)[0]", shape),
                     (f"torch.sort({v}, stable=True).values", shape),
                     (f"{v}.topk({k}).values", (*shape[:-1], k)),
                     (f"{v}.topk(1, dim=0, largest=False)[0]", (1, *shape[1:])),
                     (f"{v}.kthvalue({k}).values", shape[:-1]),
                     (f"{v}.kthvalue(1, 0, keepdim=True)[0]", (1, *shape[1:])),
                     (f"{v}.cummax(-1).values", shape), (f"{v}.cummin(0)[0]", shape),
                     (f"{v}.cumprod(-1)", shape), (f"torch.cumprod({v}, 0)", shape),
                     (f"{v}.logcumsumexp(-1)", shape), (f"{v}.msort()", shape)]
    if n >= 2:
        ops += [(f"{v}.diff()", (*shape[:-1], n - 1)),
                (f"torch.diff({v}, dim=-1, prepend={v}[..., :1])", shape)]
    if shape[0] >= 2:
        ops.append((f"{v}.diff(dim=0)", (shape[0] - 1, *shape[1:])))
    return rng.choice(ops)


def triangles(rng: random.Random, v: str, shape: Shape) -> Op:
    if len(shape) == 2:
        r, c = shape
        return rng.choice([(f"{v}.triu()", shape), (f"{v}.tril(-1)", shape),
                           (f"torch.triu({v}, 1)", shape),
                           (f"{v}.diagonal()", (min(r, c),)),
                           (f"torch.diagonal({v}, 1)", (max(0, min(r, c - 1)),)),
                           (f"{v}.trace()", ()), (f"{v}.diag()", (min(r, c),)),
                           (f"torch.diag_embed({v})", (r, c, c))])
    if len(shape) == 1:
        n = shape[0]
        return rng.choice([(f"torch.diag_embed({v})", (n, n)), (f"{v}.diag(1)", (n + 1, n + 1)),
                           (f"{v}.diag_embed(-1)", (n + 1, n + 1))])
    return ("", None)


def _perm(rng: random.Random, n: int) -> list[int]:
    out = list(range(n))
    rng.shuffle(out)
    return out


def scatters(rng: random.Random, v: str, shape: Shape, others: list[Var]) -> Op:
    if len(shape) == 2 and 0 not in shape:     # NB: an empty dim has no index to pick
        r, c = shape
        same = [o[0] for o in others if o[1] == shape]
        src = rng.choice(same) if same else f"{v} * 2"
        rows = [_perm(rng, r) for _ in range(c)]            # index (r, c) along dim 0, a perm
        idx0 = "[" + ", ".join("[" + ", ".join(str(rows[j][i]) for j in range(c)) + "]"
                               for i in range(r)) + "]"
        any0 = "[" + ", ".join(str(rng.randrange(r)) for _ in range(c)) + "]"
        col = [rng.randrange(c) for _ in range(r)]
        take = "[" + ", ".join(f"[{x}]" for x in col) + "]"
        pick = rng.sample(range(r), min(2, r))
        src_rows = [o[0] for o in others if o[1] == (len(pick), c)]
        source = rng.choice(src_rows) if src_rows else f"{v}[:{len(pick)}] * 3"
        return rng.choice([
            (f"{v}.scatter(0, torch.tensor({idx0}), {src})", shape),
            (f"{v}.scatter(1, torch.tensor({take}), 0.5)", shape),
            (f"torch.scatter({v}, 1, torch.tensor({take}), {src})", shape),
            (f"{v}.scatter_add(0, torch.tensor([{any0}]), {src})", shape),
            (f"{v}.scatter_add(1, torch.tensor({take}), {src})", shape),
            (f"{v}.index_fill(0, torch.tensor({pick}), -1.5)", shape),
            (f"{v}.index_fill(1, torch.tensor([{col[0]}]), 0.25)", shape),
            (f"{v}.index_copy(0, torch.tensor({pick}), {source})", shape),
            (f"torch.take_along_dim({v}, torch.tensor({take}), 1)", (r, 1)),
            (f"{v}.take_along_dim(torch.tensor([{any0}]), dim=0)", (1, c)),
            (f"{v}.repeat_interleave(2, dim=0)", (2 * r, c)),
            (f"{v}.repeat_interleave(torch.tensor({[x % 3 for x in range(1, c + 1)]}), dim=1)",
             (r, sum(x % 3 for x in range(1, c + 1)))),
            (f"torch.repeat_interleave({v}, 2)", (2 * r * c,))])
    if len(shape) == 1:
        n = shape[0]
        same = [o[0] for o in others if o[1] == shape]
        src = rng.choice(same) if same else f"{v} - 1"
        perm = _perm(rng, n)
        return rng.choice([
            (f"{v}.scatter(0, torch.tensor({perm}), {src})", shape),
            (f"{v}.scatter_add(0, torch.tensor({[rng.randrange(n) for _ in range(n)]}), {src})",
             shape),
            (f"{v}.index_fill(0, torch.tensor([{perm[0]}]), 2.0)", shape),
            (f"{v}.index_copy(0, torch.tensor({perm}), {src})", shape),
            (f"{v}.take_along_dim(torch.tensor({perm}))", (n,)),
            (f"{v}.repeat_interleave(3)", (3 * n,))])
    return (f"{v}.repeat_interleave(2)", (2,))


def shapes(rng: random.Random, v: str, shape: Shape) -> Op:
    if len(shape) == 2:
        r, c = shape
        return rng.choice([(f"{v}.movedim(0, 1)", (c, r)), (f"torch.movedim({v}, -1, 0)", (c, r)),
                           (f"{v}.broadcast_to(2, {r}, {c})", (2, r, c)),
                           (f"{v}.tile((2, 1))", (2 * r, c)), (f"{v}.tile(2)", (r, 2 * c)),
                           (f"torch.hstack([{v}, {v} * 2])", (r, 2 * c)),
                           (f"torch.vstack([{v}, {v}])", (2 * r, c)),
                           (f"{v}.tensor_split(2, dim=1)[0]", (r, (c + 1) // 2)),
                           (f"{v}.tensor_split([1], dim=0)[1]", (r - 1, c)),
                           (f"{v}.flatten().unflatten(0, ({c}, {r}))", (c, r)),
                           (f"{v}.unflatten(1, (1, {c}))", (r, 1, c))])
    if len(shape) == 1:
        n = shape[0]
        return rng.choice([(f"{v}.broadcast_to(({2}, {n}))", (2, n)), (f"{v}.tile(2)", (2 * n,)),
                           (f"torch.hstack([{v}, {v}.exp()])", (2 * n,)),
                           (f"{v}.tensor_split(3)[1]", (n // 3 + (n % 3 > 1),)),
                           (f"{v}.unflatten(0, (1, {n}))", (1, n)),
                           (f"torch.movedim({v}.unsqueeze(0), 0, 1)", (n, 1))])
    return rng.choice([(f"{v}.broadcast_to((3,))", (3,)), (f"torch.hstack([{v}, {v}])", (2,)),
                       (f"{v}.tile(2)", (2,))])


def products(rng: random.Random, a: Var, b: Var, c: Var) -> Op:
    (x, xs), (y, ys), (z, zs) = a[:2], b[:2], c[:2]
    ops: list[Op] = []
    if len(xs) == 2 and len(ys) == 2 and xs[1] == ys[0]:
        ops += [(f"torch.einsum('ij,jk->ik', {x}, {y})", (xs[0], ys[1])),
                (f"torch.einsum('ij,jk', {x}, {y})", (xs[0], ys[1])),
                (f"torch.tensordot({x}, {y}, dims=1)", (xs[0], ys[1])),
                (f"torch.einsum('ij,jk->k', {x}, {y})", (ys[1],)),
                (f"torch.baddbmm({x}.unsqueeze(0) @ {y}.unsqueeze(0), {x}.unsqueeze(0), "
                 f"{y}.unsqueeze(0), beta=0.5)", (1, xs[0], ys[1])),
                (f"torch.addbmm({x} @ {y}, torch.stack([{x}, {x}]), torch.stack([{y}, {y} * 2]),"
                 " alpha=0.5)", (xs[0], ys[1]))]
        if zs == (xs[0], ys[1]):
            ops.append((f"{z}.addmm({x}, {y}, alpha=2)", zs))
    if len(xs) == 2 and xs == ys:
        ops += [(f"torch.einsum('ij,ij->i', {x}, {y})", (xs[0],)),
                (f"torch.tensordot({x}, {y})", ()), (f"torch.einsum('ij->ji', {x})", xs[::-1]),
                (f"torch.einsum('ii', {x})" if xs[0] == xs[1] else f"torch.einsum('ij->', {x})",
                 ())]
    if len(xs) == 2 and len(ys) == 1 and xs[1] == ys[0]:
        ops += [(f"torch.einsum('ij,j->i', {x}, {y})", (xs[0],)),
                (f"torch.mv({x}, {y})", (xs[0],))]
        if zs in ((xs[0],), (1,), ()):
            ops.append((f"torch.addmv({z}, {x}, {y}, beta=2)", (xs[0],)))
    if len(xs) == 1 and len(ys) == 1:
        ops += [(f"torch.outer({x}, {y})", (xs[0], ys[0])), (f"{x}.outer({y})", (xs[0], ys[0])),
                (f"torch.einsum('i,j->ij', {x}, {y})", (xs[0], ys[0])),
                (f"torch.kron({x}, {y})", (xs[0] * ys[0],))]
        if xs == ys:
            ops += [(f"torch.einsum('i,i->', {x}, {y})", ()), (f"{x}.dot({y})", ())]
        if zs == (xs[0], ys[0]):
            ops.append((f"torch.addr({z}, {x}, {y}, alpha=0.5)", zs))
    if len(xs) == 2 and len(ys) == 2:
        ops.append((f"torch.kron({x}, {y})", (xs[0] * ys[0], xs[1] * ys[1])))
    return rng.choice(ops) if ops else ("", None)


def fused(rng: random.Random, a: Var, b: Var, c: Var) -> Op:
    (x, xs), (y, ys), (z, zs) = a[:2], b[:2], c[:2]
    two = broadcast(xs, ys)
    three = broadcast(two, zs) if two is not None else None
    ops: list[Op] = [(f"{x}.erf()", xs), (f"torch.erfc({x})", xs), (f"{x}.sinc()", xs),
                     (f"torch.special.erf({x})", xs)]
    if two is not None:
        ops += [(f"torch.hypot({x}, {y})", two), (f"torch.logaddexp({x}, {y})", two),
                (f"torch.xlogy({x}, {y}.abs() + 0.5)", two), (f"{x}.lerp({y}, 0.3)", two),
                (f"torch.xlogy({x}.abs(), {y}.exp())", two)]
    if three is not None:
        ops += [(f"torch.addcmul({x}, {y}, {z}, value=0.5)", three),
                (f"{x}.addcdiv({y}, {z}.abs() + 1)", three),
                (f"torch.lerp({x}, {y}, {z}.sigmoid())", three),
                (f"torch.addcdiv({x}, {y}, {z}.exp(), value=-2)", three)]
    return rng.choice(ops)


ACTIVATIONS = [f"{F}.elu({{v}}, 0.5)", f"{F}.selu({{v}})", f"{F}.celu({{v}}, 2.0)",
               f"{F}.hardswish({{v}})", f"{F}.hardsigmoid({{v}})", f"{F}.mish({{v}})",
               f"{F}.softsign({{v}})", f"{F}.hardshrink({{v}}, 0.3)", f"{F}.softshrink({{v}})",
               f"{F}.threshold({{v}}, 0.2, -1.0)", f"{F}.relu6({{v}} * 4)",
               f"{F}.prelu({{v}}, torch.tensor([0.25]))", f"{F}.logsigmoid({{v}})",
               f"{F}.tanhshrink({{v}})", f"{F}.hardswish({{v}} * 3)"]
INPLACE_ACTIVATIONS = [f"{F}.elu({{v}}, inplace=True)", f"{F}.selu({{v}}, inplace=True)",
                       f"{F}.celu({{v}}, inplace=True)", f"{F}.hardswish({{v}}, inplace=True)",
                       f"{F}.hardsigmoid({{v}}, inplace=True)", f"{F}.relu6({{v}}, inplace=True)",
                       f"{F}.threshold({{v}}, 0.1, 2.0, inplace=True)", f"{F}.elu_({{v}})",
                       f"{F}.threshold_({{v}}, 0.0, 0.5)", f"{F}.leaky_relu_({{v}})",
                       f"{F}.mish({{v}}, inplace=True)", f"{F}.hardtanh_({{v}})",
                       "{v}.addcmul_({v}, {v}, value=0.5)", "{v}.lerp_(torch.zeros_like({v}), 0.5)",
                       "{v}.scatter_(0, torch.zeros_like({v}, dtype=torch.long), 1.5)",
                       "{v}.index_fill_(0, torch.tensor([0]), 3.0)", "{v}.cumprod_(0)",
                       "{v}.erf_()", "{v}.tril_()", "{v}.triu_(1)", "{v}.hypot_({v})",
                       "{v}.addcdiv_({v}, {v}.abs() + 1)"]


def activations(rng: random.Random, v: Var) -> Op:
    name, shape = v[:2]
    ops: list[Op] = [(t.format(v=name), shape) for t in ACTIVATIONS]
    if len(shape) >= 1 and shape[-1] % 2 == 0:
        ops.append((f"{F}.glu({name})", (*shape[:-1], shape[-1] // 2)))
    if len(shape) == 2 and shape[0] % 2 == 0:
        ops.append((f"{F}.glu({name}, 0)", (shape[0] // 2, shape[1])))
    if len(shape) == 2:
        weight = "[" + ", ".join(str(0.1 * (i + 1)) for i in range(shape[1])) + "]"
        ops.append((f"{F}.prelu({name}, torch.tensor({weight}))", shape))
    return rng.choice(ops)


def losses(rng: random.Random, a: Var, b: Var) -> Op:
    (x, xs), (y, _) = a[:2], b[:2]
    reduction = rng.choice(["", ", reduction='sum'", ", reduction='none'"])
    red_shape: Shape = xs if "none" in reduction else ()
    ops: list[Op] = [
        (f"{F}.huber_loss({x}, {y}, delta=0.5{reduction})", red_shape),
        (f"{F}.huber_loss({x}, {y}{reduction})", red_shape),
        (f"{F}.soft_margin_loss({x}, {y}.detach().sign(){reduction})", red_shape),
        (f"{F}.margin_ranking_loss({x}, {y}, torch.ones_like({x}){reduction})", red_shape),
        (f"{F}.margin_ranking_loss({x}, {y}, -torch.ones_like({x}), margin=0.2{reduction})",
         red_shape),
        (f"{F}.kl_div({x}.log_softmax(-1), {y}.softmax(-1){reduction})", red_shape),
        (f"{F}.kl_div({x}, {y}.exp(), reduction='batchmean')", ()),
        (f"{F}.kl_div({x}.log_softmax(-1), {y}.log_softmax(-1), log_target=True{reduction})",
         red_shape)]
    if len(xs) >= 1:
        ops += [(f"{F}.cosine_similarity({x}, {y}, dim=-1)", xs[:-1]),
                (f"{F}.cosine_similarity({x}, {y}, dim=0, eps=0.1)", xs[1:]),
                (f"torch.cosine_similarity({x}, {y} + 1, dim=-1)", xs[:-1]),
                (f"{F}.pairwise_distance({x}, {y})", xs[:-1]),
                (f"{F}.pairwise_distance({x}, {y}, p=1.0, keepdim=True)", (*xs[:-1], 1)),
                (f"torch.pairwise_distance({x}, {y}, 3.0)", xs[:-1])]
    return rng.choice(ops)


def _step(rng: random.Random, names: list[Var], k: int) -> Op | None:
    """A line of the second family for half of the steps (None: the first family's)."""
    if rng.random() < 0.4:
        return None
    known = [v for v in names if v[1] != UNKNOWN]
    if not known:
        return None
    kind = rng.random()
    if kind < 0.15:
        leaves = [v for v in known if v[2]]
        src = rng.choice(leaves)
        return ordering(rng, src[0], src[1])
    if kind < 0.25:
        src = rng.choice(known)
        return triangles(rng, src[0], src[1])
    if kind < 0.37:
        src = rng.choice(known)
        return scatters(rng, src[0], src[1], known)
    if kind < 0.47:
        src = rng.choice(known)
        return shapes(rng, src[0], src[1])
    if kind < 0.6:
        return products(rng, rng.choice(known), rng.choice(known), rng.choice(known))
    if kind < 0.72:
        return fused(rng, rng.choice(known), rng.choice(known), rng.choice(known))
    if kind < 0.85:
        return activations(rng, rng.choice(known))
    if kind < 0.95:
        a = rng.choice(known)
        same = [v for v in known if v[1] == a[1]]
        return losses(rng, a, rng.choice(same))
    inner = [v for v in names if not v[2]]
    if not inner:
        return None
    edit = rng.choice(INPLACE_ACTIVATIONS).format(v=rng.choice(inner)[0])
    return f"attempt('in-place {k}', lambda: {edit})", None


def _edits() -> list[str]:
    from ._random_programs import INPLACE
    return INPLACE + INPLACE_ACTIVATIONS


EXTRA: Callable[[random.Random, list[Var], int], Op | None] = _step


def program_extra(seed: int) -> str:
    return program(seed, extra=_step, leaf=leaf, inplace=_edits())
