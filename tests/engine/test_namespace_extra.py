"""Names real PyTorch scripts use, checked against real PyTorch 2.13: ``torch.random``,
``torch.version`` and the version's comparisons, ``frombuffer``, ``get_device``, the memory and
storage methods (``pin_memory``, ``share_memory_``, ``as_subclass``, ``storage_type``,
``nonzero_static``, ``set_``, the deprecated ``resize_as``), conjugation and the complex views
of real tensors (``conj``, ``conj_physical_``, ``real``, ``imag``, ``adjoint``, ``H``, ``mH``,
``mT``), ``torch.profiler`` (``record_function`` makes no node; ``profile`` times the ops), and
``nn.utils``'s fusions, ``skip_init`` and submodules."""

from __future__ import annotations

import json
from typing import Any

import pytest

import graphviz_autograd.torch as ours
from graphviz_autograd.torch_alias import native_torch

from ._support import Recorder, differential, real_torch

pytestmark = pytest.mark.torch


def _x(torch: Any, *shape: int, rg: bool = True) -> Any:
    n = 1
    for s in shape:
        n *= s
    return (torch.arange(float(n)) * 0.37 - 1.1).reshape(shape).requires_grad_(rg)


# -- torch.random, torch.version -----------------------------------------------------------------
def test_random_module() -> None:
    def snippet(rec: Recorder) -> None:
        torch = rec.torch
        rec.note("names", sorted(n for n in ("manual_seed", "seed", "initial_seed",
                                             "get_rng_state", "set_rng_state", "fork_rng",
                                             "default_generator", "Generator")
                                 if hasattr(torch.random, n)))
        torch.random.manual_seed(3)
        rec.note("initial", torch.random.initial_seed())
        with torch.random.fork_rng():
            rec.note("inside", torch.rand(3))
        rec.note("after fork", torch.rand(3))
        with torch.random.fork_rng(enabled=False):
            torch.rand(2)
        rec.note("not forked", torch.rand(1))
        state = torch.random.get_rng_state()
        a = torch.randn(2)
        torch.random.set_rng_state(state)
        rec.note("replayed", bool(torch.equal(a, torch.randn(2))))
    differential(snippet)


def test_version() -> None:
    torch = real_torch()
    assert ours.version.cuda is torch.version.cuda is None
    assert ours.version.hip is None and ours.version.debug is False
    assert isinstance(ours.version.git_version, str)
    assert ours.version.__version__ == ours.__version__
    v = ours.__version__
    assert isinstance(v, str) and v.startswith("2.13.0")
    # NB: compared as versions, where a plain string comparison gets "2.13" < "2.9"
    for other in ("2.9", "2.13", "2.13.0", "2.14", "1.13.1", "3.0", (2, 9), (2, 14), [2, 13, 1],
                  "2.13.0rc1", "2.13.1.dev20250101"):
        for op in ("__lt__", "__le__", "__gt__", "__ge__"):
            expected = getattr(torch.torch_version.TorchVersion("2.13.0+numpy"), op)(other)
            assert getattr(v, op)(other) == expected, (op, other)
    assert v == "2.13.0+numpy" and v != "2.13.0"


# -- memory and storage --------------------------------------------------------------------------
def test_memory_methods() -> None:
    def snippet(rec: Recorder) -> None:
        torch = rec.torch
        x = _x(torch, 2, 3)
        rec.note("get_device", (torch.get_device(x), x.get_device()))
        rec.note("pinned", x.is_pinned())
        rec.attempt("pin_memory", x.pin_memory)
        t = torch.ones(3)
        rec.note("shared before", t.is_shared())
        rec.note("share_memory_", (t.share_memory_() is t, t.is_shared(), t._version))
        rec.note("set_flush_denormal is a bool", type(torch.set_flush_denormal(False)).__name__)
        rec.attempt("storage_type", lambda: [torch.ones(2, dtype=d).storage_type().__name__
                                              for d in (torch.float32, torch.float64,
                                                        torch.int64, torch.int32, torch.uint8,
                                                        torch.bool, torch.float16)],
                    record_warnings=False)
        rec.note("isinstance storage", isinstance(torch.ones(2).storage(), torch.FloatStorage))
        rec.note("not a LongStorage", isinstance(torch.ones(2).storage(), torch.LongStorage))
    differential(snippet)


def test_nonzero_static() -> None:
    def snippet(rec: Recorder) -> None:
        torch = rec.torch
        m = torch.tensor([[0.0, 1.5], [2.0, 0.0], [0.0, 3.0]], requires_grad=True)
        for size in (0, 2, 3, 5):
            rec.note(f"size {size}", torch.nonzero_static(m, size=size))
        rec.note("fill", m.nonzero_static(size=4, fill_value=7))
        rec.note("0-d", torch.nonzero_static(torch.tensor(3.0), size=2))
        rec.note("bool", torch.nonzero_static(torch.tensor([True, False, True]), size=1))
        rec.attempt("negative", lambda: torch.nonzero_static(m, size=-1))
    differential(snippet)


