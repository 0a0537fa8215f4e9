"""Utilities an ordinary PyTorch script calls, checked against real PyTorch 2.13: creation
functions (``logspace``, ``tril_indices``, ``vander``, ``poisson``, ...), sets and searches
(``unique``, ``searchsorted``, ``histc``, ...), comparisons in place and predicates, dtype facts
(``finfo``, ``promote_types``, ...), ``set_printoptions``, process settings, ``torch.backends``,
``torch.amp`` and ``torch.testing.assert_close`` (values, dtypes, printing, errors word for
word)."""

from __future__ import annotations

import warnings
from typing import Any

import pytest

import graphviz_autograd.torch as ours

from ._support import Recorder, differential

pytestmark = pytest.mark.torch


def _describe(v: Any) -> Any:
    """A value as the test compares it: a tensor by its repr (values, dtype, grad_fn) and its
    dtype; tuples item by item."""
    if hasattr(v, "grad_fn") and hasattr(v, "dtype"):
        return {"repr": repr(v), "dtype": str(v.dtype), "shape": list(v.shape)}
    if isinstance(v, tuple | list):
        return [_describe(x) for x in v]
    if type(v).__name__ in ("dtype", "DType", "device", "Size", "finfo", "iinfo"):
        return repr(v)
    return v


def _run_all(exprs: list[str], setup: str = "") -> None:
    def snippet(rec: Recorder) -> None:
        ns: dict[str, Any] = {"torch": rec.torch}
        if setup:
            exec(setup, ns)
        for e in exprs:
            rec.attempt(e, lambda e=e: _describe(eval(e, ns)))
    differential(snippet)


def test_creation_functions() -> None:
    _run_all([
        "torch.logspace(0, 2, 5)", "torch.logspace(0, 2, 5, base=2)",
        "torch.logspace(0, 2, 5, dtype=torch.int64)",
        "torch.logspace(-1, 1, 7, dtype=torch.float64)",
        "torch.logspace(0, 1, 1)", "torch.logspace(torch.tensor(0), 2, 3)",
        "torch.logspace(0, 2, -1)", "torch.logspace(0, 3, 4, requires_grad=True)",
        "torch.tril_indices(3, 3)", "torch.tril_indices(3, 3, -1)", "torch.tril_indices(2, 4, 1)",
        "torch.triu_indices(4, 2)", "torch.triu_indices(3, 4, 1)", "torch.tril_indices(0, 3)",
        "torch.tril_indices(3, 3, dtype=torch.int32)",
        "torch.tril_indices(3, 3, dtype=torch.float32)",
        "torch.tril_indices(-1, 3)",
        "torch.scalar_tensor(3)", "torch.scalar_tensor(3, dtype=torch.int64)",
        "torch.scalar_tensor(True)", "torch.scalar_tensor(2.5, requires_grad=True)",
        "torch.asarray([1, 2])", "torch.asarray([1., 2.], dtype=torch.float64)",
        "torch.asarray(3.5)", "torch.asarray([True])",
        "torch.range(0, 1, 0.25)", "torch.range(0, 3, dtype=torch.int64)", "torch.range(1, 4, 2)",
        "torch.range(0, -1)",
        "torch.empty_strided((2, 3), (1, 2)).stride()",
        "torch.empty_strided((2, 3), (3, 1), dtype=torch.float64).dtype",
        "torch.empty_strided((2, 3), (1,))",
        "torch.asarray([torch.tensor(1.), torch.tensor(2.)])",
        "torch.scalar_tensor(1, dtype=torch.int64, requires_grad=True)",
        "torch.vander(torch.tensor([1., 2., 3.]))", "torch.vander(torch.tensor([1., 2.]), 3)",
        "torch.vander(torch.tensor([1, 2], dtype=torch.int32), N=4, increasing=True)",
        "torch.vander(torch.tensor([True, False]))", "torch.vander(torch.tensor([1., 2.]), N=0)",
        "torch.vander(torch.tensor([[1.]]))", "torch.vander(torch.tensor([1, 2]), N=-1)",
        "torch.ones(1).new((2, 3))", "torch.ones(1).new([1, 2]).dtype", "torch.ones(1).new()",
        "torch.ones(1).new(2, 3).shape", "torch.ones(1, dtype=torch.int32).new([1.5])",
        "torch.ones(2).new(torch.tensor([1, 2]))", "torch.ones(2).new(torch.tensor([1., 2.]))",
        "torch.ones(2).new(())", "torch.ones(2).new(2.5)",
    ], setup="import warnings; warnings.simplefilter('ignore')")


def test_range_warns() -> None:
    def snippet(rec: Recorder) -> None:
        rec.attempt("range", lambda: rec.torch.range(0, 2))
    differential(snippet)


