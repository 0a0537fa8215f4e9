"""A third family of random programs: small models of ``nn`` layers (linear, convolutions and
pools, normalisations, embeddings, recurrent layers and cells, attention, activations), a loss,
then backward patterns (retained graphs, a second backward that must fail, two losses sharing a
trunk, a detached head, ``autograd.grad``) and optimizer steps between backwards. The trunk may
run checkpointed (reentrant or not, nested, ``checkpoint_sequential``, with dropout, with its
options) or under saved-tensor hooks (``saved_tensors_hooks`` of several styles, ``save_on_cpu``,
around or inside a checkpoint). Parameters are set from a formula on both engines, so their
random initialisations do not matter.

``program_nn(seed)`` is a function of its seed only.
"""

from __future__ import annotations

import random

Shape = tuple[int, ...]

HEADER = """import math
nn = torch.nn
F = torch.nn.functional


def fill(m, k):
    with torch.no_grad():
        for i, p in enumerate(m.parameters()):
            n = p.numel()
            vals = [math.cos(j * 0.7 + i * 1.3 + k) * 0.5 for j in range(n)]
            p.copy_(torch.tensor(vals, dtype=p.dtype).reshape(p.shape))

"""

ACTIVATIONS = ["nn.ReLU()", "nn.GELU()", "nn.GELU(approximate='tanh')", "nn.SiLU()", "nn.Tanh()",
               "nn.Sigmoid()", "nn.LeakyReLU(0.1)", "nn.ELU()", "nn.ELU(alpha=0.5)",
               "nn.Softplus()", "nn.Softplus(beta=2.0, threshold=1.0)", "nn.Hardtanh()",
               "nn.ReLU6()", "nn.Mish()", "nn.Hardswish()", "nn.Hardsigmoid()", "nn.SELU()",
               "nn.CELU()", "nn.Softsign()", "nn.Tanhshrink()", "nn.LogSigmoid()",
               "nn.Hardshrink(0.3)", "nn.Softshrink(0.2)", "nn.Identity()"]
# NB: layers whose create_graph the engine refuses (NotImplementedError, a known difference)
NO_DOUBLE_BACKWARD = ("GroupNorm", "group_norm", "LocalResponseNorm", "circular", "nn.RNN(",
                      "nn.GRU(", "nn.LSTM(")
# NB: in place, after another layer only (their input is then no leaf)
INPLACE = ["nn.ReLU(inplace=True)", "nn.LeakyReLU(0.1, inplace=True)", "nn.ELU(inplace=True)",
           "nn.Hardtanh(inplace=True)", "nn.ReLU6(inplace=True)", "nn.SiLU(inplace=True)",
           "nn.Hardswish(inplace=True)", "nn.Mish(inplace=True)", "nn.CELU(inplace=True)",
           "nn.SELU(inplace=True)", "nn.Hardsigmoid(inplace=True)",
           "nn.Threshold(0.1, 20.0, inplace=True)", "nn.RReLU(inplace=True)"]


def _activation(rng: random.Random, layers: list[str], train: bool) -> str:
    if layers and rng.random() < 0.45:
        act = rng.choice(INPLACE)
        if act.startswith("nn.RReLU") and train:
            return "nn.ReLU(inplace=True)"
        return act
    return rng.choice(ACTIVATIONS)


def _vals(rng: random.Random, n: int) -> list[float]:
    return [round(rng.uniform(-1.5, 1.5), 2) for _ in range(n)]


def _literal(values: list[float], shape: Shape) -> str:
    if not shape:
        return repr(values[0])
    step = len(values) // shape[0]
    return "[" + ", ".join(_literal(values[i * step:(i + 1) * step], shape[1:])
                           for i in range(shape[0])) + "]"


def _size(shape: Shape) -> int:
    n = 1
    for s in shape:
        n *= s
    return n


def _tensor(rng: random.Random, shape: Shape, grad: bool, double: bool = False) -> str:
    rg = (", dtype=torch.float64" if double else "") + (", requires_grad=True" if grad else "")
    return f"torch.tensor({_literal(_vals(rng, _size(shape)), shape)}{rg})"


def _divisors(n: int) -> list[int]:
    return [d for d in range(1, n + 1) if n % d == 0]


def _batchnorm(rng: random.Random, dim: int, c: int) -> str:
    args = [str(c)]
    if rng.random() < 0.4:
        args.append(f"momentum={rng.choice(['0.5', 'None', '0.0', '1.0'])}")
    if rng.random() < 0.3:
        args.append("affine=False")
    if rng.random() < 0.2:
        args.append("track_running_stats=False")
    if rng.random() < 0.2:
        args.append("eps=0.1")
    return f"nn.BatchNorm{dim}d({', '.join(args)})"