def test_as_subclass_and_resize_as() -> None:
    def snippet(rec: Recorder) -> None:
        torch = rec.torch

        class Sub(torch.Tensor):
            pass

        a = _x(torch, 4)
        b = a.as_subclass(Sub)
        rec.note("subclass", (type(b).__name__, isinstance(b, torch.Tensor), b.requires_grad,
                              b._version, b.data_ptr() == a.data_ptr()))
        rec.graph("as_subclass", b=b)
        made: list[Any] = []
        rec.attempt("resize_as warns", lambda: made.append(a.resize_as(torch.ones(2, 2))))
        r = made[0]
        rec.graph("resize_as", r=r)
        r.sum().backward()
        rec.grad("grad", a=a)
        rec.attempt("resize_as numel", lambda: a.resize_as(torch.ones(3)))
        rec.attempt("resize", lambda: a.resize(2, 2).shape)
        rec.attempt("resize numel", lambda: a.resize(3, 3))
    differential(snippet)


def test_set_() -> None:
    def snippet(rec: Recorder) -> None:
        torch = rec.torch
        p = torch.zeros(2)
        q = torch.arange(4.0)
        rec.note("set_", (p.set_(q) is p, p, p._version, q._version, p.is_set_to(q),
                          p.data_ptr() == q.data_ptr()))
        q.add_(1)
        rec.note("shares memory", (p, p._version, q._version))
        p.set_()
        rec.note("emptied", (p, list(p.shape), p._version))
        p.set_(q.untyped_storage(), 1, (2,), (1,))
        rec.note("from a storage", (p, p._version))
        p.set_(q.untyped_storage(), 0, (2, 2), (1, 2))
        rec.note("strided", p)
        w = torch.zeros(2)
        w.set_(q)
        w.add_(1)
        w[0] = 9
        rec.note("writes through", (q, w._version, q._version))
        rec.attempt("dtype", lambda: torch.zeros(2).set_(torch.zeros(2, dtype=torch.int64)))
        rec.attempt("leaf", lambda: torch.zeros(2, requires_grad=True).set_(q))
    differential(snippet)


def test_frombuffer() -> None:
    def snippet(rec: Recorder) -> None:
        torch = rec.torch
        import array
        buf = bytearray(8)
        t = torch.frombuffer(buf, dtype=torch.float32)
        t[0] = 1.0
        rec.note("writes through", (list(buf), t))
        rec.note("int16", torch.frombuffer(buf, dtype=torch.int16, count=2, offset=2))
        rec.note("array", torch.frombuffer(array.array("i", [1, 2, 3]), dtype=torch.int32))
        rec.note("requires_grad", torch.frombuffer(bytearray(8), dtype=torch.float32,
                                                   requires_grad=True).requires_grad)
        for kw in ({"count": 0}, {"offset": 8}, {"offset": -1}, {"count": 5},
                   {"dtype": torch.int64, "offset": 1}):
            kw.setdefault("dtype", torch.float32)
            rec.attempt(f"error {sorted(kw)}", lambda kw=kw: torch.frombuffer(buf, **kw))
        rec.attempt("empty", lambda: torch.frombuffer(bytearray(0), dtype=torch.float32))
        rec.attempt("ragged", lambda: torch.frombuffer(bytearray(7), dtype=torch.float32))
    differential(snippet)


# -- conjugation and the complex views -----------------------------------------------------------
def test_conj_identities() -> None:
    def snippet(rec: Recorder) -> None:
        torch = rec.torch
        x = _x(torch, 2, 3)
        for name in ("conj", "conj_physical", "resolve_conj", "resolve_neg"):
            rec.note(f"{name}()", (getattr(x, name)() is x, getattr(torch, name)(x) is x))
        i = torch.arange(3)
        rec.note("int", (i.conj() is i, torch.conj_physical(i) is i, i.real is i))
        rec.note("real", (x.real is x, torch.real(x) is x, x.real._version))
        rec.note("flags", (x.is_conj(), x.is_neg(), x.conj().is_conj()))
        rec.attempt("imag", lambda: x.imag)
        rec.attempt("torch.imag", lambda: torch.imag(x))
        w = x.clone()
        rec.note("conj_physical_", (w.conj_physical_() is w, w._version))
        rec.graph("conj_physical_ graph", w=w)
        (w * 2).sum().backward()
        rec.grad("conj_physical_ grad", x=x)
        rec.attempt("leaf", x.conj_physical_)
        with torch.no_grad():
            y = x.detach()
            v = y._version
            torch.conj_physical_(y)
            rec.note("no_grad version", y._version - v)
    differential(snippet)


def test_adjoint_and_matrix_views() -> None:
    def snippet(rec: Recorder) -> None:
        torch = rec.torch
        a = _x(torch, 2, 3)
        b = _x(torch, 2, 3, 4)
        for name, t in (("adjoint 2-D", a.adjoint()), ("adjoint 3-D", b.adjoint()),
                        ("torch.adjoint", torch.adjoint(b)), ("H", a.H), ("mH", b.mH),
                        ("mT", b.mT)):
            rec.note(name, (t, t._is_view(), t._base is (a if t.dim() == 2 else b)))
            rec.graph(f"{name} graph", t=t)
        s = _x(torch, 1).sum()
        for name in ("H", "mH", "mT"):
            rec.attempt(f"0-d {name}", lambda name=name: getattr(s, name) is s)
        rec.attempt("0-d adjoint", lambda: s.adjoint() is s)
        v = _x(torch, 3)
        for name in ("H", "mH", "mT"):
            rec.attempt(f"1-D {name}", lambda name=name: getattr(v, name))
        rec.attempt("1-D adjoint", v.adjoint)
        rec.attempt("3-D H", lambda: b.H)
        (a.H * 2).sum().backward()
        rec.grad("grad", a=a)
        with torch.no_grad():
            a.adjoint().mul_(2)
        rec.note("version through the view", (a._version, a))
    differential(snippet)