def test_random_creation_is_pytorchs() -> None:
    def snippet(rec: Recorder) -> None:
        torch = rec.torch
        torch.manual_seed(0)
        rec.note("randint_like", torch.randint_like(torch.ones(2, 3), 3, 10))
        rec.note("randint_like int32", str(torch.randint_like(
            torch.ones(4, dtype=torch.int32), 5).dtype))
        g = torch.Generator().manual_seed(7)
        rates = torch.tensor([[0.5, 3.0, 12.0], [40.0, 0.0, 1000.0]])
        rec.note("poisson", torch.poisson(rates, generator=g))
        rec.note("poisson, transposed", torch.poisson(rates.t()))
        rec.note("poisson float64", torch.poisson(rates.double() * 0.1))
        rec.note("after", torch.rand(3))
        rec.attempt("poisson of ints", lambda: torch.poisson(torch.tensor([1, 2])))
        rec.attempt("negative rate", lambda: torch.poisson(torch.tensor([-1.0])))
    differential(snippet)


def test_graphs_of_vander_poisson_unique_and_comparisons_in_place() -> None:
    def snippet(rec: Recorder) -> None:
        torch = rec.torch
        x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
        for label, build in (("vander", lambda: torch.vander(x)),
                             ("vander increasing", lambda: torch.vander(x, 4, True)),
                             ("poisson", lambda: torch.poisson(x * 1)),
                             ("unique", lambda: torch.unique(x * 1)),
                             ("unique dim", lambda: torch.unique(x.view(3, 1), dim=1)),
                             ("unique_consecutive", lambda: torch.unique_consecutive(x))):
            out = build()
            rec.graph(label, out=out, x=x)
            x.grad = None
            rec.attempt(f"{label}: backward", lambda out=out: out.sum().backward())
            rec.grad(label, x=x)
        y = torch.tensor([1.0, 5.0, 3.0], requires_grad=True)
        for method in ("eq_", "ne_", "lt_", "le_", "gt_", "ge_", "greater_", "less_equal_",
                       "not_equal_"):
            t = x * 2
            getattr(t, method)(y)
            rec.note(f"{method}: value", (t, t._version))
            rec.graph(method, t=t, x=x, y=y)
            t2 = x * 2
            getattr(t2, method)(4)
            rec.graph(f"{method} scalar", t=t2, x=x)
        rec.attempt("leaf", lambda: x.gt_(1))
        rec.attempt("broadcast", lambda: torch.ones(2).eq_(torch.ones(2, 2)))
        i = torch.tensor([1, 2, 3])
        rec.note("int lt_", (i.lt_(2.5), i._version))
        rec.note("bool lt_", torch.tensor([True, False]).lt_(0.5))
    differential(snippet)


