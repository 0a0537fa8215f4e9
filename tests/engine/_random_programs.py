"""Random autograd programs in the oracle's scenario format, for differential tests against real
PyTorch: leaves, a few ops (pointwise, broadcasting, matmul, shape, reductions, in-place edits
of intermediates), then backward calls with and without ``retain_graph``, an in-place edit
between them, and probes of every variable's graph (saved buffers alive, freed or modified).

A program is a function of its seed only, so a failing seed reproduces: ``program(seed)``.
"""

from __future__ import annotations

import random

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
         "{v}.sinh()", "({v}.abs() + 1).log10()"]
BINARY = ["{a} + {b}", "{a} - {b}", "{a} * {b}", "{a} / ({b}.abs() + 1)",
          "torch.maximum({a}, {b})", "torch.minimum({a}, {b})", "torch.where({a} > 0, {a}, {b})",
          "torch.add({a}, {b}, alpha=2)", "{a}.mul({b})", "torch.atan2({a}, {b})",
          "{a} ** ({b}.abs() + 0.5)"]
# NB: zero_ and fill_ are left out: on an expanded view PyTorch allows them (see the README)
INPLACE = ["{v}.add_(1)", "{v}.mul_(2)", "{v}.relu_()", "{v}.sigmoid_()", "{v}.tanh_()",
           "{v}.exp_()", "{v}.mul_(0.5)", "{v}.clamp_(max=0.5)", "{v}.neg_()", "{v}.sub_(0.5)",
           "{v}.div_(2)", "{v}.pow_(2)"]


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


def program(seed: int) -> str:
    rng = random.Random(seed)
    lines: list[str] = []
    names: list[tuple[str, Shape, bool]] = []          # (name, shape, is a leaf)
    # NB: views are not edited in place: after an edit of its base, PyTorch names a view's
    # producer AsStrided in the version error, the engine the view's own op (README)
    views: set[str] = set()
    for i in range(rng.randint(1, 3)):
        shape = rng.choice(SHAPES)
        name = "abc"[i]
        lines.append(f"{name} = torch.tensor({literal(rng, shape)}, requires_grad=True)")
        names.append((name, shape, True))
    for k in range(rng.randint(2, 7)):
        kind, name = rng.random(), f"h{k}"
        shape: Shape | None
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
        elif kind < 0.85:
            src = rng.choice(names)
            ops = shape_ops(src[1])
            if not ops:
                continue
            template, shape = rng.choice(ops)
            expr = template.format(v=src[0])
            views.add(name)
        elif kind < 0.93:
            src = rng.choice(names)
            expr, shape = rng.choice(reductions(src[1])).format(v=src[0]), UNKNOWN
        else:
            inner = [v for v in names if not v[2] and v[0] not in views]
            if inner:
                edit = rng.choice(INPLACE).format(v=rng.choice(inner)[0])
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
    lines.append(f"out = {out}.sum() * 1.0")
    lines.append(f"probe('before', out=out, {every})")
    retain = rng.choice(["", "retain_graph=True", "retain_graph=False"])
    if rng.random() < 0.2:
        lines.append(f"attempt('grad', lambda: note('grad', torch.autograd.grad(out, "
                     f"[{names[0][0]}], {retain})))")
    else:
        lines.append(f"attempt('backward 1', lambda: out.backward({retain}))")
    lines.append(f"grads('after backward 1', {leaves})")
    lines.append(f"probe('after backward 1', out=out, {every})")
    inner = [v for v in names if not v[2] and v[0] not in views]
    if inner and rng.random() < 0.4:
        edit = rng.choice(INPLACE).format(v=rng.choice(inner)[0])
        lines.append(f"attempt('edit', lambda: {edit})")
    lines.append("attempt('backward 2', lambda: out.backward())")
    lines.append(f"grads('after backward 2', {leaves})")
    lines.append(f"probe('after backward 2', out=out, {every})")
    return "\n".join(lines) + "\n"