# -- the profiler --------------------------------------------------------------------------------
def test_record_function_makes_no_node() -> None:
    def snippet(rec: Recorder) -> None:
        torch = rec.torch
        x = _x(torch, 3)
        with torch.profiler.record_function("block") as r:
            y = x * 2
        rec.note("entered", type(r).__name__)
        rec.graph("inside", y=y)

        @torch.autograd.profiler.record_function("deco")
        def f(a: Any) -> Any:
            return a.sin()
        z = f(x)
        rec.graph("decorated", z=z)
        rec.note("same class", torch.autograd.profiler.record_function
                 is torch.profiler.record_function)
        rec.note("activities", [(k, int(v.value), repr(v), str(v)) for k, v in
                                torch.profiler.ProfilerActivity.__members__.items()])
        rec.note("actions", [(k, repr(v)) for k, v in
                             torch.profiler.ProfilerAction.__members__.items()])
    differential(snippet)


def test_schedule() -> None:
    torch = real_torch()
    for kw in ({"wait": 1, "warmup": 1, "active": 2, "repeat": 1},
               {"wait": 0, "warmup": 1, "active": 3},
               {"wait": 2, "warmup": 1, "active": 1, "repeat": 2, "skip_first": 3},
               {"wait": 2, "warmup": 1, "active": 2, "skip_first": 1, "skip_first_wait": 1}):
        theirs, mine = torch.profiler.schedule(**kw), ours.profiler.schedule(**kw)
        assert [mine(i).name for i in range(14)] == [theirs(i).name for i in range(14)], kw
    for kw in ({"wait": -1, "warmup": 1, "active": 1}, {"wait": 1, "warmup": 1, "active": 0}):
        with pytest.raises(AssertionError) as theirs_error:
            torch.profiler.schedule(**kw)
        with pytest.raises(AssertionError) as mine_error:
            ours.profiler.schedule(**kw)
        assert str(mine_error.value) == str(theirs_error.value)


def test_profile_table(tmp_path: Any) -> None:
    P = ours.profiler
    x = ours.randn(8, 8, requires_grad=True)
    with P.profile(activities=[P.ProfilerActivity.CPU], record_shapes=True) as prof:
        with P.record_function("model"):
            y = (x @ x).relu().sum()
        y.backward()
    averages = prof.key_averages()
    keys = {e.key: e for e in averages}
    assert {"model", "aten::mm", "aten::relu", "aten::sum", "MmBackward0", "ReluBackward0",
            "SumBackward0"} <= set(keys)
    model = keys["model"]
    # NB: a range's time holds its ops' times, its self time excludes them
    inside = sum(keys[k].cpu_time_total for k in ("aten::mm", "aten::relu", "aten::sum"))
    assert model.cpu_time_total >= inside and model.count == 1
    assert abs(model.self_cpu_time_total - (model.cpu_time_total - inside)) < 1e-6
    table = averages.table(sort_by="cpu_time_total", row_limit=3)
    lines = table.splitlines()
    assert lines[1].split() == ["Name", "Self", "CPU", "%", "Self", "CPU", "CPU", "total", "%",
                                "CPU", "total", "CPU", "time", "avg", "#", "of", "Calls"]
    assert lines[3].split()[0] == "model" and len(lines) == 3 + 3 + 2
    assert lines[-1].startswith("Self CPU time total: ")
    shaped = prof.key_averages(group_by_input_shape=True)
    assert [e.input_shapes for e in shaped if e.key == "aten::mm"] == [[[8, 8], [8, 8]]]
    assert "Input Shapes" in shaped.table()
    with pytest.raises(AttributeError):
        averages.table(sort_by="bogus")
    path = tmp_path / "trace.json"
    prof.export_chrome_trace(str(path))
    assert {e["name"] for e in json.loads(path.read_text())["traceEvents"]} >= {"model",
                                                                              "aten::mm"}
    # the ops run as ever after the profile: nothing is timed
    assert (x * 2).grad_fn.name() == "MulBackward0"
    assert ours.profiler.profile().key_averages().table() == ""


def test_profile_schedule_and_legacy() -> None:
    P = ours.profiler
    saved: list[int] = []
    x = ours.ones(3, requires_grad=True)
    with P.profile(schedule=P.schedule(wait=1, warmup=1, active=2, repeat=1),
                   on_trace_ready=lambda p: saved.append(
                       sum(e.count for e in p.key_averages() if e.key == "aten::mul"))) as prof:
        for _ in range(6):
            (x * 2).sum()
            prof.step()
    assert saved == [2]             # the two active steps, not the wait or warm-up ones
    with ours.autograd.profiler.profile() as legacy:
        ours.ones(2, requires_grad=True).exp()
    assert [e.key for e in legacy.key_averages()] == ["aten::exp"]


def test_profiler_imports() -> None:
    real_torch()
    with native_torch():
        import torch.autograd.profiler as ap
        import torch.profiler as tp
        import torch.random as tr
        import torch.version as tv
        assert tp.record_function is ap.record_function and tr.fork_rng and tv.cuda is None