def test_sets_and_searches() -> None:
    _run_all([
        "torch.unique(x)", "torch.unique(x, sorted=False)",
        "torch.unique(x, return_inverse=True)", "torch.unique(x, return_counts=True)",
        "torch.unique(x, return_inverse=True, return_counts=True)",
        "x.unique(return_counts=True)", "torch.unique(m, dim=0, return_inverse=True, "
        "return_counts=True)", "torch.unique(m, dim=1)", "torch.unique(m, return_inverse=True)",
        "torch.unique(torch.tensor([float('nan'), 1., float('nan')]))",
        "torch.unique(torch.tensor([]))", "torch.unique(torch.tensor([True, False, True]))",
        "torch.unique(x, dim=3)",
        "torch.unique_consecutive(torch.tensor([1, 1, 2, 2, 3, 1, 1]), return_inverse=True, "
        "return_counts=True)", "torch.unique_consecutive(m, dim=0)",
        "torch.searchsorted(s, v)", "torch.searchsorted(s, v, right=True)",
        "torch.searchsorted(s, v, side='right')", "torch.searchsorted(s, 5)",
        "torch.searchsorted(s, v, out_int32=True)", "torch.searchsorted(s, torch.tensor([3.5]))",
        "torch.searchsorted(torch.tensor([[1, 3], [2, 4]]), torch.tensor([[2], [3]]))",
        "torch.searchsorted(torch.tensor([3, 1, 2]), torch.tensor([2]), "
        "sorter=torch.tensor([1, 2, 0]))",
        "torch.searchsorted(s, v, side='left', right=True)",
        "torch.searchsorted(torch.tensor([[1, 3], [2, 4]]), torch.tensor([2]))",
        "torch.bucketize(v, s)", "torch.bucketize(v, s, right=True)", "torch.bucketize(3, s)",
        "torch.bucketize(v, torch.tensor([[1, 2]]))",
        "torch.isin(x, torch.tensor([2, 5]))", "torch.isin(x, 2)", "torch.isin(2, x)",
        "torch.isin(x, torch.tensor([2, 5]), invert=True)",
        "torch.unravel_index(torch.tensor([4, 5]), (2, 3))",
        "torch.unravel_index(torch.tensor(9), (2, 3))",
        "torch.unravel_index(torch.tensor([-1]), (2, 3))",
        "torch.unravel_index(torch.tensor([1.]), (2, 3))",
        "torch.histc(torch.tensor([1., 2., 1.]), bins=4, min=0, max=3)",
        "torch.histc(torch.tensor([1., 2., 1., 2.5]), bins=4)",
        "torch.histc(torch.tensor([1, 2]))", "torch.histc(torch.tensor([1., 2.]), bins=0)",
        "torch.histc(torch.tensor([1., 2.]), min=3, max=1)",
        "torch.histc(torch.tensor([0.5, 7.]), bins=3, min=1, max=4)",
        "tuple(torch.histogram(torch.tensor([1., 2., 1.]), bins=4, range=(0., 3.)))",
        "tuple(torch.histogram(torch.tensor([1., 2., 1.]), bins=torch.tensor([0., 1., 2.5, 3.]), "
        "weight=torch.tensor([1., 2., 3.])))",
        "tuple(torch.histogram(torch.tensor([1., 2., 1.]), bins=3, density=True))",
        "repr(torch.histogram(torch.tensor([1., 2.]), bins=2))",
        "torch.unique(torch.tensor(3), return_inverse=True, return_counts=True)",
        "torch.unique(torch.zeros(0, 3), dim=0, return_inverse=True, return_counts=True)",
        "torch.unique(torch.zeros(2, 0), dim=1)",
        "torch.unique_consecutive(torch.tensor(3), return_inverse=True, return_counts=True)",
        "torch.unique(torch.tensor([[2, 1], [1, 2]]), dim=-1, return_inverse=True)",
        "torch.unique(torch.tensor([2., -0., 0., 1.]))",
        "torch.searchsorted(torch.tensor([1., float('nan')]), "
        "torch.tensor([float('nan'), 0.5, 1.]))",
        "torch.searchsorted(torch.tensor([1., float('nan')]), "
        "torch.tensor([float('nan'), 0.5, 1.]), right=True)",
        "torch.searchsorted(torch.tensor([1, 2]), torch.tensor([], dtype=torch.int64))",
        "torch.bucketize(torch.tensor(2.5), torch.tensor([1., 2., 3.]))",
        "torch.unravel_index(torch.tensor([[3, 1]]), torch.Size([2, 2]))",
        "torch.histc(torch.tensor([1., 2., float('nan')]), bins=2, min=0, max=3)",
        "torch.histc(torch.tensor([1., 2., float('inf')]), bins=2)",
        "torch.histc(torch.tensor([1., 2.]), bins=2, min=0, max=float('inf'))",
        "torch.histogram(torch.tensor([1., 2., float('inf')]), bins=2)",
        "torch.histc(torch.tensor([]))",
    ], setup="x = torch.tensor([3, 1, 2, 3, 1, 5]); m = torch.tensor([[1, 2], [1, 2], [0, 1]]);"
             "s = torch.tensor([1, 3, 5, 7, 9]); v = torch.tensor([[3, 6, 9], [3, 6, 9]])")


def test_comparisons_predicates_and_bitwise() -> None:
    _run_all([
        "torch.greater(i, 1)", "torch.greater_equal(f, f)", "torch.less(f, 2)",
        "torch.less_equal(i, torch.tensor([1, 1, 5]))", "torch.not_equal(i, 2)",
        "torch.not_equal(2, i)", "f.greater(1.5)", "f.less_equal(2)",
        "f.allclose(f + 1e-9)", "f.equal(f)", "f.isclose(torch.tensor([1., 2.1, 3.]))",
        "torch.isclose(i, f)", "torch.allclose(i, f)", "torch.equal(i, f)",
        "torch.isclose(f, f, rtol=-1)", "torch.isclose(f, f.double())",
        "torch.isneginf(torch.tensor([-float('inf'), 1., float('inf')]))",
        "torch.isposinf(torch.tensor([-float('inf'), 1., float('inf')]))", "torch.isposinf(i)",
        "torch.isreal(f)", "f.isneginf()",
        "torch.is_nonzero(torch.tensor([0.]))", "torch.is_nonzero(torch.tensor([1, 2]))",
        "torch.is_nonzero(torch.tensor([]))", "torch.is_nonzero(1)", "torch.tensor(3).is_nonzero()",
        "torch.is_same_size(f, i)", "f.is_same_size(torch.ones(2))",
        "torch.is_signed(torch.ones(2, dtype=torch.uint8))", "i.is_signed()",
        "torch.is_complex(f)", "f.is_complex()", "torch.is_floating_point(i)",
        "torch.is_conj(f)", "f.is_neg()", "torch.is_inference(f)", "f.is_inference()",
        "torch.bitwise_and(i, 3)", "torch.bitwise_and(3, i)", "torch.bitwise_or(i, i * 4)",
        "torch.bitwise_xor(torch.tensor([True, False]), torch.tensor([True, True]))",
        "torch.bitwise_not(i)", "torch.bitwise_not(f)", "torch.bitwise_left_shift(i, 2)",
        "torch.bitwise_right_shift(i * 8, torch.tensor([1, 2, 3]))",
        "torch.bitwise_left_shift(f, 2)", "i << torch.tensor([1.])",
        "i.bitwise_left_shift(1)", "i.bitwise_right_shift(1)",
    ], setup="i = torch.tensor([1, 2, 3]); f = torch.tensor([1., 2., 3.])")


