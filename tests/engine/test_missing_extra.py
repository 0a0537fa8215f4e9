"""aminmax, narrow_copy, scatter_reduce / scatter(reduce=), embedding_bag / nn.EmbeddingBag
(``engine/reducing_extra.py``, ``engine/ops_reduce_extra.py``, ``engine/ops_bag.py``,
``torch/nn/functional_extra.py``) checked against real PyTorch 2.13: values, gradients, saved
values, in-place forms and the argument errors word for word. The op table's examples
(``test_op_table``) check their nodes and gradients as well."""

from __future__ import annotations

from typing import Any

import pytest

from ._support import Recorder, differential

pytestmark = pytest.mark.torch


def _x(torch: Any) -> Any:
    return torch.tensor([[3.0, 1.0, 4.0, 3.0], [0.5, 5.0, 5.0, -1.0], [1.5, -2.0, 2.5, 7.0]],
                        requires_grad=True)


def _saved(rec: Recorder, label: str, node: Any) -> None:
    for name in sorted(n for n in dir(node) if n.startswith("_saved_")):
        rec.attempt(f"{label} {name}", lambda name=name: getattr(node, name))


def test_aminmax_and_narrow_copy() -> None:
    def snippet(rec: Recorder) -> None:
        torch = rec.torch
        x = _x(torch)
        for label, fn in {
            "all": lambda: torch.aminmax(x),
            "dim": lambda: x.aminmax(dim=1),
            "dim keep": lambda: torch.aminmax(x, dim=-2, keepdim=True),
            "0-d": lambda: torch.aminmax(torch.tensor(2.0, requires_grad=True), dim=0),
            "ints": lambda: torch.aminmax(torch.tensor([[3, 1], [2, 5]]), dim=0),
            "nan": lambda: torch.aminmax(torch.tensor([1.0, float("nan")])),
            "empty": lambda: torch.aminmax(torch.zeros(0, 3)),
            "empty dim": lambda: torch.aminmax(torch.zeros(0, 3), dim=0),
            "empty other dim": lambda: torch.aminmax(torch.zeros(0, 3), dim=1),
            "bad dim": lambda: torch.aminmax(x, dim=2),
            "narrow_copy": lambda: x.narrow_copy(1, 1, 2),
            "narrow_copy neg": lambda: torch.narrow_copy(x, -1, -3, 2),
            "narrow_copy past": lambda: x.narrow_copy(1, 3, 2),
            "narrow_copy start": lambda: x.narrow_copy(1, -5, 2),
            "narrow_copy 0-d": lambda: torch.tensor(1.0).narrow_copy(0, 0, 1),
        }.items():
            if rec.attempt(label, fn):
                rec.note(label + " repr", repr(fn()))
        r = torch.aminmax(x, dim=1)
        _saved(rec, "aminmax", r.min.grad_fn)
        rec.note("one node", r.min.grad_fn is r.max.grad_fn)
        (r.min * 2 + r.max * 3).sum().backward()
        rec.grad("aminmax", x=x)
        y = _x(torch)
        torch.aminmax(y).max.backward()              # ties share the gradient
        rec.grad("aminmax ties", y=y)
        n = y.narrow_copy(-1, -3, 2)
        _saved(rec, "narrow_copy", n.grad_fn)
        rec.attempt("narrow_copy backward", lambda: n.sum().backward())
        z = _x(torch)
        z.narrow_copy(1, -3, 2).sum().backward()
        rec.grad("narrow_copy", z=z)

    differential(snippet)