# -- nn.utils ------------------------------------------------------------------------------------
def _fill_bn(torch: Any, bn: Any, k: float) -> None:
    n = bn.num_features
    with torch.no_grad():
        bn.running_mean.copy_(torch.tensor([0.1 * k * (i - 1) for i in range(n)]))
        bn.running_var.copy_(torch.tensor([0.5 + 0.25 * i for i in range(n)]))
        if bn.weight is not None:
            bn.weight.copy_(torch.tensor([1.0 - 0.1 * i for i in range(n)]))
            bn.bias.copy_(torch.tensor([0.05 * i * k for i in range(n)]))


def test_fusion() -> None:
    def snippet(rec: Recorder) -> None:
        torch = rec.torch
        nn = torch.nn
        torch.manual_seed(0)
        conv, bn = nn.Conv2d(2, 3, 2), nn.BatchNorm2d(3)
        _fill_bn(torch, bn, 1.0)
        rec.attempt("training", lambda: nn.utils.fuse_conv_bn_eval(conv, bn))
        conv.eval()
        bn.eval()
        fused = nn.utils.fuse_conv_bn_eval(conv, bn)
        rec.note("conv", (fused.weight, fused.bias, type(fused.weight).__name__,
                          fused.weight.requires_grad, fused.bias.requires_grad,
                          fused.weight.grad_fn is None, fused is not conv))
        x = torch.arange(2 * 2 * 3 * 3.0).reshape(2, 2, 3, 3) * 0.1
        rec.note("same output", (fused(x) - bn(conv(x))).abs().max().item() < 1e-5)
        nobias = nn.Conv2d(2, 3, 2, bias=False).eval()
        w, b = nn.utils.fusion.fuse_conv_bn_weights(nobias.weight, None, bn.running_mean,
                                                    bn.running_var, bn.eps, None, None)
        rec.note("no bias, no affine", (w, b, b.requires_grad))
        tconv = nn.ConvTranspose2d(2, 3, 2)
        w, b = nn.utils.fuse_conv_bn_weights(tconv.weight, tconv.bias, bn.running_mean,
                                             bn.running_var, 1e-3, bn.weight, bn.bias,
                                             transpose=True)
        rec.note("transposed", (w, b))
        lin, bn1 = nn.Linear(3, 3, bias=False).eval(), nn.BatchNorm1d(3).eval()
        _fill_bn(torch, bn1, 2.0)
        fl = nn.utils.fuse_linear_bn_eval(lin, bn1)
        rec.note("linear", (fl.weight, fl.bias, fl.bias.requires_grad))
        rec.attempt("linear features", lambda: nn.utils.fuse_linear_bn_eval(
            nn.Linear(3, 4).eval(), bn1))
    differential(snippet)


def test_skip_init_and_submodules() -> None:
    def snippet(rec: Recorder) -> None:
        torch = rec.torch
        nn = torch.nn
        torch.manual_seed(1)
        m = nn.utils.skip_init(nn.Linear, 3, 2, bias=False)
        rec.note("draws untouched", torch.rand(2))
        rec.note("skip_init", (type(m).__name__, list(m.weight.shape), m.bias))
        rec.attempt("not a module", lambda: nn.utils.skip_init(int))
        rec.note("submodules", [callable(getattr(getattr(nn.utils, mod), fn)) for mod, fn in (
            ("clip_grad", "clip_grad_norm_"), ("convert_parameters", "parameters_to_vector"),
            ("fusion", "fuse_conv_bn_eval"), ("init", "skip_init"),
            ("memory_format", "convert_conv2d_weight_memory_format"))])
        seq = nn.Sequential(nn.Conv2d(1, 2, 2), nn.ReLU())
        w = seq[0].weight
        before = w.detach().clone()
        out = nn.utils.convert_conv2d_weight_memory_format(seq, torch.channels_last)
        rec.note("memory format", (out is seq, seq[0].weight is w, w._version,
                                   bool(torch.equal(w.detach(), before))))
    differential(snippet)


# -- histogramdd ---------------------------------------------------------------------------------
def test_histogramdd() -> None:
    def snippet(rec: Recorder) -> None:
        torch = rec.torch
        torch.manual_seed(0)
        x = torch.randn(40, 3)
        w = torch.rand(40)
        for label, kw in (("bins list", {"bins": [3, 4, 2]}),
                          ("density", {"bins": 3, "density": True}),
                          ("range and weight", {"bins": [2, 3, 2], "weight": w,
                                                "range": [-1.0, 1.0, -2.0, 2.0, 0.0, 0.5]}),
                          ("weighted density", {"bins": 2, "weight": w, "density": True})):
            r = torch.histogramdd(x, **kw)
            rec.note(label, (r.hist, list(r.bin_edges), type(r).__name__))
        r = torch.histogramdd(x[:, :2], bins=[torch.tensor([-3.0, 0.0, 0.5, 3.0]),
                                              torch.tensor([-1.0, 1.0])])
        rec.note("tensor bins", (r.hist, list(r.bin_edges)))
        rec.note("float64 batch", torch.histogramdd(x.double().reshape(4, 10, 3), bins=2,
                                                    density=True).hist)
        rec.note("one column", list(torch.histogramdd(torch.ones(3, 1), bins=2)))
        rec.note("empty", list(torch.histogramdd(torch.zeros(0, 2), bins=2)))
        rec.note("repr", repr(torch.histogramdd(torch.tensor([[0.0, 1.0], [1.0, 0.0]]),
                                                bins=2)))
        for label, fn in (
                ("bins size", lambda: torch.histogramdd(x, bins=[2, 2])),
                ("bins zero", lambda: torch.histogramdd(x, bins=[2, 0, 2])),
                ("range size", lambda: torch.histogramdd(x, bins=2, range=[0.0, 1.0])),
                ("range order", lambda: torch.histogramdd(x[:, :1], bins=2, range=[1.0, 0.0])),
                ("not finite", lambda: torch.histogramdd(x[:, :1], bins=2,
                                                         range=[0.0, float("inf")])),
                ("nan", lambda: torch.histogramdd(torch.tensor([[float("nan"), 1.0]]), bins=2)),
                ("weight", lambda: torch.histogramdd(x, bins=2, weight=torch.ones(3))),
                ("bins tensor 2-D", lambda: torch.histogramdd(x[:, :1], bins=[torch.ones(1, 2)])),
                ("long", lambda: torch.histogramdd(x.long(), bins=2)),
                ("1-D", lambda: torch.histogramdd(torch.ones(3), bins=2))):
            rec.attempt(label, fn)
        xg = x.clone().requires_grad_()
        wg = w.clone().requires_grad_()
        for label, (inp, weight) in (("input", (xg, None)), ("weight", (x, wg)),
                                     ("both", (xg, wg))):
            r = torch.histogramdd(inp, bins=2, weight=weight)
            rec.graph(f"{label} graph", hist=r.hist, edge=r.bin_edges[1])
            rec.note(f"{label} one edges node", r.bin_edges[0].grad_fn is r.bin_edges[2].grad_fn)
            rec.attempt(f"{label} backward", r.hist.sum().backward)
            rec.attempt(f"{label} edges backward", r.bin_edges[0].sum().backward)
    differential(snippet)