def test_bitwise_in_place() -> None:
    def snippet(rec: Recorder) -> None:
        torch = rec.torch
        for name, call in (("bitwise_and_", lambda t: t.bitwise_and_(6)),
                           ("bitwise_or_", lambda t: t.bitwise_or_(torch.tensor([8, 8, 8]))),
                           ("bitwise_xor_", lambda t: t.bitwise_xor_(1)),
                           ("bitwise_not_", lambda t: t.bitwise_not_()),
                           ("bitwise_left_shift_", lambda t: t.bitwise_left_shift_(2)),
                           ("bitwise_right_shift_", lambda t: t.bitwise_right_shift_(1)),
                           ("&=", lambda t: t.__iand__(2)), ("|=", lambda t: t.__ior__(2)),
                           ("^=", lambda t: t.__ixor__(2)), ("<<=", lambda t: t.__ilshift__(1)),
                           (">>=", lambda t: t.__irshift__(1))):
            t = torch.tensor([1, 2, 3])
            view = t[1:]
            rec.attempt(name, lambda call=call, t=t: call(t) is t)
            rec.note(f"{name}: after", (t, view, t._version))
        rec.attempt("bool &= int", lambda: torch.tensor([True]).bitwise_and_(3))
        rec.attempt("float not_", lambda: torch.tensor([1.0]).bitwise_not_())
        rec.attempt("broadcast", lambda: torch.tensor([1]).bitwise_or_(torch.tensor([1, 2])))
    differential(snippet)


def test_tensor_facts() -> None:
    _run_all([
        "torch.ones(4, 4)[1:, 2:].storage_offset()", "torch.ones(4, 4).t()[1].storage_offset()",
        "torch.ones(3).storage_offset()", "torch.ones(3).itemsize",
        "torch.ones(3, dtype=torch.float64).itemsize", "torch.ones(3).get_device()",
        "torch.ones(3).is_cpu", "torch.ones(2, 3).ndimension()", "torch.ones(2).is_sparse",
        "torch.tensor([1.7, -2.]).byte()", "torch.tensor([1.7, 200.]).char()",
        "torch.tensor([1.7, -2.]).short()",
    ])


def test_dtype_facts() -> None:
    _run_all([
        "torch.finfo(torch.float32)", "torch.finfo(torch.float64)", "torch.finfo(torch.float16)",
        "torch.finfo()", "torch.finfo(torch.int32)",
        "[torch.finfo(torch.float16).bits, torch.finfo(torch.float16).eps, "
        "torch.finfo(torch.float16).max, torch.finfo(torch.float16).min, "
        "torch.finfo(torch.float16).tiny, torch.finfo(torch.float16).resolution, "
        "torch.finfo(torch.float16).dtype, torch.finfo(torch.float32).smallest_normal]",
        "torch.finfo(torch.float32) == torch.finfo(torch.float32)",
        "torch.iinfo(torch.int64)", "torch.iinfo(torch.int32)", "torch.iinfo(torch.uint8)",
        "torch.iinfo(torch.bool)", "torch.iinfo(torch.float32)",
        "[torch.iinfo(torch.int16).bits, torch.iinfo(torch.int16).max, "
        "torch.iinfo(torch.int16).min, torch.iinfo(torch.int16).dtype]",
        "torch.promote_types(torch.uint8, torch.int8)",
        "torch.promote_types(torch.bool, torch.float16)",
        "torch.promote_types(torch.int64, torch.float16)", "torch.promote_types(1, 2)",
        "(torch.tensor([1], dtype=torch.uint8) + torch.tensor([1], dtype=torch.int8)).dtype",
        "torch.result_type(torch.tensor([1]), 1.0)",
        "torch.result_type(torch.tensor([1], dtype=torch.int8), 1000)",
        "torch.result_type(2, 3.0)", "torch.result_type(2, 3)", "torch.result_type(True, 3)",
        "torch.result_type(torch.tensor(1.), torch.tensor([1], dtype=torch.int32))",
        "torch.result_type(torch.tensor(1., dtype=torch.float64), torch.tensor([1.]))",
        "torch.result_type([1], 2)",
        "torch.can_cast(torch.float32, torch.int32)", "torch.can_cast(torch.int32, torch.float16)",
        "torch.can_cast(torch.bool, torch.uint8)", "torch.can_cast(torch.int64, torch.bool)",
        "torch.can_cast(torch.float64, torch.float16)",
        "torch.broadcast_shapes((2, 1), (3,))", "torch.broadcast_shapes((2, 1), 3, "
        "torch.Size([1, 1]))", "torch.broadcast_shapes((2, 3), (4,))", "torch.broadcast_shapes()",
        "torch.broadcast_shapes((-1,), (2,))", "torch.broadcast_shapes((1,), (0,))",
        "torch.broadcast_shapes((2,), (0,))",
    ])