def test_scatter_reduce() -> None:
    def snippet(rec: Recorder) -> None:
        torch = rec.torch
        idx = torch.tensor([[0, 1, 1, 2], [1, 0, 2, 2]])
        for reduce in ("sum", "prod", "mean", "amax", "amin"):
            for include in (True, False):
                x = _x(torch)
                src = torch.tensor([[2.0, 0.0, 5.0, -1.0], [4.0, 1.0, 2.5, 3.0]],
                                   requires_grad=True)
                out = x.scatter_reduce(0, idx, src, reduce, include_self=include)
                label = f"{reduce} {include}"
                rec.note(label, out)
                _saved(rec, label, out.grad_fn)
                (out * out).sum().backward()
                rec.grad(label, x=x, src=src)
        x = _x(torch)
        src = torch.ones(2, 4, requires_grad=True)
        t = x.clone()
        rec.note("in place", t.scatter_reduce_(1, idx[:, :3], src, "mean", include_self=False))
        rec.note("version", t._version)
        rec.note("ints", torch.tensor([5, 7, 9]).scatter_reduce(0, torch.tensor([0, 0, 2]),
                                                                 torch.tensor([2, 4, 1]),
                                                                 "mean"))
        rec.attempt("bad reduce", lambda: x.scatter_reduce(0, idx, src, "foo"))
        rec.attempt("max", lambda: x.scatter_reduce(0, idx, src, "max"))
        rec.attempt("min backward",
                    lambda: x.scatter_reduce(0, idx, src, "min").sum().backward())
        rec.attempt("add", lambda: x.scatter(0, idx, src, reduce="add"))
        rec.attempt("multiply value", lambda: x.scatter(0, idx, 2.0, reduce="multiply"))
        rec.attempt("bad legacy", lambda: x.scatter(0, idx, 2.0, reduce="max"))
        rec.attempt("legacy backward",
                    lambda: x.scatter(0, idx, 2.0, reduce="add").sum().backward())
        t = x.clone()
        t.scatter_(0, idx, 3.0, reduce="add")
        rec.note("legacy in place", (t, t._version, t.grad_fn.name()))

    differential(snippet)


def test_embedding_bag() -> None:
    def snippet(rec: Recorder) -> None:
        torch = rec.torch
        F = torch.nn.functional
        inp, off = torch.tensor([1, 2, 4, 5, 4, 3, 2, 9]), torch.tensor([0, 4, 4])
        for dtype in (torch.float32, torch.float64):
            for label, kw in {
                "sum": {"mode": "sum"},
                "mean": {"mode": "mean"},
                "max": {"mode": "max"},
                "max pad": {"mode": "max", "padding_idx": 4},
                "mean pad": {"mode": "mean", "padding_idx": -6},
                "weighted": {"mode": "sum", "psw": True},
                "weighted no grad": {"mode": "sum", "psw": False},
                "weighted pad": {"mode": "sum", "psw": True, "padding_idx": 2},
                "last offset": {"mode": "max", "include_last_offset": True},
                "2-d": {"mode": "mean", "two_d": True},
            }.items():
                kw = dict(kw)
                w = torch.linspace(-2, 3, 30, dtype=dtype).sin().view(10, 3).requires_grad_()
                psw = kw.pop("psw", None)
                weights = None if psw is None else torch.linspace(
                    0.5, 2, 8, dtype=dtype).requires_grad_(psw)
                offsets = torch.tensor([0, 3, 8]) if kw.get("include_last_offset") else off
                if kw.pop("two_d", False):
                    out = F.embedding_bag(inp.view(2, 4), w, **kw)
                else:
                    out = F.embedding_bag(inp, w, offsets, per_sample_weights=weights, **kw)
                label = f"{label} {dtype}"
                rec.note(label, out)
                _saved(rec, label, out.grad_fn)
                (out * out).sum().backward()
                rec.grad(label, w=w)
                if weights is not None:
                    rec.grad(label, weights=weights)
        w = torch.ones(10, 3, requires_grad=True)
        for label, fn in {
            "no offsets": lambda: F.embedding_bag(inp, w),
            "2-d offsets": lambda: F.embedding_bag(inp.view(2, 4), w, off),
            "bad mode": lambda: F.embedding_bag(inp, w, off, mode="foo"),
            "weights max": lambda: F.embedding_bag(inp, w, off, mode="max",
                                                   per_sample_weights=torch.ones(8)),
            "weights shape": lambda: F.embedding_bag(inp, w, off, mode="sum",
                                                     per_sample_weights=torch.ones(3)),
            "weight 1-d": lambda: F.embedding_bag(inp, torch.ones(3), off),
            "3-d input": lambda: F.embedding_bag(inp.view(2, 2, 2), w),
        }.items():
            rec.attempt(label, fn)
        torch.manual_seed(0)
        bag = torch.nn.EmbeddingBag(10, 3, mode="sum")
        rec.note("module", (bag(inp, off), repr(bag), bag.weight.shape))
        rec.note("repr", repr(torch.nn.EmbeddingBag(10, 3, max_norm=1.0, mode="max",
                                                     padding_idx=-1, norm_type=1.0)))
        bag = torch.nn.EmbeddingBag.from_pretrained(torch.linspace(0, 1, 30).view(10, 3),
                                                    mode="max")
        rec.note("pretrained", (bag(inp.view(2, 4)), bag.weight.requires_grad))
        bag = torch.nn.EmbeddingBag(10, 3, max_norm=1.0)
        rec.note("max_norm", bag(inp, off).norm(dim=1) <= 1.0)

    differential(snippet)