# -- svd_lowrank, pca_lowrank --------------------------------------------------------------------
def test_lowrank() -> None:
    def snippet(rec: Recorder) -> None:
        torch = rec.torch
        torch.manual_seed(0)
        A = torch.randn(8, 5, requires_grad=True)
        U, S, V = torch.svd_lowrank(A, q=3)
        # NB: singular vectors take numpy's LAPACK signs: only sign-free values are compared
        rec.note("S", S)
        rec.note("product", (U * S).matmul(V.mT))
        rec.note("nodes", (U.grad_fn.name(), S.grad_fn.name(), V.grad_fn.name()))
        (S.sum() + (U * S).matmul(V.mT).square().sum()).backward()
        rec.grad("grad", A=A)
        U, S, V = torch.pca_lowrank(A.detach().mT, q=2, niter=1)
        rec.note("pca wide", (S, (U * S).matmul(V.mT)))
        U, S, V = torch.svd_lowrank(A.detach(), q=2, M=A.detach().mean(0, keepdim=True))
        rec.note("with M", (S, (U * S).matmul(V.mT)))
        U, S, V = torch.pca_lowrank(torch.randn(2, 6, 4, dtype=torch.float64), center=False)
        rec.note("batch", (S, list(U.shape), list(V.shape)))
        rec.note("draws after", torch.rand(2))
        for kw in ({"q": 9}, {"q": -1}, {"niter": -1}):
            rec.attempt(f"error {kw}", lambda kw=kw: torch.pca_lowrank(A, **kw))
    differential(snippet)


# -- uint16, uint32, uint64 ----------------------------------------------------------------------
@pytest.mark.parametrize("name", ["uint16", "uint32", "uint64"])
def test_shell_unsigned_dtypes(name: str) -> None:
    def snippet(rec: Recorder) -> None:
        torch = rec.torch
        import numpy as np
        d = getattr(torch, name)
        t = torch.tensor([1, 2, 3], dtype=d)
        rec.note("dtype", (repr(d), d.is_signed, d.is_floating_point, d.itemsize, t.type(),
                           t.element_size(), repr(t), str(torch.iinfo(d).max)))
        for label, fn in (("mul", lambda: t * 2), ("sum", lambda: t.sum()),
                          ("to float", lambda: t.float()),
                          ("from float", lambda: torch.ones(2).to(d)),
                          ("wraps", lambda: torch.tensor([70000, -1]).to(d)),
                          ("with int64", lambda: t + torch.ones(1, dtype=torch.int64)),
                          ("with bool", lambda: t * torch.tensor([True])),
                          ("with uint8", lambda: t * torch.ones(1, dtype=torch.uint8)),
                          ("with float", lambda: t * torch.ones(1)),
                          ("div", lambda: t / 2), ("index", lambda: t[1]),
                          ("cat", lambda: torch.cat([t, t])), ("item", lambda: t[0].item()),
                          ("and", lambda: t & t), ("zeros", lambda: torch.zeros(2, dtype=d)),
                          ("full", lambda: torch.full((2,), 7, dtype=d)),
                          ("requires grad", lambda: torch.ones(2, dtype=d, requires_grad=True)),
                          ("numpy", lambda: str(t.numpy().dtype)),
                          ("from_numpy", lambda: torch.from_numpy(np.array([5], dtype=name))),
                          ("promote float", lambda: torch.promote_types(d, torch.float64)),
                          ("promote int", lambda: torch.promote_types(d, torch.int8))):
            rec.attempt(label, fn)
    differential(snippet)