def test_set_printoptions() -> None:
    def snippet(rec: Recorder) -> None:
        torch = rec.torch
        cases = [
            ({"precision": 2}, ["torch.tensor([1.23456, 2.])", "torch.tensor([1e-5, 1.])",
                                "torch.tensor(3.14159)", "torch.tensor([1.5, 2.], "
                                "requires_grad=True)"]),
            ({"sci_mode": False}, ["torch.tensor([1e-5, 1.])", "torch.tensor([1e10, 1.])",
                                   "torch.tensor([1e-5, 123.456])"]),
            ({"sci_mode": True}, ["torch.tensor([1.5, 2.])", "torch.tensor([1., 2.])",
                                  "torch.tensor([1, 2])", "torch.tensor(0.)"]),
            ({"profile": "default", "linewidth": 30}, [
                "torch.arange(20.)", "torch.arange(10., requires_grad=True)",
                "torch.ones(3, dtype=torch.float64)"]),
            ({"threshold": 5, "edgeitems": 1}, ["torch.arange(20.)",
                                                "torch.arange(12.).reshape(3, 4)"]),
            ({"profile": "short"}, ["torch.arange(2000.) / 3", "torch.tensor([1.23456])"]),
            ({"profile": "full"}, ["torch.arange(1100)[-3:]", "torch.arange(1001)"]),
            ({"profile": "bogus"}, ["torch.tensor([1.23456])"]),
            ({"profile": "default", "precision": 6}, ["torch.tensor([1.23456789, 100.])"]),
        ]
        try:
            for options, exprs in cases:
                torch.set_printoptions(**options)
                for e in exprs:
                    rec.note(f"{options}: {e}", repr(eval(e, {"torch": torch})))
        finally:
            torch.set_printoptions(profile="default")
        rec.note("reset", repr(torch.tensor([1.23456, 1e-5])))
    differential(snippet)


def test_environment() -> None:
    def snippet(rec: Recorder) -> None:
        torch = rec.torch
        threads, interop = torch.get_num_threads(), torch.get_num_interop_threads()
        try:
            for e in ("torch.set_num_threads(1)", "torch.get_num_threads()",
                      "torch.set_num_threads(0)", "torch.set_num_threads('a')",
                      "torch.set_num_threads(2.5)", "torch.get_num_threads()",
                      "torch.use_deterministic_algorithms(True)",
                      "torch.are_deterministic_algorithms_enabled()",
                      "torch.is_deterministic_algorithms_warn_only_enabled()",
                      "torch.use_deterministic_algorithms(False, warn_only=True)",
                      "torch.is_deterministic_algorithms_warn_only_enabled()",
                      "torch.use_deterministic_algorithms(False)",
                      "torch.use_deterministic_algorithms(1)",
                      "torch.are_deterministic_algorithms_enabled()",
                      "torch.get_default_device()", "torch.set_default_device('cpu')",
                      "torch.get_default_device()", "torch.set_default_device(None)",
                      "torch.get_float32_matmul_precision()",
                      "torch.set_float32_matmul_precision('high')",
                      "torch.get_float32_matmul_precision()",
                      "torch.set_float32_matmul_precision('bogus')",
                      "torch.get_float32_matmul_precision()",
                      "torch.set_float32_matmul_precision('highest')",
                      "torch.backends.cudnn.benchmark", "torch.backends.cudnn.deterministic",
                      "torch.backends.cudnn.enabled", "torch.backends.cudnn.is_available()",
                      "torch.backends.cudnn.version()", "torch.backends.mps.is_available()",
                      "torch.backends.mps.is_built()", "torch.backends.cuda.matmul.allow_tf32",
                      "torch.backends.cudnn.allow_tf32",
                      "torch.is_anomaly_enabled()", "torch.is_anomaly_check_nan_enabled()"):
                rec.attempt(e, lambda e=e: _describe(eval(e, {"torch": torch})))
            with torch.autograd.set_detect_anomaly(True):
                rec.note("in set_detect_anomaly", torch.is_anomaly_enabled())
            rec.note("after set_detect_anomaly", torch.is_anomaly_enabled())
            rec.attempt("detect_anomaly warns",
                        lambda: type(torch.autograd.detect_anomaly()).__name__)
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                mode = torch.autograd.detect_anomaly(check_nan=False)
            with mode:
                rec.note("in detect_anomaly", (torch.is_anomaly_enabled(),
                                               torch.is_anomaly_check_nan_enabled()))
            rec.note("after detect_anomaly", (torch.is_anomaly_enabled(),
                                              torch.is_anomaly_check_nan_enabled()))
            torch.set_anomaly_enabled(True)
            rec.note("set_anomaly_enabled", torch.is_anomaly_enabled())
            torch.set_anomaly_enabled(False)
        finally:
            torch.set_num_threads(threads)
            torch.use_deterministic_algorithms(False)
        rec.note("interop", torch.get_num_interop_threads() == interop)
    differential(snippet)