def test_pools_3d() -> None:
    def snippet(rec: Recorder) -> None:
        torch = rec.torch
        F, nn = torch.nn.functional, torch.nn
        for label, fn in {
            "max": lambda x: F.max_pool3d(x, 2),
            "max padded": lambda x: F.max_pool3d(x, (2, 3, 2), 1, 1, dilation=(1, 2, 1),
                                                 ceil_mode=True),
            "max unbatched": lambda x: F.max_pool3d(x[0], 3, 2, 1, return_indices=True)[0],
            "avg": lambda x: F.avg_pool3d(x, 2),
            "avg padded": lambda x: F.avg_pool3d(x, 3, 2, 1, True, False),
            "avg divisor": lambda x: F.avg_pool3d(x, (3, 2, 3), 2, (1, 1, 0), True,
                                                  divisor_override=5),
            "adaptive": lambda x: F.adaptive_avg_pool3d(x, (2, 3, 4)),
            "adaptive none": lambda x: F.adaptive_avg_pool3d(x[0], (3, None, 5)),
            "adaptive global": lambda x: F.adaptive_avg_pool3d(x, 1),
            "modules": lambda x: nn.MaxPool3d(2)(x) + nn.AvgPool3d(2)(x)
            + nn.AdaptiveAvgPool3d((2, 2, 3))(x),
        }.items():
            x = torch.linspace(-3, 4, 240, dtype=torch.float64).sin().view(1, 2, 4, 5, 6)
            x.requires_grad_()
            out = fn(x)
            rec.note(label, out)
            _saved(rec, label, out.grad_fn)
            (out * out).sum().backward()
            rec.grad(label, x=x)
        x = torch.ones(1, 2, 4, 5, 6)
        rec.note("indices", F.max_pool3d(torch.arange(240.0).view(2, 4, 5, 6), 2,
                                         return_indices=True)[1])
        for label, fn in {
            "3-d input": lambda: F.max_pool3d(torch.ones(2, 3, 4), 2),
            "kernel pair": lambda: F.max_pool3d(x, (2, 2)),
            "stride pair": lambda: F.avg_pool3d(x, 2, (1, 1)),
            "big pad": lambda: F.avg_pool3d(x, 2, padding=2),
            "avg kernel pair": lambda: F.avg_pool3d(x, (2, 2)),
            "avg padding pair": lambda: F.avg_pool3d(x, 2, 1, (1, 1)),
            "max padding pair": lambda: F.max_pool3d(x, 2, 1, (1, 1)),
            "max dilation pair": lambda: F.max_pool3d(x, 2, 1, 0, (1, 1)),
            "avg small": lambda: F.avg_pool3d(torch.ones(1, 2, 4, 4), 3, 2, 1),
            "max small": lambda: F.max_pool3d(torch.ones(1, 2, 4, 4), 3, 2, 1),
            "too small": lambda: F.max_pool3d(x, 7),
            "adaptive 2-d": lambda: F.adaptive_avg_pool3d(torch.ones(3, 4), 2),
            "divisor 0": lambda: F.avg_pool3d(x, 2, divisor_override=0),
        }.items():
            rec.attempt(label, fn)
        rec.note("reprs", [repr(m) for m in (
            nn.MaxPool3d(2), nn.AvgPool3d(2), nn.AdaptiveAvgPool3d((1, 2, 3)),
            nn.MaxPool3d((2, 3, 1), stride=1, padding=1, return_indices=True))])

    differential(snippet)