# -- devices this build lacks --------------------------------------------------------------------
def test_accelerator_and_device_modules() -> None:
    def snippet(rec: Recorder) -> None:
        torch = rec.torch
        a = torch.accelerator
        rec.note("accelerator", (a.is_available(), a.current_accelerator(), a.device_count()))
        for name in ("current_device_index", "synchronize", "current_stream", "empty_cache",
                     "memory_allocated"):
            rec.attempt(name, getattr(a, name))
        rec.attempt("set_device_index", lambda: a.set_device_index(0))

        def block(index: Any) -> None:
            with a.device_index(index):
                pass
        rec.attempt("device_index None", lambda: block(None))
        rec.attempt("device_index 0", lambda: block(0))
        rec.note("others", (torch.xpu.is_available(), torch.mps.is_available(),
                            torch.xpu.device_count(), torch.mps.device_count()))
        rec.note("errors", (issubclass(torch.OutOfMemoryError, RuntimeError),
                            torch.cuda.OutOfMemoryError is torch.OutOfMemoryError,
                            issubclass(torch.AcceleratorError, RuntimeError)))
        rec.note("device module", (torch.get_device_module() is torch.cpu,
                                   torch.get_device_module("cuda") is torch.cuda))
        rec.attempt("unknown device module", lambda: torch.get_device_module("foo"))
        rec.note("not initialised", torch.distributed.is_initialized())
    differential(snippet)
    # NB: PyTorch's Linux build has the distributed package; the engine has no backend for it
    assert ours.distributed.is_available() is False
    with pytest.raises(ValueError, match="Default process group has not been initialized"):
        ours.distributed.get_rank()


# -- smaller names -------------------------------------------------------------------------------
def test_angle_absolute_qr_and_removed() -> None:
    def snippet(rec: Recorder) -> None:
        torch = rec.torch
        x = torch.tensor([[-1.0, 2.0], [0.0, -3.0]], requires_grad=True)
        a = x.angle()
        rec.graph("angle", a=a)
        rec.note("angle of ints and specials", (torch.angle(torch.tensor([-1, 0, 2])),
                                                torch.angle(torch.tensor([-0.0, float("nan")]))))
        g = torch.autograd.grad(torch.angle(x).sum(), x, create_graph=True)[0]
        rec.note("angle grad", (g, g.grad_fn is None))
        rec.graph("absolute", t=x.absolute())
        t = x.detach().clone()
        rec.note("absolute_", (t.absolute_() is t, t, t._version))
        rec.attempt("qr warns", lambda: torch.qr(x))
        q = x.qr()
        rec.graph("qr", Q=q.Q, R=q.R)
        rec.note("qr complete", (type(q).__name__, list(torch.qr(x[:, :1], some=False).R.shape)))
        for name in ("solve", "eig", "symeig", "matrix_rank"):
            rec.attempt(f"torch.{name}", lambda name=name: getattr(torch, name)(x))
        for name in ("solve", "eig", "symeig"):
            rec.attempt(f"Tensor.{name}", lambda name=name: getattr(x, name)())
    differential(snippet)


def test_layout_devices_and_build() -> None:
    def snippet(rec: Recorder) -> None:
        torch = rec.torch
        x = torch.ones(2, 3, 4)
        rec.note("dim_order", (x.dim_order(), x.permute(2, 0, 1).dim_order(),
                               x.transpose(0, 1).dim_order(), torch.ones(2, 1, 3).dim_order()))
        rec.note("devices", [getattr(x, n) for n in (
            "is_xpu", "is_mps", "is_ipu", "is_xla", "is_mtia", "is_maia", "is_vulkan",
            "is_mkldnn", "is_nested", "is_sparse_csr")] + [x.is_distributed(),
                                                         torch.is_distributed(x)])
        rec.note("const_data_ptr", x.const_data_ptr() == x.data_ptr())
        e = torch.empty_permuted((2, 3, 4), (0, 2, 1))
        rec.note("empty_permuted", (list(e.shape), e.stride(), e.dim_order()))
        rec.note("flags", (torch.has_lapack, torch.has_spectral, torch.compiled_with_cxx11_abi(),
                           torch.legacy_contiguous_format is torch.contiguous_format,
                           torch.init_num_threads()))
        modes = []
        for m in ("warn", "error", 0, 1, "default"):
            torch.set_deterministic_debug_mode(m)
            modes.append((torch.get_deterministic_debug_mode(),
                          torch.are_deterministic_algorithms_enabled(),
                          torch.is_deterministic_algorithms_warn_only_enabled()))
        rec.note("debug modes", modes)
        for bad in ("x", 3, 1.5):
            rec.attempt(f"bad mode {bad!r}",
                        lambda bad=bad: torch.set_deterministic_debug_mode(bad))
        c = torch.compiler
        rec.note("compiler", (c.is_compiling(), c.is_dynamo_compiling(), c.is_exporting(),
                              c.disable(lambda: 1)(), c.disable(recursive=False)(lambda: 2)()))
        y = torch.ones(2)
        rec.note("resize_as_", (torch.resize_as_(y, torch.ones(3)) is y, list(y.shape)))
        z = torch.arange(4.0)
        rec.note("as_strided_", (torch.as_strided_(z, (2,), (2,)) is z, z))
    differential(snippet)


