"""Random autograd programs in the oracle's scenario format, for differential tests against real
PyTorch: leaves (float32 or float64), a few ops (pointwise, broadcasting, matmul, shape,
reductions, selection, losses, in-place edits of intermediates), then backward calls with and
without ``retain_graph`` (or ``autograd.grad``, sometimes with ``create_graph`` and a backward
through the gradient), between them an in-place edit or a ``no_grad`` update of a leaf, and
probes of every variable's graph (saved buffers alive, freed or modified) and of the gradients
(leaves' and ``retain_grad`` ones).

A program is a function of its seed only, so a failing seed reproduces: ``program(seed)``.
"""

from __future__ import annotations

import random
from collections.abc import Callable

Shape = tuple[int, ...]
UNKNOWN: Shape = (-1,)          # a shape the generator does not track (masking)

SHAPES: list[Shape] = [(3,), (2, 3), (3, 3), (3, 2), ()]

UNARY = ["{v}.exp()", "{v}.tanh()", "{v}.sigmoid()", "{v}.relu()", "{v}.sin()", "{v}.cos()",
         "-{v}", "{v}.abs()", "{v} ** 2", "{v} * 2", "{v} + 1", "{v}.pow(3)",
         "({v}.abs() + 1).log()", "({v}.abs() + 1).sqrt()", "{v}.clamp(min=-0.5, max=0.5)",
         "({v}.abs() + 1).reciprocal()", "{v} * {v}", "torch.exp({v})", "{v}.square()",
         "{v}.clone()", "{v}.detach()", "{v}.neg()", "({v}.abs() + 1).rsqrt()", "{v}.log1p()",
         "torch.nn.functional.gelu({v})", "torch.nn.functional.silu({v})",
         "torch.nn.functional.leaky_relu({v}, 0.1)", "torch.nn.functional.elu({v})",
         "torch.nn.functional.softplus({v})", "{v}.clamp(min=0)", "{v}.exp2()", "{v} / 2",
         "2 / ({v}.abs() + 1)", "{v} - 1", "1 - {v}", "{v}.atan()", "{v}.asinh()",
         "{v}.sinh()", "({v}.abs() + 1).log10()", "{v}.sign()", "{v}.round()", "{v}.floor()",
         "torch.nn.functional.hardtanh({v})", "{v}.clamp(-1, 1)", "{v}.expm1()",
         "{v}.masked_fill({v} > 0, 0.5)", "{v}.double()", "{v}.float()", "{v}.tan()",
         "torch.nn.functional.relu({v}) * {v}", "{v}.cos().sin()", "({v}.abs() + 1).log2()"]
BINARY = ["{a} + {b}", "{a} - {b}", "{a} * {b}", "{a} / ({b}.abs() + 1)",
          "torch.maximum({a}, {b})", "torch.minimum({a}, {b})", "torch.where({a} > 0, {a}, {b})",
          "torch.add({a}, {b}, alpha=2)", "{a}.mul({b})", "torch.atan2({a}, {b})",
          "{a} ** ({b}.abs() + 0.5)", "torch.where({b} < {a}, {b}, 0.5)",
          "{a}.clamp(min={b})", "{a} / ({b} * {b} + 1)", "torch.max({a}, {b})"]
# NB: losses of two tensors of one shape (the target's grad is taken too)
LOSSES = ["torch.nn.functional.mse_loss({a}, {b})", "torch.nn.functional.l1_loss({a}, {b})",
          "torch.nn.functional.smooth_l1_loss({a}, {b})",
          "torch.nn.functional.binary_cross_entropy_with_logits({a}, {b}.sigmoid())",
          "torch.nn.functional.mse_loss({a}, {b}, reduction='sum')",
          "torch.nn.functional.l1_loss({a}, {b}.detach(), reduction='none')"]
INPLACE = ["{v}.zero_()", "{v}.fill_(0.5)", "{v}.add_(1)", "{v}.mul_(2)", "{v}.relu_()",
           "{v}.sigmoid_()", "{v}.tanh_()", "{v}.exp_()", "{v}.mul_(0.5)", "{v}.clamp_(max=0.5)",
           "{v}.neg_()", "{v}.sub_(0.5)", "{v}.div_(2)", "{v}.pow_(2)"]