def test_interpolate_bicubic_and_3d() -> None:
    def snippet(rec: Recorder) -> None:
        torch = rec.torch
        F = torch.nn.functional
        for label, (fn, five) in {
            "nearest 3-d": (lambda x: F.interpolate(x, scale_factor=2), True),
            "nearest 3-d down": (lambda x: F.interpolate(x, scale_factor=0.7), True),
            "nearest-exact 3-d": (lambda x: F.interpolate(x, size=(4, 5, 7),
                                                          mode="nearest-exact"), True),
            "trilinear": (lambda x: F.interpolate(x, scale_factor=(1.5, 2, 1.2),
                                                  mode="trilinear"), True),
            "trilinear corners": (lambda x: F.interpolate(x, size=(4, 5, 7), mode="trilinear",
                                                          align_corners=True), True),
            "area 3-d": (lambda x: F.interpolate(x, size=(2, 2, 2), mode="area"), True),
            "bicubic": (lambda x: F.interpolate(x, scale_factor=2, mode="bicubic"), False),
            "bicubic corners": (lambda x: F.interpolate(x, size=(7, 3), mode="bicubic",
                                                        align_corners=True), False),
            "bicubic down": (lambda x: F.interpolate(x, scale_factor=0.6, mode="bicubic"),
                             False),
            "upsample module": (lambda x: torch.nn.Upsample(scale_factor=2,
                                                            mode="trilinear")(x), True),
        }.items():
            shape = (1, 2, 3, 4, 5) if five else (2, 2, 4, 5)
            x = torch.linspace(-2, 3, 120)[:120 if five else 80].sin().view(shape)
            x.requires_grad_()
            out = fn(x)
            rec.note(label, out)
            _saved(rec, label, out.grad_fn)
            (out * out).sum().backward()
            rec.grad(label, x=x)
        rec.attempt("trilinear 4-d",
                    lambda: F.interpolate(torch.ones(1, 1, 2, 2), scale_factor=2,
                                          mode="trilinear"))
        rec.attempt("bicubic 5-d",
                    lambda: F.interpolate(torch.ones(1, 1, 2, 2, 2), scale_factor=2,
                                          mode="bicubic"))

    differential(snippet)


def test_multinomial_and_weighted_sampler_draw_pytorchs_numbers() -> None:
    def snippet(rec: Recorder) -> None:
        torch = rec.torch
        weights = torch.linspace(0.1, 2.0, 12).sin().abs()
        for seed in range(8):
            for label, (rows, n, replacement, dtype) in {
                "one": (1, 1, False, torch.float32),
                "several": (1, 3, False, torch.float32),
                "rows": (3, 3, False, torch.float64),
                "with replacement": (1, 30, True, torch.float32),
                "rows with replacement": (2, 9, True, torch.float64),
                "one with replacement": (2, 1, True, torch.float64),
            }.items():
                torch.manual_seed(seed)
                w = weights[:rows * 4].view(rows, 4).to(dtype)
                if seed % 2:
                    w[0, 1] = 0.0
                out = torch.multinomial(w if rows > 1 else w[0], n, replacement)
                rec.note(f"{label} {seed}", (out, torch.rand(2)))   # and the generator after
        g = torch.Generator().manual_seed(5)
        rec.note("generator", weights.multinomial(20, True, generator=g))
        torch.manual_seed(2)
        rec.note("exponential_", torch.empty(6, dtype=torch.float64).exponential_(2.5))
        for label, fn in {
            "ints": lambda: torch.multinomial(torch.tensor([1, 2]), 1),
            "3-d": lambda: torch.multinomial(torch.ones(2, 2, 2), 1),
            "too many": lambda: torch.multinomial(torch.ones(3), 4),
            "none": lambda: torch.multinomial(torch.ones(3), 0),
            "negative": lambda: torch.multinomial(torch.tensor([1.0, -1.0]), 1),
            "negative with replacement": lambda: torch.multinomial(torch.tensor([1.0, -1.0]),
                                                                   3, True),
            "zeros": lambda: torch.multinomial(torch.zeros(3), 1),
            "zeros with replacement": lambda: torch.multinomial(torch.zeros(3), 2, True),
            "inf with replacement": lambda: torch.multinomial(
                torch.tensor([1.0, float("inf")]), 2, True),
        }.items():
            rec.attempt(label, fn)
        data = torch.utils.data
        for seed in range(4):
            torch.manual_seed(seed)
            sampler = data.WeightedRandomSampler([0.1, 0.9, 0.4, 0.0, 2.0], 12)
            rec.note(f"sampler {seed}", (list(sampler), list(sampler), len(sampler)))
        torch.manual_seed(0)
        rec.note("no replacement", list(data.WeightedRandomSampler([1, 2, 3, 4], 3, False)))
        gen = torch.Generator().manual_seed(7)
        loader = data.DataLoader(list(range(5)), batch_size=2, sampler=data.WeightedRandomSampler(
            [1.0, 1.0, 5.0, 1.0, 1.0], 6, generator=gen))
        rec.note("loader", [b.tolist() for b in loader])
        for label, fn in {
            "num_samples": lambda: data.WeightedRandomSampler([1.0], 0),
            "replacement": lambda: data.WeightedRandomSampler([1.0], 1, replacement=1),
            "2-d weights": lambda: data.WeightedRandomSampler([[1.0, 2.0]], 1),
        }.items():
            rec.attempt(label, fn)

    differential(snippet)