def test_embedding_renorm_and_cholesky_inverse() -> None:
    def snippet(rec: Recorder) -> None:
        torch = rec.torch
        w = (torch.arange(12.0).reshape(4, 3) * 0.3 - 1).requires_grad_()
        with torch.no_grad():
            r = torch.embedding_renorm_(w, torch.tensor([0, 2, 2]), 1.0, 2.0)
        rec.note("renormed", (r is w, w, w._version))
        rec.attempt("leaf", lambda: torch.embedding_renorm_(w, torch.tensor([1]), 1.0, 2.0))
        a = torch.tensor([[4.0, 1.0, 0.5], [1.0, 3.0, 0.2], [0.5, 0.2, 2.0]])
        L = torch.linalg.cholesky(a).requires_grad_()
        out = L.cholesky_inverse()
        rec.graph("cholesky_inverse", out=out)
        rec.note("upper", L.mT.cholesky_inverse(upper=True))
    differential(snippet)


def test_module_extras() -> None:
    def snippet(rec: Recorder) -> None:
        torch = rec.torch
        nn = torch.nn
        m = nn.Sequential(nn.Linear(2, 3), nn.Sequential(nn.BatchNorm1d(3)))
        rec.note("get_submodule", (repr(m.get_submodule("1.0")), m.get_submodule("") is m))
        for t in ("2", "1.x", "0.weight"):
            rec.attempt(f"get_submodule {t}", lambda t=t: m.get_submodule(t))
        rec.note("get_parameter", (m.get_parameter("0.bias") is m[0].bias,
                                   m.get_buffer("1.0.running_mean") is m[1][0].running_mean))
        for t in ("0.nope", "1.0.running_mean", "x.y"):
            rec.attempt(f"get_parameter {t}", lambda t=t: m.get_parameter(t))
        for t in ("0.weight", "1.0.nope"):
            rec.attempt(f"get_buffer {t}", lambda t=t: m.get_buffer(t))
        m.set_submodule("1.0", nn.ReLU())
        rec.note("set_submodule", repr(m))
        rec.attempt("set_submodule missing", lambda: m.set_submodule("5.0", nn.ReLU()))
        rec.attempt("set_submodule not a module", lambda: m.set_submodule("0", 3))
        w = m[0].weight
        rec.note("half", (m.half() is m, m[0].weight is w, str(w.dtype), w._version))
        b = nn.BatchNorm1d(2)
        rec.note("type", (b.type(torch.float64) is b, str(b.weight.dtype),
                          str(b.num_batches_tracked.dtype), str(b.running_mean.dtype)))
        rec.note("share_memory", (m.share_memory() is m, m[0].weight.is_shared()))
        rec.note("flags", (nn.Module.call_super_init, nn.Module.dump_patches))
        rec.attempt("get_extra_state", m.get_extra_state)
        lin = nn.Linear(2, 2)
        rec.note("to_empty", (lin.to_empty(device="cpu") is lin, list(lin.weight.shape),
                              type(lin.weight).__name__))
    differential(snippet)
    # NB: PyTorch's compiles the forward in place (a slow import to test against)
    assert ours.nn.Linear(2, 2).compile() is None


def test_stack_dataset() -> None:
    def snippet(rec: Recorder) -> None:
        torch = rec.torch
        data = torch.utils.data
        x = torch.arange(6.0).reshape(3, 2)
        y = torch.tensor([0, 1, 0])
        both = data.StackDataset(x, y)
        rec.note("tuple", (len(both), both[1]))
        named = data.StackDataset(inp=x, label=y)
        rec.note("dict", named[2])
        rec.note("batches", [b for b in data.DataLoader(named, batch_size=2)])
        rec.note("tuple batches", [list(b) for b in data.DataLoader(both, batch_size=2)])
        rec.note("getitems", both.__getitems__([0, 2]))
        rec.attempt("both kinds", lambda: data.StackDataset(x, label=y))
        rec.attempt("none", lambda: data.StackDataset())
        rec.attempt("sizes", lambda: data.StackDataset(x, torch.ones(2)))
        pinned = data.DataLoader(both, batch_size=2, pin_memory=True)
        rec.attempt("pin_memory warns each pass", lambda: ([list(b) for b in pinned],
                                                           [list(b) for b in pinned]))
        rec.note("autograd names", (torch.autograd.ProfilerActivity.CPU.name,
                                    torch.autograd.kineto_available()))
    differential(snippet)


def test_distributed_sampler() -> None:
    def snippet(rec: Recorder) -> None:
        torch = rec.torch
        data = torch.utils.data
        ds = data.TensorDataset(torch.arange(11.0))
        for kw in ({"num_replicas": 3, "rank": 0}, {"num_replicas": 3, "rank": 2},
                   {"num_replicas": 3, "rank": 1, "drop_last": True},
                   {"num_replicas": 4, "rank": 3, "shuffle": False},
                   {"num_replicas": 2, "rank": 1, "seed": 7}):
            s = data.DistributedSampler(ds, **kw)
            epochs = []
            for epoch in range(2):
                s.set_epoch(epoch)
                epochs.append(list(s))
            rec.note(f"sampler {sorted(kw.items())}", (len(s), epochs))
        s = data.DistributedSampler(ds, num_replicas=2, rank=0)
        rec.note("loader", [b[0] for b in data.DataLoader(ds, batch_size=4, sampler=s)])
        rec.attempt("rank", lambda: data.DistributedSampler(ds, num_replicas=2, rank=2))
        rec.note("many replicas", list(data.DistributedSampler(range(2), num_replicas=5,
                                                               rank=4, shuffle=False)))
    differential(snippet)
    with pytest.raises(RuntimeError, match="Requires distributed package to be available"):
        ours.utils.data.DistributedSampler(range(3))