def literal(rng: random.Random, shape: Shape) -> str:
    if shape == ():
        return repr(round(rng.uniform(-2, 2), 2))
    return "[" + ", ".join(literal(rng, shape[1:]) for _ in range(shape[0])) + "]"


def broadcast(a: Shape, b: Shape) -> Shape | None:
    n = max(len(a), len(b))
    ra, rb = (1,) * (n - len(a)) + a, (1,) * (n - len(b)) + b
    out = []
    for x, y in zip(ra, rb, strict=True):
        if x != y and 1 not in (x, y):
            return None
        out.append(max(x, y))
    return tuple(out)


def matmul_shape(a: Shape, b: Shape) -> Shape | None:
    if len(a) == 2 and len(b) == 2 and a[1] == b[0]:
        return (a[0], b[1])
    if len(a) == 2 and len(b) == 1 and a[1] == b[0]:
        return (a[0],)
    if len(a) == 1 and len(b) == 2 and a[0] == b[0]:
        return (b[1],)
    if len(a) == 1 and a == b:
        return ()
    return None


def reductions(shape: Shape) -> list[str]:
    out = ["{v}.sum()", "{v}.mean()", "{v}.norm()", "{v}.amax()", "{v}.max()", "{v}.prod()",
           "{v}.sum([])", "{v}.median()"]
    if shape != UNKNOWN:               # NB: a 0-d tensor has dim 0 (or -1) too
        out += ["{v}.sum(0)", "{v}.mean(-1, keepdim=True)", "{v}.max(0).values",
                "{v}.softmax(-1)", "{v}.log_softmax(0)", "{v}.cumsum(0)", "{v}.std()",
                "{v}.var(0)", "{v}.min(-1)[0]", "{v}.logsumexp(0)", "{v}.median(-1).values",
                "{v}.norm(dim=0)", "{v}.amax(-1, keepdim=True)", "{v}.flip(0)",
                "{v}.var(0, unbiased=False)"]
    return out


def shape_ops(shape: Shape) -> list[tuple[str, Shape]]:
    if shape == UNKNOWN:
        return []
    if len(shape) == 2:
        r, c = shape
        return [("{v}.t()", (c, r)), ("{v}.reshape(-1)", (r * c,)),
                ("{v}.transpose(0, 1)", (c, r)), ("{v}[0]", (c,)), ("{v}[:, 1:]", (r, c - 1)),
                ("{v}.flatten()", (r * c,)), ("{v}.unsqueeze(0)", (1, r, c)),
                ("{v}.permute(1, 0)", (c, r)), ("{v}.contiguous()", shape), ("{v}[1]", (c,)),
                ("{v}.select(1, 0)", (r,)), ("{v}.narrow(1, 0, 2)", (r, 2)),
                ("{v}.flip(0)", shape), ("{v}.expand(2, *{v}.shape)", (2, r, c)),
                ("{v}[{v} > 0]", UNKNOWN)]
    if len(shape) == 1:
        n = shape[0]
        return [("{v}.unsqueeze(1)", (n, 1)), ("{v}[1:]", (n - 1,)), ("{v}.view(1, -1)", (1, n)),
                ("{v}[0]", ()), ("{v}.repeat(2)", (2 * n,)), (f"{{v}}.expand(2, {n})", (2, n)),
                ("torch.cat([{v}, {v}])", (2 * n,)), ("torch.stack([{v}, {v}])", (2, n)),
                ("{v}.flip(0)", shape), ("{v}[[0, 1, 0]]", (3,)), ("{v}.roll(1)", shape)]
    if len(shape) == 0:
        return [("{v}.unsqueeze(0)", (1,)), ("{v}.expand(3)", (3,)), ("{v}.reshape(1, 1)", (1, 1)),
                ("{v}[True]", (1,)), ("{v}[None, False]", (1, 0)), ("{v}.transpose(0, -1)", ())]
    return []