def test_more_schedulers_give_pytorchs_rates_to_the_bit() -> None:
    def snippet(rec: Recorder) -> None:
        torch = rec.torch
        sched = torch.optim.lr_scheduler

        def make(opt_name: str) -> Any:
            w, v = torch.zeros(2, requires_grad=True), torch.zeros(2, requires_grad=True)
            extra = {"momentum": 0.9} if opt_name == "SGD" else {}
            return getattr(torch.optim, opt_name)([{"params": [w]}, {"params": [v], "lr": 0.05}],
                                                  lr=0.1, **extra)

        builders = {
            "polynomial": lambda o: sched.PolynomialLR(o, total_iters=6, power=2.0),
            "polynomial default": lambda o: sched.PolynomialLR(o),
            "cyclic": lambda o: sched.CyclicLR(o, 0.01, [0.1, 0.2], step_size_up=3,
                                               cycle_momentum=o.defaults.get("momentum", 0) > 0),
            "cyclic triangular2": lambda o: sched.CyclicLR(o, 0.01, 0.1, 2, 4, "triangular2",
                                                           cycle_momentum=False),
            "cyclic exp_range": lambda o: sched.CyclicLR(o, 0.01, 0.1, 3, mode="exp_range",
                                                         gamma=0.9, cycle_momentum=False),
            "cyclic scale_fn": lambda o: sched.CyclicLR(o, 0.01, 0.1, 2, scale_fn=lambda x: 0.5,
                                                        cycle_momentum=False),
            "sequential": lambda o: sched.SequentialLR(o, [
                sched.LinearLR(o, 0.1, 1.0, 3), sched.StepLR(o, 2, 0.5),
                sched.ExponentialLR(o, 0.9)], milestones=[3, 8]),
            "chained": lambda o: sched.ChainedScheduler([
                sched.ConstantLR(o, 0.5, 4), sched.ExponentialLR(o, 0.9)]),
        }
        for label, build in builders.items():
            for opt_name in ("SGD", "Adam"):
                opt = make(opt_name)
                s = build(opt)
                rows = [s.get_last_lr()]
                for _ in range(14):
                    opt.step()
                    s.step()
                    rows.append((s.get_last_lr(), [g.get("momentum", g.get("betas"))
                                                   for g in opt.param_groups]))
                rec.note(f"{label} {opt_name}", rows)
                rec.note(f"{label} {opt_name} state", sorted(s.state_dict()))
        opt = make("SGD")
        s = sched.PolynomialLR(opt, 4)
        rec.attempt("closed form", lambda: (s.step(2), s.get_last_lr()))
        s = sched.CyclicLR(make("SGD"), 0.01, 0.1)
        state = s.state_dict()
        rec.note("cyclic state", sorted(state))
        s.load_state_dict(state)
        rec.note("cyclic after load", s.get_last_lr())
        o = make("SGD")
        other = make("SGD")
        for label, fn in {
            "no schedulers": lambda: sched.SequentialLR(o, [], []),
            "milestones": lambda: sched.SequentialLR(o, [sched.StepLR(o, 2)], [1]),
            "plateau": lambda: sched.ChainedScheduler([sched.ReduceLROnPlateau(o)]),
            "no chain": lambda: sched.ChainedScheduler([]),
            "not a scheduler": lambda: sched.SequentialLR(o, [3], []),
            "other optimizer": lambda: sched.ChainedScheduler([sched.StepLR(o, 2),
                                                               sched.StepLR(other, 2)]),
            "bad mode": lambda: sched.CyclicLR(o, 0.1, 1.0, mode="foo"),
            "no momentum": lambda: sched.CyclicLR(
                torch.optim.Adagrad([torch.zeros(1, requires_grad=True)]), 0.1, 1.0),
            "max_lr groups": lambda: sched.CyclicLR(o, 0.1, [1.0, 2.0, 3.0]),
        }.items():
            rec.attempt(label, fn)

    differential(snippet)