def test_compile_returns_the_model_unchanged() -> None:
    model = ours.nn.Linear(2, 1)
    assert ours.compile(model) is model
    assert ours.compile(model, mode="max-autotune", fullgraph=True, dynamic=False) is model

    @ours.compile
    def f(x: Any) -> Any:
        return x * 2

    @ours.compile(mode="reduce-overhead", backend="inductor")
    def g(x: Any) -> Any:
        return x + 1

    assert f(ours.tensor(2.0)).item() == 4.0 and g(ours.tensor(2.0)).item() == 3.0


def test_amp() -> None:
    def snippet(rec: Recorder) -> None:
        torch = rec.torch
        a = torch.ones(2, 2)

        def run(label: str, make: Any) -> None:
            def body() -> Any:
                with make():
                    out = a @ a
                    return str(out.dtype), torch.is_autocast_enabled("cuda")
            rec.attempt(label, body)

        run("autocast cuda", lambda: torch.autocast("cuda"))
        run("amp.autocast cuda", lambda: torch.amp.autocast(device_type="cuda",
                                                              dtype=torch.float16))
        run("autocast cpu disabled", lambda: torch.autocast("cpu", enabled=False))
        run("cpu.amp.autocast disabled", lambda: torch.cpu.amp.autocast(enabled=False))
        run("cuda.amp.autocast", lambda: torch.cuda.amp.autocast())
        run("autocast cpu float64", lambda: torch.autocast("cpu", dtype=torch.float64))
        rec.attempt("autocast bad device", lambda: torch.autocast("xpu2"))
        rec.note("is_autocast_enabled", torch.is_autocast_enabled())

        def decorate() -> Any:
            @torch.autocast("cuda")
            def decorated(x: Any) -> Any:
                return x * 2
            return decorated(a)
        rec.attempt("decorated", decorate)

        rec.attempt("GradScaler()", lambda: torch.amp.GradScaler().is_enabled())
        rec.attempt("cuda.amp.GradScaler()", lambda: torch.cuda.amp.GradScaler().is_enabled())
        scaler = torch.amp.GradScaler("cuda", enabled=False)
        w = torch.nn.Parameter(torch.ones(2))
        opt = torch.optim.SGD([w], lr=0.1)
        loss = (w * w).sum()
        rec.note("scale is identity", scaler.scale(loss) is loss)
        scaler.scale(loss).backward()
        rec.note("unscale_", scaler.unscale_(opt))
        rec.note("step", scaler.step(opt))
        rec.note("update", scaler.update())
        rec.note("after step", (w, scaler.get_scale(), scaler.is_enabled(), scaler.state_dict()))
    differential(snippet)