def test_cuda_on_a_cpu_build() -> None:
    def snippet(rec: Recorder) -> None:
        torch = rec.torch
        c = torch.cuda
        for name in ("seed", "seed_all", "get_rng_state_all", "get_arch_list", "initial_seed",
                     "get_rng_state", "get_device_capability", "mem_get_info", "ipc_collect",
                     "current_stream", "default_stream"):
            rec.attempt(name, getattr(c, name))
        rec.attempt("set_rng_state", lambda: c.set_rng_state(torch.zeros(2, dtype=torch.uint8)))

        def enter() -> None:
            with torch.cuda.device(0):
                pass
        rec.attempt("device", enter)
    differential(snippet)


def test_forward_ad_through_the_new_names() -> None:
    def snippet(rec: Recorder) -> None:
        torch = rec.torch
        fwAD = torch.autograd.forward_ad
        x = torch.tensor([-1.0, 2.0])
        t = torch.tensor([1.0, 0.5])
        for name, f in (("angle", lambda d: d.angle()),
                        ("conj_physical_", lambda d: d.clone().conj_physical_()),
                        ("adjoint", lambda d: d.reshape(1, 2).adjoint()),
                        ("H", lambda d: d.reshape(1, 2).H), ("conj", lambda d: d.conj()),
                        ("real", lambda d: d.real),
                        ("histogramdd", lambda d: torch.histogramdd(d.reshape(2, 1), bins=2).hist),
                        ("as_subclass", lambda d: d.as_subclass(torch.Tensor))):
            with fwAD.dual_level():
                d = fwAD.make_dual(x, t)
                rec.attempt(name, lambda f=f, d=d: fwAD.unpack_dual(f(d)).tangent)
    differential(snippet)


# -- torch.signal.windows ------------------------------------------------------------------------
def test_signal_windows() -> None:
    def snippet(rec: Recorder) -> None:
        torch = rec.torch
        w = torch.signal.windows
        for name, kw in (("bartlett", {}), ("blackman", {}), ("cosine", {}),
                         ("exponential", {"tau": 2.5}), ("gaussian", {"std": 1.7}),
                         ("general_cosine", {"a": [0.5, 0.3, 0.2]}),
                         ("general_hamming", {"alpha": 0.6}), ("hamming", {}), ("hann", {}),
                         ("kaiser", {"beta": 4.0}), ("nuttall", {})):
            fn = getattr(w, name)
            for M in (0, 1, 2, 7, 10):
                for sym in (True, False):
                    for dtype in (torch.float32, torch.float64):
                        rec.attempt(f"{name} {M} {sym} {dtype}",
                                    lambda fn=fn, M=M, sym=sym, dtype=dtype, kw=kw: fn(
                                        M, sym=sym, dtype=dtype, **kw))
            out = fn(6, requires_grad=True, **kw)
            rec.graph(f"{name} graph", out=out)
        rec.note("exponential centre", w.exponential(7, sym=False, center=2.0))
        for label, fn in (("negative M", lambda: w.hann(-1)),
                          ("int dtype", lambda: w.hann(4, dtype=torch.int64)),
                          ("tau", lambda: w.exponential(4, tau=0)),
                          ("centre", lambda: w.exponential(4, center=1.0)),
                          ("std", lambda: w.gaussian(4, std=-1)),
                          ("beta", lambda: w.kaiser(4, beta=-1)),
                          ("coefficients", lambda: w.general_cosine(4, a=[])),
                          ("not iterable", lambda: w.general_cosine(4, a=3))):
            rec.attempt(label, fn)
    differential(snippet)


def test_linspace_is_pytorchs_to_the_bit() -> None:
    torch = real_torch()
    for start, end, steps in ((-1.0, 1.0, 7), (0.05, 2.9, 10), (-1.2, 3.7, 33), (1e3, -7.5, 101),
                              (0.0, 1.0, 2), (3.0, 3.0, 5)):
        # NB: float32 to the bit; float64 may differ in the last bit where long double's
        # double rounding differs from a fused multiply-add
        theirs = torch.linspace(start, end, steps).tolist()
        assert ours.linspace(start, end, steps).tolist() == theirs, (start, end, steps)
        got = ours.linspace(start, end, steps, dtype=ours.float64).tolist()
        want = torch.linspace(start, end, steps, dtype=torch.float64).tolist()
        assert max(abs(a - b) for a, b in zip(got, want, strict=True)) <= 1e-12 * (
            1 + abs(start) + abs(end))


def test_overrides() -> None:
    def snippet(rec: Recorder) -> None:
        torch = rec.torch
        o = torch.overrides
        x = torch.ones(2)

        class Handled:
            @classmethod
            def __torch_function__(cls, func: Any, types: Any, args: Any = (),
                                   kwargs: Any = None) -> Any:
                return ("handled", func.__name__, len(args))

        h = Handled()
        rec.note("plain tensors", (o.has_torch_function((x,)), o.has_torch_function_unary(x),
                                   o.has_torch_function_variadic(x, x), o.is_tensor_like(x),
                                   o.is_tensor_like(1)))
        rec.note("an override", (o.has_torch_function((x, h)), o.has_torch_function_unary(h),
                                 o.is_tensor_like(h)))
        rec.note("handled", list(o.handle_torch_function(torch.add, (h,), h, 1)))
        rec.note("tensor method", (o.is_tensor_method_or_property(torch.Tensor.add),
                                   o.is_tensor_method_or_property(torch.add)))
    differential(snippet)