def test_triplet_margin_with_distance_loss() -> None:
    def snippet(rec: Recorder) -> None:
        torch = rec.torch
        F, nn = torch.nn.functional, torch.nn

        def cosine(x: Any, y: Any) -> Any:
            return 1.0 - F.cosine_similarity(x, y)

        for label, kw in {
            "default": {},
            "cosine swap": {"distance_function": cosine, "swap": True},
            "margin sum": {"margin": 2.5, "reduction": "sum"},
            "none": {"reduction": "none", "swap": True},
            "module distance": {"distance_function": nn.PairwiseDistance(p=1.0)},
        }.items():
            a = torch.linspace(-1, 2, 12).view(3, 4).requires_grad_()
            p = torch.linspace(0, 1, 12).cos().view(3, 4).requires_grad_()
            n = torch.linspace(-2, 1, 12).sin().view(3, 4).requires_grad_()
            loss = F.triplet_margin_with_distance_loss(a, p, n, **kw)
            rec.note(label, loss)
            rec.graph(label + " graph", loss=loss)
            loss.sum().backward()
            rec.grad(label, a=a, p=p, n=n)
        module = nn.TripletMarginWithDistanceLoss(margin=0.5, swap=True)
        rec.note("module", (repr(module), module(a, p, n)))
        rec.note("module cosine", repr(nn.TripletMarginWithDistanceLoss(
            distance_function=cosine, reduction="sum")))
        for label, fn in {
            "reduction": lambda: F.triplet_margin_with_distance_loss(a, p, n, reduction="x"),
            "margin": lambda: F.triplet_margin_with_distance_loss(a, p, n, margin=0),
            "module margin": lambda: nn.TripletMarginWithDistanceLoss(margin=-1),
            "dims": lambda: F.triplet_margin_with_distance_loss(a, p[0], n),
        }.items():
            rec.attempt(label, fn)

    differential(snippet)


def test_ctc_loss() -> None:
    def snippet(rec: Recorder) -> None:
        torch = rec.torch
        F, nn = torch.nn.functional, torch.nn
        raw = torch.linspace(-2, 3, 60).sin().view(6, 2, 5) * 3
        for label, (targets, il, tl, kw) in {
            "padded": ([[1, 2, 2], [3, 1, 0]], [6, 5], [3, 2], {"reduction": "none"}),
            "concatenated": ([1, 2, 2, 3, 1], (6, 6), (3, 2), {}),
            "sum blank 4": ([[1, 2], [3, 3]], [6, 6], [2, 2], {"reduction": "sum", "blank": 4}),
            "impossible": ([[1, 1, 1], [2, 3, 1]], [2, 6], [3, 0], {"reduction": "none"}),
            "zero infinity": ([[1, 1, 1], [2, 3, 1]], [2, 6], [3, 1], {"zero_infinity": True}),
        }.items():
            lp = raw.log_softmax(2).detach().requires_grad_()
            lengths = (torch.tensor(il), torch.tensor(tl)) if isinstance(il, list) else (il, tl)
            out = F.ctc_loss(lp, torch.tensor(targets), *lengths, **kw)
            rec.note(label, out)
            rec.note(label + " nodes", [out.grad_fn.name()]
                     + [n.name() for n, _ in out.grad_fn.next_functions if n is not None])
            out.sum().backward()
            rec.grad(label, lp=lp)
        lp = raw.log_softmax(2).detach().requires_grad_()
        out = F.ctc_loss(lp, torch.tensor([[1, 2, 2], [3, 3, 3]]), [6, 6], [3, 3],
                         reduction="none")
        _saved(rec, "saved", out.grad_fn)       # full lengths: every log_alpha entry written
        loss = nn.CTCLoss(blank=1, zero_infinity=True, reduction="sum")
        rec.note("module", (repr(loss), repr(nn.CTCLoss()),
                            loss(lp, torch.tensor([[2, 3], [4, 0]]), [6, 6], [2, 2])))
        for label, fn in {
            "targets rows": lambda: F.ctc_loss(lp, torch.tensor([[1, 2]]), [6, 6], [2, 2]),
            "input lengths": lambda: F.ctc_loss(lp, torch.tensor([[1, 2], [1, 2]]), [6], [2, 2]),
            "too long": lambda: F.ctc_loss(lp, torch.tensor([[1, 2], [1, 2]]), [7, 6], [2, 2]),
            "reduction": lambda: F.ctc_loss(lp, torch.tensor([[1, 2], [1, 2]]), [6, 6],
                                            [2, 2], reduction="x"),
        }.items():
            rec.attempt(label, fn)

    differential(snippet)