def test_assert_close_messages() -> None:
    def snippet(rec: Recorder) -> None:
        import numpy as np

        torch = rec.torch
        close = torch.testing.assert_close
        t = torch.tensor
        nan, inf = float("nan"), float("inf")
        cases = [
            lambda: close(t([1., 2., 3.]), t([1., 2.5, 3.])),
            lambda: close(t([1., 2., 3.]), t([1., 2.5, 4.])),
            lambda: close(t([[1., 2.], [3., 4.]]), t([[1., 2.], [3., 5.]])),
            lambda: close(t([1, 2]), t([1, 3])),
            lambda: close(t(1.), t(2.)),
            lambda: close(t([1., 2.]), t([1., 2., 3.])),
            lambda: close(t([1., 2.]), t([1, 2])),
            lambda: close(t([1., 2.]), t([1., 2.], dtype=torch.float64)),
            lambda: close(1.0, 1.5), lambda: close(1, 2), lambda: close(1, 1.0),
            lambda: close([t(1.)], [t(2.)]),
            lambda: close(t([nan]), t([nan])), lambda: close(t([nan]), t([nan]), equal_nan=True),
            lambda: close(t([1., 2.]), t([1., 2.]), msg="custom"),
            lambda: close(t([1., 2.]), t([1., 2.1]), msg="custom"),
            lambda: close(t([1., 2.]), t([1., 3.]), msg=lambda m: m + "!!"),
            lambda: close(t([1., 2.]), t([1., 2.1]), rtol=0.1),
            lambda: close(t([1., 2.]), t([1., 2.1]), rtol=0.1, atol=0),
            lambda: close(t([True]), t([False])),
            lambda: close({"a": t(1.)}, {"a": t(2.)}),
            lambda: close(t([1., inf]), t([1., 2.])),
            lambda: close(t([1e-9]), t([0.])),
            lambda: close([1, 2], [1, 2, 3]), lambda: close({"a": 1}, {"b": 1}),
            lambda: close(t([1., 2.]), t([1, 3]), check_dtype=False),
            lambda: close([t([1., 2.]), {"k": [t([1., 3.])]}],
                          [t([1., 2.]), {"k": [t([1., 2.])]}]),
            lambda: close(t([1., 2.], dtype=torch.float16), t([1., 2.1], dtype=torch.float16)),
            lambda: close(t([1., 2.], dtype=torch.float64), t([1., 2. + 1e-6],
                                                              dtype=torch.float64)),
            lambda: close(torch.zeros(0), torch.zeros(0)),
            lambda: close(torch.ones(2, requires_grad=True), torch.ones(2)),
            lambda: close(t([1., 2.]), t([1., 2. + 1e-7])),
            lambda: close(t([5, 2, 7]), t([1, 2, 3])),
            lambda: close(np.array([1., 2.]), np.array([1., 3.])),
            lambda: close(np.array([1, 2]), np.array([1, 2])),
        ]
        for i, case in enumerate(cases):
            rec.attempt(f"case {i}", case)
        rec.attempt("assert_allclose", lambda: torch.testing.assert_allclose(
            torch.ones(2), torch.zeros(2)))
    differential(snippet)


def test_constants() -> None:
    import math
    assert (ours.pi, ours.e, ours.inf) == (math.pi, math.e, math.inf)
    assert math.isnan(ours.nan) and ours.newaxis is None


def test_bit_for_bit_against_pytorch() -> None:
    """logspace (float16/32/64, int64, one step), histc, histogram (edges, densities) and
    poisson samples equal PyTorch's to the last bit, over random arguments."""
    import numpy as np

    from ._support import real_torch

    torch = real_torch()
    rng = np.random.default_rng(0)
    problems = []

    def check(label: str, a: Any, b: Any) -> None:
        x, y = a.numpy(), b.numpy()
        if x.dtype != y.dtype or x.shape != y.shape or not np.array_equal(x, y, equal_nan=True):
            problems.append(f"{label}: torch {x!r}, ours {y!r}")

    for it in range(60):
        data = (rng.standard_normal(int(rng.integers(1, 30))) * rng.choice([0.1, 1, 100]))
        data = (np.round(data) if it % 3 == 0 else data).astype(np.float32)
        bins = int(rng.integers(1, 20))
        low, high = sorted(rng.standard_normal(2).tolist())
        tt, oo = torch.tensor(data), ours.tensor(data)
        for kw in ({}, {"min": low, "max": high}):
            check(f"histc {data} {bins} {kw}", torch.histc(tt, bins=bins, **kw),
                  ours.histc(oo, bins=bins, **kw))
        for kw2 in ({}, {"range": (low, high)}, {"density": True}):
            a, b = torch.histogram(tt, bins=bins, **kw2), ours.histogram(oo, bins=bins, **kw2)
            check(f"histogram {data} {bins} {kw2}", a.hist, b.hist)
            check(f"bin_edges {data} {bins} {kw2}", a.bin_edges, b.bin_edges)
        start, end = sorted((rng.standard_normal(2) * 3).tolist())
        steps, base = int(rng.integers(0, 20)), float(rng.choice([10, 2, 2.5]))
        for name in ("float32", "float64", "int64", "float16"):
            check(f"logspace {start} {end} {steps} {base} {name}",
                  torch.logspace(start, end, steps, base=base, dtype=getattr(torch, name)),
                  ours.logspace(start, end, steps, base=base, dtype=getattr(ours, name)))
        rates = (np.abs(rng.standard_normal(6)) * rng.choice([1, 5, 30, 300])).astype(np.float32)
        torch.manual_seed(it)
        ours.manual_seed(it)
        check(f"poisson {rates}", torch.poisson(torch.tensor(rates)),
              ours.poisson(ours.tensor(rates)))
    assert not problems, "\n".join(problems[:10])