def selections(shape: Shape) -> list[tuple[str, Shape]]:
    """Ops that pick elements (gather, index_select, chunk, unbind, ...) and class losses."""
    if len(shape) == 2 and min(shape) >= 2:
        r, c = shape
        rows = ", ".join(f"[{i % c}]" for i in range(r))
        targets = ", ".join(str(i % c) for i in range(r))
        return [(f"{{v}}.gather(1, torch.tensor([{rows}]))", (r, 1)),
                ("{v}.index_select(0, torch.tensor([0, 0]))", (2, c)),
                ("{v}.index_select(1, torch.tensor([1]))", (r, 1)),
                ("{v}[:, [0, 0]]", (r, 2)), ("{v}.chunk(2, 1)[0]", (r, (c + 1) // 2)),
                (f"torch.nn.functional.cross_entropy({{v}}, torch.tensor([{targets}]))", ()),
                (f"torch.nn.functional.nll_loss({{v}}.log_softmax(1), torch.tensor([{targets}]))",
                 ()), ("{v}.unbind(1)[0]", (r,)), ("torch.cat([{v}, {v} * 2], 1)", (r, 2 * c))]
    if len(shape) == 1 and shape != UNKNOWN and shape[0] >= 3:
        n = shape[0]
        return [("{v}.gather(0, torch.tensor([0, 0]))", (2,)),
                ("{v}.index_select(0, torch.tensor([2, 0]))", (2,)),
                ("{v}.split(2)[-1]", (n - 2 * ((n - 1) // 2),)), ("{v}.unbind(0)[1]", ()),
                ("{v}.masked_select({v} > 0)", UNKNOWN)]
    return []


def _leaf(rng: random.Random, name: str, shape: Shape) -> str:
    dtype = ", dtype=torch.float64" if rng.random() < 0.2 else ""
    return f"{name} = torch.tensor({literal(rng, shape)}{dtype}, requires_grad=True)"


Var = tuple[str, Shape, bool]                  # (name, shape, is a leaf)
# NB: a second op family (``_random_programs_extra``): given the generator, the variables and the
# step's number, one line of the program (None: a step of the first family instead)
Extra = Callable[[random.Random, list[Var], int], tuple[str, Shape | None] | None]


def program(seed: int, extra: Extra | None = None, leaf: Callable[..., str] | None = None,
            inplace: list[str] | None = None) -> str:
    """The program of ``seed``; ``extra`` (with its own leaves and in-place edits) mixes a
    second family of ops in, leaving the programs without it as they were."""
    rng = random.Random(seed)
    lines: list[str] = []
    names: list[Var] = []
    edits = INPLACE if inplace is None else inplace
    for i in range(rng.randint(1, 3)):
        shape = rng.choice(SHAPES)
        name = "abc"[i]
        lines.append((leaf or _leaf)(rng, name, shape))
        names.append((name, shape, True))
    for k in range(rng.randint(2, 7)):
        name = f"h{k}"
        shape: Shape | None
        line = extra(rng, names, k) if extra is not None else None
        if line is not None:
            expr, shape = line
            if expr.startswith("attempt("):
                lines.append(expr)
                continue
            if shape is None:
                continue
            lines.append(f"{name} = {expr}")
            if shape == UNKNOWN:
                lines.append(f"note('shape of {name}', list({name}.shape))")
            names.append((name, shape, False))
            continue
        kind = rng.random()
        if kind < 0.35:
            src = rng.choice(names)
            expr, shape = rng.choice(UNARY).format(v=src[0]), src[1]
        elif kind < 0.6:
            a, b = rng.choice(names), rng.choice(names)
            shape = broadcast(a[1], b[1])
            expr = rng.choice(BINARY).format(a=a[0], b=b[0])
        elif kind < 0.72:
            a, b = rng.choice(names), rng.choice(names)
            shape = matmul_shape(a[1], b[1])
            expr = f"{a[0]} @ {b[0]}" if rng.random() < 0.7 else f"torch.matmul({a[0]}, {b[0]})"
        elif kind < 0.78 or 0.82 <= kind < 0.88:
            src = rng.choice(names)
            ops = (selections if kind < 0.78 else shape_ops)(src[1])
            if not ops:
                continue
            template, shape = rng.choice(ops)
            expr = template.format(v=src[0])
        elif kind < 0.82:
            a = rng.choice(names)
            if a[1] == UNKNOWN:
                continue
            same = [v for v in names if v[1] == a[1]]
            expr, shape = rng.choice(LOSSES).format(a=a[0], b=rng.choice(same)[0]), UNKNOWN
        elif kind < 0.93:
            src = rng.choice(names)
            expr, shape = rng.choice(reductions(src[1])).format(v=src[0]), UNKNOWN
        else:
            inner = [v for v in names if not v[2]]
            if inner:
                edit = rng.choice(edits).format(v=rng.choice(inner)[0])
                lines.append(f"attempt('in-place {k}', lambda: {edit})")
            continue
        if shape is None:
            continue
        lines.append(f"{name} = {expr}")
        if shape == UNKNOWN:
            lines.append(f"note('shape of {name}', list({name}.shape))")
        names.append((name, shape, False))
    out = ([v for v in names if not v[2]] or names)[-1][0]
    leaves = ", ".join(f"{v[0]}={v[0]}" for v in names if v[2])
    every = ", ".join(f"{v[0]}={v[0]}" for v in names)
    inner = [v for v in names if not v[2]]
    if inner and rng.random() < 0.3:
        kept = rng.choice(inner)[0]
        lines.append(f"attempt('retain_grad', lambda: {kept}.retain_grad())")
        leaves += f", {kept}={kept}"
    lines.append(f"out = {out}.sum() * 1.0")
    if inner and rng.random() < 0.15:
        # NB: a hook on an intermediate that changes the gradient flowing through it
        hooked = rng.choice(inner)[0]
        lines.append(f"attempt('hook', lambda: {hooked}.register_hook(lambda g: g * 2) and None)")
    lines.append(f"probe('before', out=out, {every})")
    retain = rng.choice(["", "retain_graph=True", "retain_graph=False"])
    # NB: PyTorch's second derivative through sgn (abs, l1_loss) is an "efficient zero" tensor
    # whose tolist() raises (in a leaf's .grad): not modelled by the engine
    if rng.random() < 0.15 and not any(op in "\n".join(lines) for op in ("abs", "l1_loss", "sign")):
        lines.append("gs = []")
        lines.append(f"attempt('grad', lambda: gs.extend(torch.autograd.grad(out, "
                     f"[{names[0][0]}], create_graph=True)))")
        lines.append("note('gs', gs)")
        lines.append("attempt('backward of the grad', lambda: gs[0].sum().backward() if gs "
                     "else None)")
    elif rng.random() < 0.2:
        lines.append(f"attempt('grad', lambda: note('grad', torch.autograd.grad(out, "
                     f"[{names[0][0]}], {retain})))")
    elif rng.random() < 0.15:
        # NB: two roots in one backward: out and another variable's sum
        other = rng.choice(names)[0]
        lines.append(f"attempt('backward 1', lambda: torch.autograd.backward([out, "
                     f"{other}.sum()], {retain}))")
    elif rng.random() < 0.15:
        lines.append(f"attempt('backward 1', lambda: out.backward(inputs=[{names[0][0]}], "
                     f"{retain}))")
    else:
        lines.append(f"attempt('backward 1', lambda: out.backward({retain}))")
    lines.append(f"grads('after backward 1', {leaves})")
    lines.append(f"probe('after backward 1', out=out, {every})")
    inner = [v for v in names if not v[2]]
    if inner and rng.random() < 0.4:
        edit = rng.choice(edits).format(v=rng.choice(inner)[0])
        lines.append(f"attempt('edit', lambda: {edit})")
    elif rng.random() < 0.25:
        # NB: an optimizer's step: a leaf updated in place under no_grad
        leaf = rng.choice([v for v in names if v[2]])[0]
        lines.append("with torch.no_grad():")
        lines.append(f"    attempt('step', lambda: {leaf}.sub_(0.1 * {leaf}.grad if {leaf}.grad "
                     "is not None else 0.5))")
    lines.append("attempt('backward 2', lambda: out.backward())")
    lines.append(f"grads('after backward 2', {leaves})")
    lines.append(f"probe('after backward 2', out=out, {every})")
    return "\n".join(lines) + "\n"