def _groupnorm(rng: random.Random, c: int, spatial: int = 1) -> str:
    """NB: a group of one element normalises to rounding noise, amplified in the gradient"""
    sizes = [g for g in _divisors(c) if c // g * spatial >= 2]
    if not sizes:
        return "nn.Identity()"
    g = rng.choice(sizes)
    affine = ", affine=False" if rng.random() < 0.3 else ""
    return f"nn.GroupNorm({g}, {c}{affine})"


# -- trunks: (lines building ``trunk``, the code of ``h = ...`` from ``x``, h's feature count) ----
def vector_trunk(rng: random.Random, train: bool, f: int) -> tuple[list[str], int]:
    layers = []
    for _ in range(rng.randint(1, 4)):
        kind = rng.random()
        if kind < 0.35:
            f2 = rng.randint(2, 5)
            bias = "" if rng.random() < 0.7 else ", bias=False"
            layers.append(f"nn.Linear({f}, {f2}{bias})")
            f = f2
            if rng.random() < 0.5:
                layers.append(_activation(rng, layers, train))
        elif kind < 0.6:
            layers.append(_activation(rng, layers, train))
        elif kind < 0.72:
            layers.append(_batchnorm(rng, 1, f))
        elif kind < 0.82:
            affine = rng.choice(["", ", elementwise_affine=False", ", bias=False", ", eps=0.1"])
            layers.append(f"nn.LayerNorm({f}{affine})")
        elif kind < 0.9:
            layers.append(_groupnorm(rng, f))
        elif kind < 0.95:
            layers.append("nn.PReLU()" if rng.random() < 0.5 else f"nn.PReLU({f})")
        else:
            inplace = ", inplace=True" if layers and rng.random() < 0.3 else ""
            layers.append(f"nn.Dropout(0.3{inplace})" if not train else "nn.Dropout(0.0)")
    if not layers:
        layers.append("nn.Identity()")
    return [f"trunk = nn.Sequential({', '.join(layers)})"], f


def _out(n: int, k: int, s: int, p: int, d: int) -> int:
    return (n + 2 * p - d * (k - 1) - 1) // s + 1


def image_trunk(rng: random.Random, train: bool, dim: int
                ) -> tuple[list[str], int, Shape, Shape]:
    """Lines building the trunk, its channels and size out, x's shape."""
    b, c = rng.randint(1, 2), rng.randint(1, 4)
    size = [rng.randint(3, 6) for _ in range(dim)]
    in_shape: Shape = (b, c, *size)
    layers = []
    d = f"{dim}d"
    for _ in range(rng.randint(1, 4)):
        kind = rng.random()
        if kind < 0.4:
            groups = rng.choice(_divisors(c))
            c2 = groups * rng.randint(1, 3)
            k = rng.randint(1, min(3, max(size)))
            s = rng.choice([1, 1, 2])
            p = rng.randint(0, k // 2)
            dil = rng.choice([1, 1, 2])
            out = [_out(n, k, s, p, dil) for n in size]
            if min(out) < 1:
                continue
            args = [str(c), str(c2), str(k)]
            if s != 1:
                args.append(f"stride={s}")
            # NB: no even span with 'same' (PyTorch's warning there is once per process)
            if s == 1 and dil * (k - 1) % 2 == 0 and rng.random() < 0.2:
                args.append("padding='same'")
                out = list(size)
            elif p:
                args.append(f"padding={p}")
                if rng.random() < 0.3 and p < min(size):
                    mode = rng.choice(["reflect", "replicate", "circular"])
                    args.append(f"padding_mode='{mode}'")
            if dil != 1:
                args.append(f"dilation={dil}")
            if groups != 1:
                args.append(f"groups={groups}")
            if rng.random() < 0.3:
                args.append("bias=False")
            layers.append(f"nn.Conv{d}({', '.join(args)})")
            c, size = c2, out
            if rng.random() < 0.5:
                layers.append(_activation(rng, layers, train))
        elif kind < 0.5 and dim == 2:
            groups = rng.choice(_divisors(c))
            c2 = groups * rng.randint(1, 2)
            k = rng.randint(1, 3)
            s = rng.choice([1, 2])
            p = rng.randint(0, k - 1)
            op = rng.randint(0, s - 1) if rng.random() < 0.5 else 0
            out = [(n - 1) * s - 2 * p + (k - 1) + op + 1 for n in size]
            if min(out) < 1 or max(out) > 8:
                continue
            args = [str(c), str(c2), str(k)]
            if s != 1:
                args.append(f"stride={s}")
            if p:
                args.append(f"padding={p}")
            if op:
                args.append(f"output_padding={op}")
            if groups != 1:
                args.append(f"groups={groups}")
            if rng.random() < 0.3:
                args.append("bias=False")
            layers.append(f"nn.ConvTranspose2d({', '.join(args)})")
            c, size = c2, out
        elif kind < 0.65:
            k = rng.randint(1, min(3, min(size)))
            s = rng.choice([1, 2, k])
            p = rng.randint(0, k // 2)
            pool = rng.choice(["Max", "Avg"])
            args = [str(k)]
            if s != k:
                args.append(f"stride={s}")
            if p:
                args.append(f"padding={p}")
            ceil = rng.random() < 0.2
            if ceil:
                args.append("ceil_mode=True")
            if pool == "Avg" and rng.random() < 0.3:
                args.append("count_include_pad=False")
            out = []
            for n in size:
                o = (n + 2 * p - k + (s - 1 if ceil else 0)) // s + 1
                if ceil and (o - 1) * s >= n + p:
                    o -= 1
                out.append(o)
            if min(out) < 1:
                continue
            layers.append(f"nn.{pool}Pool{d}({', '.join(args)})")
            size = out
        elif kind < 0.72:
            out = [rng.randint(1, n) for n in size]
            arg = str(out[0]) if dim == 1 else f"({out[0]}, {out[1]})"
            pool = "Avg" if rng.random() < 0.7 else "Max"
            layers.append(f"nn.Adaptive{pool}Pool{d}({arg})")
            size = out
        elif kind < 0.82:
            layers.append(_batchnorm(rng, dim, c))
        elif kind < 0.86:
            if rng.random() < 0.3:
                dims = [c, *size][rng.randrange(dim + 1):]
                layers.append(f"nn.LayerNorm({dims}{rng.choice(['', ', bias=False']) })")
            else:
                layers.append(_groupnorm(rng, c, _size(tuple(size))))
        elif kind < 0.93:
            layer, c, size = _image_extra(rng, dim, c, size, train)
            layers.append(layer)
        else:
            layers.append(_activation(rng, layers, train))
    return [f"trunk = nn.Sequential({', '.join(layers)})"], c, tuple(size), in_shape


def _image_extra(rng: random.Random, dim: int, c: int, size: list[int], train: bool
                 ) -> tuple[str, int, list[int]]:
    """A rarer layer: resampling, padding, instance norm, channel ops, ..."""
    d = f"{dim}d"
    ops: list[tuple[str, int, list[int]]] = [
        (f"nn.InstanceNorm{d}({c}{rng.choice(['', ', affine=True'])})", c, size),
        (f"nn.ZeroPad{d}(1)", c, [n + 2 for n in size]),
        (f"nn.ConstantPad{d}(({', '.join(['1', '0'] * dim)}), 0.5)", c, [n + 1 for n in size]),
        (f"nn.ReplicationPad{d}(1)", c, [n + 2 for n in size]),
        ("nn.Upsample(scale_factor=2)", c, [n * 2 for n in size]),
        ("nn.LocalResponseNorm(2)", c, size),
        (f"nn.Dropout{'1d' if dim == 1 else '2d'}(0.5)" if not train else "nn.Identity()", c,
         size)]
    if min(size) >= 2:
        ops.append((f"nn.ReflectionPad{d}(1)", c, [n + 2 for n in size]))
    if dim == 2:
        ops += [(f"nn.Upsample(scale_factor=2, mode='bilinear'"
                 f"{rng.choice(['', ', align_corners=True'])})", c, [n * 2 for n in size]),
                (f"nn.Upsample(size=({size[0] + 1}, {size[1]}), mode='nearest')", c,
                 [size[0] + 1, size[1]]),
                ("nn.Softmax2d()", c, size)]
        if c % 4 == 0:
            ops.append(("nn.PixelShuffle(2)", c // 4, [n * 2 for n in size]))
        if size[0] % 2 == 0 and size[1] % 2 == 0:
            ops.append(("nn.PixelUnshuffle(2)", c * 4, [n // 2 for n in size]))
        if c % 2 == 0:
            ops.append(("nn.ChannelShuffle(2)", c, size))
    else:
        ops.append(("nn.Upsample(scale_factor=2, mode='linear')", c, [n * 2 for n in size]))
    layer, c2, size2 = rng.choice(ops)
    if max(size2) > 10 or (layer.startswith("nn.InstanceNorm") and _size(tuple(size)) < 2):
        return "nn.Identity()", c, size
    return layer, c2, list(size2)


def recurrent_trunk(rng: random.Random, double: bool) -> tuple[list[str], list[str], int, str, int]:
    """Lines building the trunk, lines computing ``h`` from ``x``, h's features, x's code and
    the batch."""
    b, t = rng.randint(1, 3), rng.randint(1, 4)
    build: list[str] = []
    fwd: list[str] = []
    if rng.random() < 0.4:
        v, e = rng.randint(3, 6), rng.randint(2, 4)
        pad = f", padding_idx={rng.randrange(v)}" if rng.random() < 0.5 else ""
        if rng.random() < 0.2:
            pad += ", scale_grad_by_freq=True"
        if rng.random() < 0.2:
            pad += ", max_norm=1.0"
        idx = [[rng.randrange(v) for _ in range(t)] for _ in range(b)]
        xcode = f"x = torch.tensor({idx})"
        build.append(f"emb = nn.Embedding({v}, {e}{pad})")
        build.append("fill(emb, 3)")
        fwd.append("s = emb(x)")
        batch_first = True
    else:
        e = rng.randint(2, 4)
        batch_first = rng.random() < 0.5
        shape = (b, t, e) if batch_first else (t, b, e)
        if rng.random() < 0.15:
            # NB: unbatched
            b, batch_first, shape = 0, False, (t, e)
        xcode = f"x = {_tensor(rng, shape, rng.random() < 0.7, double)}"
        fwd.append("s = x")
    kind = rng.random()
    hid = rng.randint(2, 4)
    if kind < 0.12:
        heads = rng.choice(_divisors(e))
        args = [str(e), str(heads), f"dim_feedforward={rng.randint(2, 6)}", "dropout=0.0"]
        if batch_first:
            args.append("batch_first=True")
        if rng.random() < 0.4:
            args.append("norm_first=True")
        if rng.random() < 0.3:
            args.append("activation='gelu'")
        build.append(f"trunk = nn.TransformerEncoderLayer({', '.join(args)})")
        build.append("trunk.eval()" if rng.random() < 0.3 else "trunk.train()")
        mask = ""
        if rng.random() < 0.3:
            mask = f", src_mask=torch.ones({t}, {t}, dtype=torch.bool).triu(1)"
        fwd.append(f"o = trunk(s{mask})")
        fwd.append("h = o.mean(1)" if batch_first else "h = o.mean(0)")
        return build, fwd, e, xcode, b
    if kind < 0.22 and b > 1:
        cls = rng.choice(["RNN", "GRU", "LSTM"])
        bi = ", bidirectional=True" if rng.random() < 0.4 else ""
        bf = ", batch_first=True" if batch_first else ""
        build.append(f"trunk = nn.{cls}({e}, {hid}{bi}{bf})")
        lengths = sorted((rng.randint(1, t) for _ in range(b)), reverse=True)
        lengths[0] = t
        if rng.random() < 0.5:
            rng.shuffle(lengths)
            sort = ", enforce_sorted=False"
        else:
            sort = ""
        pack = "torch.nn.utils.rnn"
        fwd.append(f"pk = {pack}.pack_padded_sequence(s, {lengths}{bf}{sort})")
        fwd.append("o, _ = trunk(pk)")
        fwd.append(f"o, ln = {pack}.pad_packed_sequence(o{bf})")
        fwd.append("h = o.sum(1)" if batch_first else "h = o.sum(0)")
        return build, fwd, hid * (2 if bi else 1), xcode, b
    if kind < 0.55:
        cls = rng.choice(["RNN", "GRU", "LSTM"])
        layers = rng.choice([1, 1, 2])
        bi = rng.random() < 0.4
        args = [str(e), str(hid)]
        if layers != 1:
            args.append(f"num_layers={layers}")
        if bi:
            args.append("bidirectional=True")
        if batch_first:
            args.append("batch_first=True")
        if rng.random() < 0.2:
            args.append("bias=False")
        if cls == "RNN" and rng.random() < 0.3:
            args.append("nonlinearity='relu'")
        proj = 0
        if cls == "LSTM" and hid > 2 and rng.random() < 0.3:
            proj = rng.randint(1, hid - 1)
            args.append(f"proj_size={proj}")
        build.append(f"trunk = nn.{cls}({', '.join(args)})")
        if rng.random() < 0.3:
            nd = layers * (2 if bi else 1)
            hx = _tensor(rng, (nd, b, proj or hid) if b else (nd, proj or hid), False) \
                + ".to(head.weight.dtype)"
            if cls == "LSTM":
                cx = _tensor(rng, (nd, b, hid) if b else (nd, hid), False) \
                    + ".to(head.weight.dtype)"
                fwd.append(f"o, _ = trunk(s, ({hx}, {cx}))")
            else:
                fwd.append(f"o, _ = trunk(s, {hx})")
        else:
            fwd.append("o, hn = trunk(s)")
        feat = (proj or hid) * (2 if bi else 1)
        if rng.random() < 0.5:
            fwd.append("h = o.mean(1)" if batch_first else "h = o.mean(0)")
        else:
            fwd.append("h = o[:, -1]" if batch_first else "h = o[-1]")
        return build, fwd, feat, xcode, b
    if kind < 0.8:
        cls = rng.choice(["RNNCell", "GRUCell", "LSTMCell"])
        bias = ", bias=False" if rng.random() < 0.2 else ""
        build.append(f"trunk = nn.{cls}({e}, {hid}{bias})")
        step = "s[:, i]" if batch_first else "s[i]"
        if cls == "LSTMCell":
            fwd += ["st = None", f"for i in range({t}):",
                    f"    st = trunk({step}, st)", "h = st[0] + st[1]"]
        else:
            fwd += ["h = None", f"for i in range({t}):", f"    h = trunk({step}, h)"]
        return build, fwd, hid, xcode, b
    heads = rng.choice(_divisors(e))
    args = [str(e), str(heads)]
    if batch_first:
        args.append("batch_first=True")
    if rng.random() < 0.2:
        args.append("bias=False")
    if rng.random() < 0.2:
        args.append("add_bias_kv=True")
    build.append(f"trunk = nn.MultiheadAttention({', '.join(args)})")
    need = rng.choice(["", ", need_weights=False", ", average_attn_weights=False"])
    mask = ""
    if rng.random() < 0.3:
        mask = f", attn_mask=torch.ones({t}, {t}, dtype=torch.bool).triu(1)"
    build.append("trunk.eval()" if rng.random() < 0.3 else "trunk.train()")
    if rng.random() < 0.25 and t > 1:
        pad = [[j == t - 1 and i == 0 for j in range(t)] for i in range(b)] if b else \
            [j == t - 1 for j in range(t)]
        mask += f", key_padding_mask=torch.tensor({pad})"
    fwd.append(f"o, w = trunk(s, s, s{need}{mask})")
    fwd.append("h = o.mean(1)" if batch_first else "h = o.mean(0)")
    return build, fwd, e, xcode, b


def loss_expr(rng: random.Random, out: str, b: int, c: int) -> tuple[list[str], str]:
    """Lines building the target, the expression of the (scalar) loss of ``out`` (b, c), or
    (c,) where ``b`` is 0 (unbatched)."""
    bs: Shape = (b, c) if b else (c,)
    red = rng.choice(["", "", ", reduction='sum'", ", reduction='none'"])
    tail = ".mean()" if "none" in red else ""
    kind = rng.random()
    if kind < 0.35:
        tgt = [rng.randrange(c) for _ in range(b or 1)]
        args = ""
        if rng.random() < 0.3:
            weight = [round(0.5 + 0.25 * i, 2) for i in range(c)]
            args += f", weight=torch.tensor({weight}, dtype={out}.dtype)"
        if rng.random() < 0.3:
            args += ", label_smoothing=0.1"
        if rng.random() < 0.3:
            args += f", ignore_index={tgt[0]}"
        fn = "F.cross_entropy" if rng.random() < 0.75 else "NLL"
        if fn == "NLL":
            args = args.replace(", label_smoothing=0.1", "")
            return ([f"t = torch.tensor({tgt if b else tgt[0]})"],
                    f"F.nll_loss(F.log_softmax({out}, -1), t{args}{red}){tail}")
        return ([f"t = torch.tensor({tgt if b else tgt[0]})"],
                f"F.cross_entropy({out}, t{args}{red}){tail}")
    if kind < 0.45:
        smooth = ", label_smoothing=0.2" if rng.random() < 0.3 else ""
        return ([f"t = {_tensor(rng, bs, False)}.softmax(-1)"],
                f"F.cross_entropy({out}, t{smooth}{red}){tail}")
    if rng.random() < 0.1 and b:
        # NB: a target of another shape: broadcast, with PyTorch's warning (or its error)
        t = [f"t = {_tensor(rng, (b, 1) if rng.random() < 0.7 else (c,), False)}"]
        fn = rng.choice(["mse_loss", "l1_loss", "smooth_l1_loss", "huber_loss"])
        return t, f"F.{fn}({out}, t{red}){tail}"
    t = [f"t = {_tensor(rng, bs, False)}"]
    if kind < 0.6:
        return t, f"F.mse_loss({out}, t{red}){tail}"
    if kind < 0.72:
        pw = ""
        if rng.random() < 0.3:
            pw = f", pos_weight=torch.full(({c},), 1.5, dtype=out.dtype)"
        if rng.random() < 0.2:
            pw += f", weight=torch.linspace(0.5, 1.5, {c}, dtype=out.dtype)"
        return t, f"F.binary_cross_entropy_with_logits({out}, t.sigmoid(){pw}{red}){tail}"
    if kind < 0.82:
        beta = rng.choice(["", ", beta=0.5", ", beta=0.0"])
        return t, f"F.smooth_l1_loss({out}, t{beta}{red}){tail}"
    if kind < 0.9:
        if rng.random() < 0.3:
            kl_red = red or ", reduction='batchmean'"
            return t, (f"F.kl_div(F.log_softmax({out}, -1), F.log_softmax(t, -1), "
                       f"log_target=True{kl_red}){tail}")
        return t, f"F.kl_div(F.log_softmax({out}, -1), t.softmax(-1), reduction='batchmean')"
    if kind < 0.95:
        return t, f"F.l1_loss({out}, t{red}){tail}"
    return t, f"F.huber_loss({out}, t, delta=0.5{red}){tail}"


def optimizer(rng: random.Random) -> str:
    kind = rng.random()
    if kind < 0.5:
        args = [f"lr={rng.choice(['0.1', '0.05'])}"]
        if rng.random() < 0.5:
            args.append("momentum=0.9")
            if rng.random() < 0.3:
                args.append("nesterov=True")
        if rng.random() < 0.3:
            args.append("weight_decay=0.01")
        return f"torch.optim.SGD(params, {', '.join(args)})"
    # NB: eps large, so a gradient that is zero up to rounding does not make a step
    if kind < 0.62:
        return rng.choice(["torch.optim.RMSprop(params, lr=0.01, eps=0.01)",
                           "torch.optim.RMSprop(params, lr=0.01, eps=0.01, momentum=0.5, "
                           "centered=True)",
                           "torch.optim.Adagrad(params, lr=0.1, eps=0.01)",
                           "torch.optim.NAdam(params, lr=0.01, eps=0.01)",
                           "torch.optim.RAdam(params, lr=0.01, eps=0.01)",
                           "torch.optim.Adamax(params, lr=0.01, eps=0.01)"])
    cls = rng.choice(["Adam", "AdamW"])
    args = ["lr=0.01", "eps=0.01"]
    if rng.random() < 0.3:
        args.append("amsgrad=True")
    if rng.random() < 0.3:
        args.append("weight_decay=0.01")
    return f"torch.optim.{cls}(params, {', '.join(args)})"


CKPT = "torch.utils.checkpoint"


def _checkpoint_options(xr: random.Random) -> str:
    """Keywords of a non-reentrant checkpoint."""
    out = ""
    if xr.random() < 0.25:
        out += ", early_stop=False"
    if xr.random() < 0.15:
        out += ", preserve_rng_state=False"
    if xr.random() < 0.1:
        out += ", determinism_check='none'"
    return out


# pack and unpack hooks: (lines defining them, the pair's names)
PACKS = [
    ([], "lambda t: t.detach(), lambda t: t"),
    ([], "lambda t: (t.device, t), lambda p: p[1].to(p[0])"),
    ([], "lambda t: (t.detach(), t.requires_grad), lambda p: p[0]"),
    (["packs = []", "unpacks = []",
      "def pack(t):",
      "    packs.append([list(t.shape), str(t.dtype), t.requires_grad])",
      "    return t",
      "def unpack(t):",
      "    unpacks.append(list(t.shape))",
      "    return t"], "pack, unpack"),
]


def _region(xr: random.Random, fwd: list[str], build: list[str]
            ) -> tuple[list[str], list[str], list[str]]:
    """The forward's trunk under a checkpoint or saved-tensor hooks: the forward's new lines,
    lines defining what they use, lines run after the first forward."""
    seq = any(ln.startswith("trunk = nn.Sequential(") for ln in build) and "trunk(x)" in fwd[0]
    # the trunk as a function of x: an expression (a Sequential) or a function ``region``
    defs = ["def region(x):", *("    " + ln for ln in fwd), "    return h"]
    call = "region"
    if seq:
        defs, call = [], "trunk"
    after: list[str] = []
    kind = xr.random()
    if kind < 0.3:
        lines, pair = xr.choice(PACKS)
        ctx = f"torch.autograd.graph.saved_tensors_hooks({pair})"
        if xr.random() < 0.25:
            lines, ctx = [], "torch.autograd.graph.save_on_cpu()"
        if "packs = []" in lines:
            after.append("note('packs', packs)")
        where = xr.random()
        if where < 0.2:
            # NB: hooks inside a checkpointed region: they, not the checkpoint's, pack what the
            # region saves (in its recomputation too)
            defs = [*defs, *lines, "def hooked(x):", f"    with {ctx}:",
                    f"        return {call}(x)"]
            return (_ckpt_call(fwd, seq, "hooked", f"use_reentrant=False"
                                                   f"{_checkpoint_options(xr)}"), defs, after)
        body = fwd
        if where < 0.45:
            # NB: hooks around a checkpoint: they pack the checkpoint's inputs only
            body = _ckpt_call(fwd, seq, call, f"use_reentrant=False{_checkpoint_options(xr)}")
        return [f"with {ctx}:", *("    " + ln for ln in body)], defs + lines, after
    if kind < 0.45 and seq:
        segments = xr.choice([1, 2, 3])
        return (_ckpt_call(fwd, seq, f"lambda t: {CKPT}.checkpoint_sequential(trunk, "
                                     f"min({segments}, len(trunk)), t, use_reentrant=False)",
                           None), defs, after)
    if kind < 0.6 and seq:
        # NB: a checkpointed sub-block inside a checkpointed trunk
        inner = xr.choice(["False", "False", "True"])
        defs = ["def region(t):",
                f"    t = {CKPT}.checkpoint(trunk[0], t, use_reentrant={inner})",
                "    for m in list(trunk)[1:]:",
                "        t = m(t)",
                "    return t"]
        return _ckpt_call(fwd, True, "region", "use_reentrant=False"), defs, after
    if kind < 0.75:
        # NB: dropout in a checkpointed region: its draws are replayed (or not) by the
        # recomputation
        preserve = xr.choice(["", ", preserve_rng_state=False"])
        p = xr.choice(["0.3", "0.5"])
        defs = [*defs, "def dropped(x):", f"    return F.dropout({call}(x), {p}, training=True)"]
        seed = xr.randrange(100)
        return ([f"torch.manual_seed({seed})",
                 *_ckpt_call(fwd, seq, "dropped", f"use_reentrant=False{preserve}")],
                defs, after)
    out = _ckpt_call(fwd, seq, call, f"use_reentrant=False{_checkpoint_options(xr)}")
    if xr.random() < 0.6:
        # NB: reading a checkpointed node's saved values recomputes the region
        after += ["n = h.grad_fn",
                  "while n is not None and not [k for k in dir(n) if k.startswith('_saved_')]:",
                  "    n = n.next_functions[0][0] if n.next_functions else None",
                  "if n is not None:",
                  "    note('node', n.name())",
                  "    for k in sorted(k for k in dir(n) if k.startswith('_saved_')):",
                  "        attempt(k, lambda: note(k, getattr(n, k)))"]
    return out, defs, after


def _ckpt_call(fwd: list[str], seq: bool, call: str, options: str | None) -> list[str]:
    """The forward with its trunk run by ``checkpoint(call, x, <options>)`` (``options`` None:
    ``call(x)``)."""
    expr = f"({call})(x)" if options is None else f"{CKPT}.checkpoint({call}, x, {options})"
    if seq:
        return [fwd[0].replace("trunk(x)", expr), *fwd[1:]]
    return [f"h = {expr}"]


def functional_trunk(rng: random.Random, train: bool
                     ) -> tuple[list[str], list[str], int, Shape]:
    """``F.*`` calls on an image with the parameters of a bare module: lines building the
    trunk, lines computing ``h``, h's features, x's shape."""
    b, c = rng.randint(1, 2), rng.randint(1, 4)
    size = [rng.randint(2, 5), rng.randint(2, 5)]
    in_shape = (b, c, *size)
    build = ["trunk = nn.Module()"]
    fwd = ["h = x"]
    for k in range(rng.randint(1, 4)):
        kind = rng.random()
        if kind < 0.2:
            c2, kk = rng.randint(1, 3), rng.randint(1, min(3, *size))
            p = rng.randint(0, kk // 2)
            build.append(f"trunk.w{k} = nn.Parameter(torch.zeros({c2}, {c}, {kk}, {kk}))")
            bias = "None"
            if rng.random() < 0.6:
                build.append(f"trunk.b{k} = nn.Parameter(torch.zeros({c2}))")
                bias = f"trunk.b{k}"
            fwd.append(f"h = F.conv2d(h, trunk.w{k}, {bias}, padding={p})")
            c, size = c2, [n + 2 * p - kk + 1 for n in size]
        elif kind < 0.3 and min(size) >= 2:
            fwd.append("h, idx = F.max_pool2d(h, 2, return_indices=True)")
            fwd.append(f"h = F.max_unpool2d(h, idx, 2, output_size={size})")
        elif kind < 0.4 and max(size) <= 4:
            mode = rng.choice(["'nearest'", "'bilinear'", "'bicubic'", "'nearest-exact'",
                               "'area'"])
            ac = ", align_corners=True" if "bi" in mode and rng.random() < 0.5 else ""
            fwd.append(f"h = F.interpolate(h, scale_factor=2, mode={mode}{ac})")
            size = [n * 2 for n in size]
        elif kind < 0.48:
            if rng.random() < 0.5:
                fwd.append("h = F.layer_norm(h, h.shape[-2:])")
            else:
                build.append(f"trunk.lw{k} = nn.Parameter(torch.zeros({size[1]}))")
                build.append(f"trunk.lb{k} = nn.Parameter(torch.zeros({size[1]}))")
                fwd.append(f"h = F.layer_norm(h, ({size[1]},), trunk.lw{k}, trunk.lb{k})")
        elif kind < 0.56 and (train is False or b * _size(tuple(size)) > 1):
            build.append(f"trunk.register_buffer('rm{k}', torch.zeros({c}))")
            build.append(f"trunk.register_buffer('rv{k}', torch.ones({c}))")
            build.append(f"trunk.bw{k} = nn.Parameter(torch.zeros({c}))")
            mom = rng.choice(["0.1", "0.5"])
            fwd.append(f"h = F.batch_norm(h, trunk.rm{k}, trunk.rv{k}, trunk.bw{k}, None, "
                       f"training=trunk.training, momentum={mom})")
        elif kind < 0.62:
            fwd.append(f"h = F.normalize(h, dim={rng.choice([1, -1])})")
        elif kind < 0.7:
            mode = rng.choice(["'constant'", "'reflect'", "'replicate'", "'circular'"])
            if mode == "'reflect'" and min(size) < 2:
                mode = "'constant'"
            fwd.append(f"h = F.pad(h, (1, 0, 0, 1), mode={mode})")
            size = [n + 1 for n in size]
        elif kind < 0.76:
            fwd.append(rng.choice(["h = F.softmax(h, dim=1)", "h = F.log_softmax(h, dim=-1)",
                                   "h = F.dropout(h, 0.5, training=False)",
                                   "h = F.gelu(h) * F.sigmoid(h)", "h = F.silu(h) + h",
                                   "h = F.elu(h, inplace=False).clamp(max=1.0)"]))
        elif kind < 0.82:
            fwd.append("h = F.group_norm(h, 1)" if rng.random() < 0.5 or _size(tuple(size)) < 2
                       else "h = F.instance_norm(h)")
        elif kind < 0.9:
            causal = ", is_causal=True" if rng.random() < 0.5 else ""
            fwd.append(f"h = F.scaled_dot_product_attention(h, h, h{causal})")
        elif kind < 0.95 and min(size) >= 2:
            fwd.append("h = F.avg_pool2d(h, 2, stride=1, ceil_mode=True)")
            size = [n - 1 for n in size]
        else:
            fwd.append("h = F.adaptive_max_pool2d(h, 1) + h")
    fwd.append("h = h.flatten(1)")
    return build, fwd, c * _size(tuple(size)), in_shape


def _seg_loss(rng: random.Random, b: int, c: int, size: Shape) -> tuple[list[str], str]:
    """Cross-entropy (or nll) of a (b, c, *size) output against class maps."""
    tgt = [[rng.randrange(c) for _ in range(_size(size))] for _ in range(b)]
    flat = [v for row in tgt for v in row]
    args = ""
    if rng.random() < 0.3:
        args += f", ignore_index={flat[0]}"
    if rng.random() < 0.3:
        args += f", weight=torch.tensor({[0.5 + 0.25 * i for i in range(c)]}, dtype=out.dtype)"
    red = rng.choice(["", ", reduction='sum'", ", reduction='none'"])
    tail = ".mean()" if "none" in red else ""
    t = f"t = torch.tensor({_literal([float(v) for v in flat], (b, *size))}).long()"
    if rng.random() < 0.25:
        return [t], f"F.nll_loss(F.log_softmax(out, 1), t{args}{red}){tail}"
    smooth = ", label_smoothing=0.2" if rng.random() < 0.3 else ""
    return [t], f"F.cross_entropy(out, t{args}{smooth}{red}){tail}"


def program_nn(seed: int, double: bool | None = None) -> str:
    """``double``: the program in float64 (None: as drawn, float32 mostly)."""
    rng = random.Random(seed)
    lines = [HEADER]
    train = rng.random() < 0.6
    drawn = rng.random() < 0.15
    double = drawn if double is None else double
    family = rng.random()
    fwd: list[str]
    c = rng.randint(2, 4)
    seg: tuple[int, Shape] | None = None
    extra: list[str] = []
    if family < 0.12:
        build, fwd, feat, in_shape = functional_trunk(rng, train)
        lines.append(f"x = {_tensor(rng, in_shape, rng.random() < 0.6, double)}")
        head = f"nn.Linear({feat}, {c})"
        batch = in_shape[0]
    elif family < 0.35:
        b, f = rng.randint(2, 4), rng.randint(2, 5)
        lines.append(f"x = {_tensor(rng, (b, f), rng.random() < 0.6, double)}")
        build, feat = vector_trunk(rng, train, f)
        fwd = ["h = trunk(x)"]
        if rng.random() < 0.3:
            act = rng.choice(["nn.ReLU()", "nn.Tanh()", "nn.GELU()"])
            build.append(f"block = nn.Sequential(nn.LayerNorm({feat}), nn.Linear({feat}, "
                         f"{feat}), {act})")
            build.append("fill(block, 2)")
            fwd.append("h = h + block(h)")
            extra.append("block")
        head = f"nn.Linear({feat}, {c})"
        batch = b
    elif family < 0.65:
        dim = 2 if rng.random() < 0.6 else 1
        build, ch, size, in_shape = image_trunk(rng, train, dim)
        lines.append(f"x = {_tensor(rng, in_shape, rng.random() < 0.6, double)}")
        batch = in_shape[0]
        if dim == 2 and rng.random() < 0.3:
            fwd = ["h = trunk(x)"]
            head = f"nn.Conv2d({ch}, {c}, 1)"
            seg = (batch, size)
        else:
            fwd = ["h = trunk(x).flatten(1)" if rng.random() < 0.5
                   else "h = trunk(x).reshape(x.shape[0], -1)"]
            head = f"nn.Linear({ch * _size(size)}, {c})"
    else:
        build, fwd, feat, xcode, batch = recurrent_trunk(rng, double)
        lines.append(xcode)
        head = f"nn.Linear({feat}, {c})"
    lines += build
    if not any(line.startswith("trunk.") for line in build):
        lines.append("trunk.train()" if train else "trunk.eval()")
    lines.append(f"head = {head}")
    lines.append("fill(trunk, 0)")
    lines.append("fill(head, 1)")
    if head.startswith("nn.Linear") and rng.random() < 0.1:
        lines.append(rng.choice(["torch.nn.utils.parametrizations.weight_norm(head)",
                                 "torch.nn.utils.weight_norm(head)"]))
    hook = rng.random()
    # NB: the checkpoint and saved-tensor-hook patterns draw from a generator of their own, so
    # that the other draws (and the programs without such a pattern) stay as they were
    xr = random.Random(seed * 1_000_003 + 17)
    defs: list[str] = []
    after: list[str] = []
    if fwd == ["h = trunk(x)"] and rng.random() < 0.15:
        text = "\n".join(build)
        plain = hook >= 0.16 and not any(k in text for k in ("BatchNorm", "inplace=True"))
        reentrant = rng.choice(["False", "True"]) if plain else xr.choice(["False", "True"])
        fwd = [f"h = torch.utils.checkpoint.checkpoint(trunk, x, use_reentrant={reentrant}"
               f"{_checkpoint_options(xr) if reentrant == 'False' else ''})"]
    elif xr.random() < 0.3:
        fwd, defs, after = _region(xr, fwd, build)
    if hook < 0.08:
        lines.append("trunk.register_full_backward_hook(lambda m, gi, go: note('hook', "
                     "[list(g.shape) if g is not None else None for g in gi + go]))")
    elif hook < 0.12:
        lines.append("trunk.register_forward_hook(lambda m, i, o: o * 2 if isinstance(o, "
                     "torch.Tensor) else o)")
    elif hook < 0.16:
        lines.append("trunk.register_full_backward_pre_hook(lambda m, go: (go[0] * 0.5,))")
    names = ["trunk", "head", *extra] + (["emb"] if "emb = " in "\n".join(lines) else [])
    mods = "[" + ", ".join(names) + "]"
    if double:
        lines.append(f"for m in {mods}:")
        lines.append("    m.double()")
    lines.append(f"model = nn.ModuleList({mods})")
    lines.append("params = list(model.parameters())")
    lines.append("named = dict(model.named_parameters())")
    lines += defs
    lines.append("")
    lines.append("def forward():")
    lines += ["    " + ln for ln in fwd]
    lines.append("    return h, head(h)")
    lines.append("")
    lines.append("h, out = forward()")
    lines.append("note('out', out)")
    lines += after
    if seg is not None:
        tgt, loss = _seg_loss(rng, seg[0], c, seg[1])
    else:
        tgt, loss = loss_expr(rng, "out", batch, c)
    lines += tgt
    if double:
        lines.append("t = t.double() if t.is_floating_point() else t")
    lines.append(f"loss = {loss}")
    lines.append("probe('loss', loss=loss, x=x)")
    pattern = rng.random()
    if pattern < 0.2:
        lines.append("attempt('backward', lambda: loss.backward())")
    elif pattern < 0.32:
        lines.append("attempt('first', lambda: loss.backward(retain_graph=True))")
        lines.append("attempt('second', lambda: loss.backward())")
    elif pattern < 0.45:
        lines.append("attempt('first', lambda: loss.backward())")
        lines.append("attempt('again', lambda: loss.backward())")
    elif pattern < 0.58:
        lines.append(f"loss2 = {rng.choice(['h.pow(2).mean()', 'out.sum()', 'h.tanh().sum()'])}")
        lines.append("probe('loss2', loss2=loss2)")
        if rng.random() < 0.5:
            lines.append("attempt('first', lambda: loss.backward(retain_graph=True))")
            lines.append("attempt('second', lambda: loss2.backward())")
        else:
            lines.append("attempt('both', lambda: (loss + 0.5 * loss2).backward())")
    elif pattern < 0.68:
        lines.append("out2 = head(h.detach())")
        lines.append(f"loss2 = {loss.replace('out', 'out2')}")
        lines.append("probe('detached', loss2=loss2)")
        lines.append("attempt('detached', lambda: loss2.backward())")
    elif pattern < 0.78:
        lines.append("attempt('grad', lambda: note('g', torch.autograd.grad(loss, params, "
                     "retain_graph=True)))")
        lines.append("attempt('grad x', lambda: note('gx', torch.autograd.grad(loss, [x], "
                     "allow_unused=True)))")
    elif pattern < 0.84:
        # NB: a step between two backwards of one graph: saved parameters were changed (a
        # non-reentrant checkpoint recomputes from the changed ones)
        lines.append("attempt('first', lambda: loss.backward(retain_graph=True))")
        lines.append(f"opt0 = {optimizer(rng)}")
        lines.append("opt0.step()")
        if rng.random() < 0.5:
            lines.append("probe('stale', loss=loss)")
        lines.append("attempt('stale', lambda: loss.backward())")
    elif pattern < 0.87:
        kind = rng.random()
        if kind < 0.35:
            # NB: the trunk frozen, then a backward of a new forward
            lines.append("trunk.requires_grad_(False)")
            lines.append("h, out = forward()")
            lines.append(f"loss = {loss}")
            lines.append("probe('frozen', loss=loss, h=h)")
            lines.append("attempt('frozen', lambda: loss.backward())")
            lines.append("trunk.requires_grad_(True)")
        elif kind < 0.7:
            which = rng.choice(["[x]", "list(head.parameters())", "[head.weight, x]"])
            lines.append(f"attempt('inputs', lambda: loss.backward(inputs={which}))")
        else:
            # NB: the gradient accumulated over two forwards, under no_grad a third
            lines.append("attempt('first', lambda: (loss / 2).backward())")
            lines.append("h, out = forward()")
            lines.append(f"attempt('second', lambda: ({loss} / 2).backward())")
            lines.append("with torch.no_grad():")
            lines.append("    h, out = forward()")
            lines.append("probe('no_grad', out=out)")
    elif pattern < 0.92:
        # NB: a hook on an intermediate, retain_grad, then a clipped gradient
        lines.append("hk = h.register_hook(lambda g: g * 2)")
        lines.append("h.retain_grad()")
        lines.append("attempt('hooked', lambda: loss.backward())")
        lines.append("grads('h', h=h)")
        lines.append("hk.remove()")
        clip = rng.choice(["torch.nn.utils.clip_grad_norm_(params, 0.5)",
                           "torch.nn.utils.clip_grad_value_(params, 0.05)",
                           "torch.nn.utils.clip_grad_norm_(params, 1.0, norm_type=1.0)"])
        lines.append(f"attempt('clip', lambda: note('norm', {clip}))")
    else:
        # NB: a gradient penalty (double backward through the model)
        wrt = rng.choice(["h", "x", "x", "params[0]"])
        text = "\n".join(lines)
        # NB: InstanceNorm's output is a view: an in-place layer after it writes into a view,
        # whose create_graph the engine refuses (a known difference; seed 27295)
        if any(k in text for k in NO_DOUBLE_BACKWARD) or ("InstanceNorm" in text
                                                          and "inplace=True" in text):
            wrt = "h"
        lines.append("def penalty():")
        lines.append(f"    g, = torch.autograd.grad(loss, [{wrt}], create_graph=True)")
        lines.append("    (loss + g.pow(2).sum()).backward()")
        lines.append("attempt('penalty', penalty)")
    lines.append("grads('params', **named)")
    lines.append("attempt('x grad', lambda: grads('x', x=x))")
    lines.append("note('buffers', list(trunk.buffers()))")
    if "unpacks = []" in "\n".join(lines):
        lines.append("note('unpacks', unpacks)")
    if rng.random() < 0.7:
        lines.append(f"opt = {optimizer(rng)}")
        sched = rng.random() < 0.3
        if sched:
            lines.append("sched = torch.optim.lr_scheduler.StepLR(opt, 1, gamma=0.5)")
        for k in range(rng.randint(1, 2)):
            lines.append("opt.step()")
            lines.append(rng.choice(["opt.zero_grad()", "opt.zero_grad(set_to_none=False)",
                                     "model.zero_grad()"]))
            lines.append("h, out = forward()")
            lines.append(f"loss = {loss}")
            lines.append(f"probe('step {k}', loss=loss)")
            lines.append(f"attempt('step {k} backward', lambda: loss.backward())")
            lines.append(f"grads('step {k}', **named)")
            if sched:
                lines.append("sched.step()")
        lines.append("opt.step()")
        lines.append("note('params', params)")
        lines.append("note('buffers after', list(trunk.buffers()))")
    return "\n".join(lines) + "\n"