def test_cpu_grad_scaler_scales_as_pytorch() -> None:
    def snippet(rec: Recorder) -> None:
        torch = rec.torch
        scaler = torch.amp.GradScaler("cpu", init_scale=8.0, growth_interval=2)
        w = torch.nn.Parameter(torch.tensor([1.0, 2.0]))
        opt = torch.optim.SGD([w], lr=0.1)
        for step, factor in enumerate((1.0, 1.0, float("inf"), 1.0, 1.0)):
            opt.zero_grad()
            loss = (w * w * factor).sum()
            scaled = scaler.scale(loss)
            rec.note(f"{step}: scaled", scaled)
            rec.graph(f"{step}: graph", scaled=scaled, w=w)
            scaled.backward()
            rec.note(f"{step}: grad", w.grad)
            rec.note(f"{step}: step", scaler.step(opt))
            rec.note(f"{step}: w", w)
            scaler.update()
            rec.note(f"{step}: state", scaler.state_dict())
        opt.zero_grad()
        scaler.scale([w.sum(), (w * 2).sum()])[1].backward()
        scaler.unscale_(opt)
        rec.note("unscaled", w.grad)
        rec.attempt("unscale_ twice", lambda: scaler.unscale_(opt))
        scaler.step(opt)
        rec.attempt("step twice", lambda: scaler.step(opt))
        rec.attempt("closure", lambda: scaler.step(opt, closure=lambda: None))
        scaler.update(3.0)
        rec.note("new scale", scaler.get_scale())
        rec.attempt("load empty", lambda: scaler.load_state_dict({}))
        rec.attempt("cpu.amp.GradScaler", lambda: torch.cpu.amp.GradScaler().get_scale())
    differential(snippet)


def test_cuda_absent_layouts_and_memory_formats() -> None:
    try:
        _run_all([
            "torch.cuda.device_count()", "torch.cuda.empty_cache()", "torch.cuda.is_initialized()",
            "torch.cuda.synchronize()", "torch.cuda.current_device()",
            "torch.cuda.get_device_name()", "torch.cuda.is_bf16_supported()",
            "torch.cuda.memory_allocated()", "torch.cuda.max_memory_allocated()",
            "torch.typename(torch.ones(1))", "torch.typename(torch.ones(1, dtype=torch.int64))",
            "torch.typename(3)", "torch.is_storage(torch.ones(1))", "repr(torch.strided)",
            "repr(torch.ones(1).layout)", "repr(torch.contiguous_format)",
            "repr(torch.channels_last)", "repr(torch.preserve_format)", "repr(torch.sparse_coo)",
            "torch.is_warn_always_enabled()", "torch.set_warn_always(True)",
            "torch.is_warn_always_enabled()", "torch.set_warn_always(False)",
            "torch.cpu.is_available()", "torch.cpu.device_count()",
            "torch.ones(2).clone(memory_format=torch.preserve_format)",
            "torch.zeros(2, layout=torch.strided)",
            "torch.ones(2, 3).contiguous(memory_format=torch.contiguous_format)",
        ])
    finally:
        ours.set_warn_always(False)


def test_memory_formats() -> None:
    def snippet(rec: Recorder) -> None:
        torch = rec.torch
        x = torch.arange(24.0).reshape(1, 2, 3, 4).requires_grad_()
        y = x.contiguous(memory_format=torch.channels_last)
        rec.note("channels_last", (y, y.stride(), y.is_contiguous(),
                                   y.is_contiguous(memory_format=torch.channels_last)))
        rec.graph("graph", y=y, x=x)
        rec.note("again is itself", y.contiguous(memory_format=torch.channels_last) is y)
        z = y.contiguous()
        rec.note("back", (z.stride(), z.grad_fn.name()))
        rec.note("clone keeps", y.clone().stride())
        rec.note("clone contiguous_format", y.clone(memory_format=torch.contiguous_format).stride())
        rec.note("elementwise keeps", (y * 2).stride())
        y.sum().backward()
        rec.note("grad", x.grad)
    differential(snippet)
    _run_all([
        "torch.ones(2, 3).contiguous(memory_format=torch.channels_last)",
        "torch.ones(2, 3, 4, 5, 6).contiguous(memory_format=torch.channels_last_3d).stride()",
        "torch.ones(2, 3).is_contiguous(memory_format=torch.channels_last)",
        "torch.ones(2, 3).contiguous(memory_format=torch.preserve_format).stride()",
        "torch.ones(1, 1, 3, 4).contiguous(memory_format=torch.channels_last).stride()",
        "torch.ones(2, 3).clone(memory_format=torch.channels_last)",
        "torch.ones(2, 3).t().clone().stride()",
        "torch.clone(torch.ones(2, 3).t(), memory_format=torch.contiguous_format).stride()",
    ])
