"""The remaining gaps ordinary scripts hit, checked against real PyTorch 2.13: ``torch.special``'s
ndtr, ndtri, log_ndtr, erfcx, entr, i0e, i1e, xlog1py, zeta, round, the Bessel functions and the
orthogonal polynomials (values in float64 and float32, nodes, errors); the Tensor methods and
``torch.*`` functions of ``misc_more`` (window functions, the ``*_copy`` functions, storages,
``resize_``, ``sum_to_size``, ``frexp``, ...). The op table's tests (``test_op_table``) check
the table ops' graphs, saved values, gradients and create_graph graphs."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

import graphviz_autograd.torch as ours

from ._support import Recorder, differential, real_torch

pytestmark = pytest.mark.torch

_WIDE = np.concatenate([np.linspace(-30.0, 40.0, 141),
                        [0.0, 1e-3, 1e-8, -1e-8, 0.5, 1.0, 2.0, 25.0, 26.0, 30.5, 100.0, 700.0,
                         800.0, 1e4, np.inf, -np.inf, np.nan]])
_UNIT = np.concatenate([np.linspace(0.0, 1.0, 101),
                        [1e-10, 1e-300, 1 - 1e-12, -0.1, 1.2, np.nan]])

# (name, values, float64 relative tolerance): float32 is compared to a few ulp (PyTorch
# computes there in float32, the engine in float64 rounded once)
SPECIAL = [("ndtr", _WIDE, 1e-15), ("log_ndtr", _WIDE, 1e-12), ("erfcx", _WIDE, 1e-14),
           ("entr", _WIDE, 1e-15), ("i0e", _WIDE, 1e-14), ("i1e", _WIDE, 1e-14),
           ("ndtri", _UNIT, 1e-14), ("modified_bessel_i0", _WIDE, 1e-14),
           ("modified_bessel_i1", _WIDE, 1e-14), ("modified_bessel_k0", _WIDE, 1e-14),
           ("modified_bessel_k1", _WIDE, 1e-14), ("scaled_modified_bessel_k0", _WIDE, 1e-14),
           ("scaled_modified_bessel_k1", _WIDE, 1e-14), ("spherical_bessel_j0", _WIDE, 1e-15),
           # NB: PyTorch's J0, J1, Y0 and Y1 are off the true values by up to ~2e-7 absolute
           # beyond 2 in float64 (the engine's are exact to a few ulp)
           ("bessel_j0", _WIDE, 1e-6), ("bessel_j1", _WIDE, 1e-6),
           ("bessel_y0", _WIDE, 1e-6), ("bessel_y1", _WIDE, 1e-6),
           # NB: PyTorch's Ai is off by up to ~1e-6 absolute near -2.25 in float64
           ("airy_ai", np.concatenate([_WIDE, [-7.999, -8.001, 5.4, 5.6, 50.0, 103.8, 104.0]]),
            1e-6)]


def _compare(got: Any, expected: Any, rtol: float, atol: float = 0.0) -> None:
    assert str(got.dtype) == str(expected.dtype)
    assert got.requires_grad == expected.requires_grad
    np.testing.assert_allclose(np.array(got.tolist(), dtype=float),
                               np.array(expected.tolist(), dtype=float),
                               rtol=rtol, atol=atol, equal_nan=True)


@pytest.mark.parametrize("dtype", ["float64", "float32"])
@pytest.mark.parametrize(("name", "values", "rtol"), SPECIAL, ids=[s[0] for s in SPECIAL])
def test_special_values_as_pytorch(name: str, values: np.ndarray, rtol: float,
                                   dtype: str) -> None:
    torch = real_torch()
    fn_t, fn_o = getattr(torch.special, name), getattr(ours.special, name)
    expected = fn_t(torch.tensor(values.tolist(), dtype=getattr(torch, dtype)))
    got = fn_o(ours.tensor(values.tolist(), dtype=getattr(ours, dtype)))
    atol = 5e-6 if name[:8] in ("bessel_j", "bessel_y") or name == "airy_ai" else 0.0
    if dtype == "float32":
        # NB: log_ndtr's far right tail is PyTorch's float32 erfc, good to ~1e-5 there
        rtol, atol = max(rtol, 2e-5 if name == "log_ndtr" else 1e-6), max(atol, 1e-38)
    _compare(got, expected, rtol, atol)


@pytest.mark.parametrize("name", ["ndtr", "entr", "i0e", "bessel_j0", "modified_bessel_k1"])
def test_special_of_integers_is_float32(name: str) -> None:
    torch = real_torch()
    expected = getattr(torch.special, name)(torch.tensor([1, 2, 3]))
    got = getattr(ours.special, name)(ours.tensor([1, 2, 3]))
    _compare(got, expected, 1e-6)


POLYNOMIALS = ["chebyshev_polynomial_t", "chebyshev_polynomial_u", "chebyshev_polynomial_v",
               "chebyshev_polynomial_w", "shifted_chebyshev_polynomial_t",
               "shifted_chebyshev_polynomial_u", "shifted_chebyshev_polynomial_v",
               "shifted_chebyshev_polynomial_w", "hermite_polynomial_h",
               "hermite_polynomial_he", "laguerre_polynomial_l", "legendre_polynomial_p"]


@pytest.mark.parametrize("dtype", ["float64", "float32"])
@pytest.mark.parametrize("name", POLYNOMIALS)
def test_polynomial_values_as_pytorch(name: str, dtype: str) -> None:
    torch = real_torch()
    # NB: not at NaN, where PyTorch's vectorized kernels give numbers
    xs = np.concatenate([np.linspace(-1.5, 1.5, 25), [1.0, -1.0, 0.0, 0.5]])
    x, n = np.meshgrid(xs, [-1, 0, 1, 2, 3, 5, 7, 9, 12, 20, 3.7])
    args_t = [torch.tensor(v.tolist(), dtype=getattr(torch, dtype)) for v in (x, n)]
    args_o = [ours.tensor(v.tolist(), dtype=getattr(ours, dtype)) for v in (x, n)]
    expected = getattr(torch.special, name)(*args_t)
    got = getattr(ours.special, name)(*args_o)
    # NB: float32 at high degree: PyTorch's trigonometric forms differ from numpy's by a few
    # ulp of the angle
    rtol, atol = (1e-12, 1e-12) if dtype == "float64" else (2e-5, 2e-5)
    _compare(got, expected, rtol, atol)


def test_polynomial_argument_forms_as_pytorch() -> None:
    def snippet(rec: Recorder) -> None:
        S = rec.torch.special
        x = rec.torch.tensor([0.5, 2.0, -1.5], requires_grad=True)
        rec.note("tensor, number", S.chebyshev_polynomial_t(x, 3))
        rec.note("number, tensor", S.hermite_polynomial_h(0.5, rec.torch.tensor([3.0, 4.0])))
        rec.note("int tensor", S.legendre_polynomial_p(rec.torch.tensor([1, 2]), 3))
        rec.note("promoted", S.laguerre_polynomial_l(
            rec.torch.tensor([0.5]), rec.torch.tensor([3.0], dtype=rec.torch.float64)).dtype)
        rec.note("no grad", S.chebyshev_polynomial_u(x, 2).requires_grad)
        rec.attempt("two numbers", lambda: S.chebyshev_polynomial_t(0.5, 3))
    differential(snippet)


def test_special_graphs_and_errors_as_pytorch() -> None:
    def snippet(rec: Recorder) -> None:
        torch = rec.torch
        S = torch.special
        x = torch.tensor([0.3, 1.5, -0.7], requires_grad=True)
        y = S.ndtr(x)
        rec.graph("ndtr", y=y)
        rec.note("ndtr grad", torch.autograd.grad(y.sum(), x)[0])
        rec.note("bessel no grad", S.bessel_j0(x).requires_grad)
        rec.note("k0 no grad", S.modified_bessel_k0(x.abs()).grad_fn)
        s = torch.tensor([2.0, 3.0, 4.5], requires_grad=True)
        q = torch.tensor([1.5, 2.0, 3.0], requires_grad=True)
        z = S.zeta(s, q)
        rec.graph("zeta", z=z)
        rec.attempt("zeta order grad", lambda: torch.autograd.grad(z.sum(), s, retain_graph=True))
        rec.note("zeta q grad", torch.autograd.grad(z.sum(), q)[0])
        z2 = S.zeta(torch.tensor([2.0, 3.0]), q[:2])
        rec.note("zeta saved", [z2.grad_fn._saved_self, z2.grad_fn._saved_other])
        z3 = S.zeta(s, torch.tensor([1.0, 1.0, 1.0]))
        rec.note("zeta unsaved", [z3.grad_fn._saved_self, z3.grad_fn._saved_other])
        w = S.xlog1py(x, 2.0)
        rec.note("xlog1py scalar", [w.grad_fn.name(), w.grad_fn._saved_other])
        w = S.xlog1py(2.0, x.abs())
        rec.note("xlog1py of scalar", [w.grad_fn.name(), w.grad_fn._saved_self])
        a = torch.tensor([0.0, 1.0, 2.0], requires_grad=True)
        up = torch.ones(3, requires_grad=True)
        d = torch.autograd.grad(S.xlog1py(a, -1.0), a, up, create_graph=True)[0]
        rec.graph("xlog1py masked", d=d)
        rec.note("round", [S.round(x).grad_fn.name(), torch.round(x).grad_fn.name(),
                           torch.round(x, decimals=1).grad_fn.name()])
        rec.note("round values", torch.round(torch.tensor([1.25, 2.5, 0.35, 1234.5]),
                                              decimals=1))
        rec.note("round negative", torch.round(torch.tensor([1234.5, -55.0]), decimals=-2))
        rec.attempt("round int", lambda: torch.round(torch.tensor([3, 7]), decimals=1))
        rec.note("round int plain", torch.round(torch.tensor([3, 7])))
        t = x.clone()
        t.round_(decimals=2)
        rec.note("round_", [t, t.grad_fn.name(), t._version])
    differential(snippet)


# -- Tensor methods and torch.* functions -------------------------------------------------------
def test_storages_as_pytorch() -> None:
    def snippet(rec: Recorder) -> None:
        torch = rec.torch
        x = torch.arange(6.0).reshape(2, 3)
        v = x[1:]
        s = x.untyped_storage()
        rec.note("same memory", [s.data_ptr() == x.data_ptr(),
                                 v.untyped_storage().data_ptr() == s.data_ptr(),
                                 x.clone().untyped_storage().data_ptr() == s.data_ptr(),
                                 x.t().untyped_storage().data_ptr() == s.data_ptr()])
        rec.note("sizes", [s.nbytes(), s.size(), s.element_size(), len(s),
                           v.untyped_storage().nbytes()])
        rec.note("int64", torch.arange(3).untyped_storage().nbytes())
        rec.note("is_storage", [torch.is_storage(s), torch.is_storage(x),
                                isinstance(s, torch.UntypedStorage)])
    differential(snippet)


def test_typed_storage_warns_and_sizes_as_pytorch() -> None:
    torch = real_torch()
    for module in (torch, ours):
        x = module.arange(6.0, dtype=module.float64)[2:]
        with pytest.warns(UserWarning, match="TypedStorage is deprecated") if module is ours \
                else _maybe_warns():
            st = x.storage()
        assert [st.size(), st.element_size(), st.nbytes(), st.data_ptr() == x[-2:].data_ptr()
                - 4 * 8, str(st.dtype), len(st)] == [6, 8, 48, True, "torch.float64", 6]


def _maybe_warns() -> Any:
    import contextlib
    import warnings
    ctx = contextlib.ExitStack()
    ctx.enter_context(warnings.catch_warnings())
    warnings.simplefilter("ignore")
    return ctx


def test_sum_to_size_new_empty_strided_and_resize_as_pytorch() -> None:
    def snippet(rec: Recorder) -> None:
        torch = rec.torch
        A = torch.arange(6.0).reshape(2, 3).requires_grad_()
        for size in [(1, 3), ((3,),), (1, 1), (2, 1), ((2, 3),)]:
            r = A.sum_to_size(*size)
            rec.graph(f"sum_to_size{size}", r=r)
        rec.note("same", A.sum_to_size(2, 3) is A)
        rec.attempt("not expandable", lambda: A.sum_to_size(2, 2))
        rec.attempt("too long", lambda: A.sum_to_size(1, 2, 3))
        e = A.new_empty_strided((2, 2), (1, 2))
        rec.note("new_empty_strided", [e.shape, e.stride(), e.dtype, e.requires_grad])
        e = A.new_empty_strided((3,), (2,), dtype=torch.float64, requires_grad=True)
        rec.note("new_empty_strided kw", [e.shape, e.stride(), e.dtype, e.requires_grad])
        rec.attempt("resize_ grad", lambda: A.resize_(3, 2))
        rec.attempt("resize_ nonleaf", lambda: (A * 2).resize_(6))
        rec.attempt("resize_as_ grad", lambda: A.resize_as_(torch.zeros(3, 2)))
        x = torch.arange(6.0)
        rec.note("resize_ smaller", [x.resize_(2, 2), x.shape, x.is_contiguous(), x._version])
        rec.note("resize_ bigger", [x.resize_(3, 3)[:1], x.shape])
        y = torch.arange(6.0)
        rec.note("resize_as_", y.resize_as_(torch.zeros(2, 3)))
        with torch.no_grad():
            rec.attempt("resize_ grad no_grad", lambda: A.resize_(6))
    differential(snippet)


def test_python_maps_heaviside_prelu_frexp_as_pytorch() -> None:
    def snippet(rec: Recorder) -> None:
        torch = rec.torch
        a = torch.tensor([1.0, 2.0, -3.0])
        rec.note("apply_", [a.apply_(lambda v: v * 2), a._version])
        rec.note("apply_ int", torch.tensor([1, 2]).apply_(lambda v: v * 1.5))
        rec.note("map_", torch.tensor([1.0, 2.0]).map_(torch.tensor([3.0]), lambda x, y: x + y))
        rec.note("map2_", torch.tensor([1.0, 2.0]).map2_(
            torch.tensor([3.0, 4.0]), torch.tensor([5.0, 6.0]), lambda x, y, z: x * y + z))
        g = torch.tensor([1.0, 2.0], requires_grad=True)
        rec.attempt("apply_ grad", lambda: g.apply_(lambda v: v))
        rec.attempt("map_ grad", lambda: g.map_(g, lambda x, y: x))
        rec.attempt("map2_ grad", lambda: g.map2_(g, g, lambda x, y, z: x))
        h = torch.tensor([-1.0, 0.0, 2.0])
        rec.note("heaviside_", [h.heaviside_(torch.tensor([0.5])), h._version])
        rec.attempt("heaviside_ dtypes", lambda: h.heaviside_(torch.tensor([1], dtype=torch.int64)))
        A = torch.tensor([[-1.0, 2.0], [3.0, -4.0]], requires_grad=True)
        p = A.prelu(torch.tensor([0.25]))
        rec.graph("prelu", p=p)
        x = torch.tensor([0.0, 1.0, -3.5, 1e-40, 6.0, float("inf")], requires_grad=True)
        m, e = torch.frexp(x)
        rec.note("frexp", [m, e, e.dtype, m.grad_fn.name(), e.requires_grad])
        rec.note("frexp method", x.detach().frexp().exponent)
        rec.note("frexp saved", m.grad_fn._saved_exponent)
        rec.note("frexp grad", torch.autograd.grad(m.sum(), x)[0])
        rec.note("frexp repr", repr(torch.frexp(torch.tensor([2.0]))))
        rec.attempt("frexp int", lambda: torch.frexp(torch.tensor([1, 2])))
        rec.note("frexp float64", torch.frexp(torch.tensor([1.5], dtype=torch.float64)))
    differential(snippet)


WINDOWS = [("hann_window", {}), ("hamming_window", {}), ("blackman_window", {}),
           ("bartlett_window", {}), ("kaiser_window", {}), ("kaiser_window", {"beta": 5.0})]


@pytest.mark.parametrize(("name", "kw"), WINDOWS, ids=[f"{w[0]}{w[1]}" for w in WINDOWS])
def test_window_values_as_pytorch(name: str, kw: dict[str, Any]) -> None:
    torch = real_torch()
    for length in [0, 1, 2, 3, 5, 8, 33, 64]:
        for periodic in (True, False):
            for dtype in ("float32", "float64"):
                expected = getattr(torch, name)(length, periodic, dtype=getattr(torch, dtype),
                                                **kw)
                got = getattr(ours, name)(length, periodic, dtype=getattr(ours, dtype), **kw)
                # NB: float32 cosines: numpy's and PyTorch's may differ by an ulp
                rtol = 1e-14 if dtype == "float64" else 1e-6
                _compare(got, expected, rtol, 1e-7 if dtype == "float32" else 1e-15)


def test_window_forms_and_errors_as_pytorch() -> None:
    def snippet(rec: Recorder) -> None:
        torch = rec.torch
        rec.note("default", torch.hann_window(5))
        rec.note("hamming args", torch.hamming_window(5, False, 0.5, 0.4, dtype=torch.float64))
        rec.note("grad", [torch.hann_window(4, requires_grad=True).requires_grad,
                          torch.hann_window(4, requires_grad=True).is_leaf])
        rec.attempt("int dtype", lambda: torch.hann_window(5, dtype=torch.int64))
        rec.attempt("int32 dtype", lambda: torch.kaiser_window(5, dtype=torch.int32))
        rec.attempt("negative", lambda: torch.blackman_window(-1))
    differential(snippet)


def test_rsub_fill_and_flags_as_pytorch() -> None:
    def snippet(rec: Recorder) -> None:
        torch = rec.torch
        a = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
        rec.graph("rsub", r=torch.rsub(a, a * 2))
        rec.graph("rsub number", r=torch.rsub(a, 2.0))
        rec.graph("rsub alpha", r=torch.rsub(a, 2.0, alpha=3))
        rec.graph("rsub tensor alpha", r=torch.rsub(a, a * 2, alpha=3))
        f = torch.fill(a, 2.0)
        rec.graph("fill", f=f)
        rec.note("fill grad", torch.autograd.grad(f.sum(), a)[0])
        v = torch.tensor(2.0, requires_grad=True)
        f = torch.fill(a, v)
        rec.graph("fill tensor", f=f)
        rec.note("fill tensor grad", torch.autograd.grad(f.sum(), [a, v]))
        rec.note("not in place", a)
        rec.note("inference", torch.is_inference_mode_enabled())
        with torch.inference_mode():
            rec.note("inference inside", torch.is_inference_mode_enabled())
        rec.attempt("default type", lambda: torch.set_default_tensor_type(torch.FloatTensor))
        rec.note("dtype", torch.zeros(1).dtype)
    differential(snippet)


COPIES = [("view_copy", lambda m, A, a: (A, (3, 2))), ("t_copy", lambda m, A, a: (A,)),
          ("t_copy", lambda m, A, a: (a,)), ("transpose_copy", lambda m, A, a: (A, 0, 1)),
          ("permute_copy", lambda m, A, a: (A, (1, 0))),
          ("expand_copy", lambda m, A, a: (a, (2, 3))),
          ("squeeze_copy", lambda m, A, a: (A[None],)),
          ("squeeze_copy", lambda m, A, a: (A[None], 0)),
          ("unsqueeze_copy", lambda m, A, a: (A, 0)), ("diagonal_copy", lambda m, A, a: (A,)),
          ("select_copy", lambda m, A, a: (A, 0, 1)),
          ("slice_copy", lambda m, A, a: (A, 1, 0, 2)), ("slice_copy", lambda m, A, a: (a,)),
          ("split_copy", lambda m, A, a: (A, 1, 1)), ("unbind_copy", lambda m, A, a: (A,)),
          ("alias_copy", lambda m, A, a: (A,)), ("unfold_copy", lambda m, A, a: (a, 0, 2, 1)),
          ("as_strided_copy", lambda m, A, a: (A, (2, 2), (1, 2))),
          ("split_with_sizes_copy", lambda m, A, a: (A, [1, 2], 1)),
          ("detach_copy", lambda m, A, a: (A,))]


@pytest.mark.parametrize("grad", [True, False])
def test_copy_functions_as_pytorch(grad: bool) -> None:
    def snippet(rec: Recorder) -> None:
        torch = rec.torch
        for name, args in COPIES:
            A = torch.arange(6.0).reshape(2, 3).requires_grad_(grad)
            a = torch.arange(3.0).requires_grad_(grad)
            call = args(torch, A, a)
            out = getattr(torch, name)(*call)
            outs = list(out) if isinstance(out, tuple | list) else [out]
            rec.note(name, [type(out).__name__, outs, [o.is_contiguous() for o in outs],
                            [o.data_ptr() == call[0].data_ptr() for o in outs],
                            [o.requires_grad for o in outs]])
            if grad:
                rec.graph(name, out=outs[0])
                rec.attempt(f"{name} grad", lambda outs=outs, x=call[0]: torch.autograd.grad(
                    sum(o.sum() for o in outs), x))
    differential(snippet)


def test_gradient_as_pytorch() -> None:
    def snippet(rec: Recorder) -> None:
        torch = rec.torch
        a = torch.tensor([1.0, 2.0, 4.0, 7.0, 11.5], requires_grad=True)
        y = a * a
        (g,) = torch.gradient(y)
        rec.graph("default", g=g)
        rec.note("grad", torch.autograd.grad(g.sum(), a)[0])
        A = torch.arange(12.0).reshape(3, 4).pow(2).requires_grad_()
        gs = torch.gradient(A, spacing=2.0, dim=1)
        rec.graph("spacing", g=gs[0])
        gs = torch.gradient(A, spacing=[0.5, 2], edge_order=2)
        rec.note("two dims", list(gs))
        rec.graph("edge 2", g=gs[0])
        rec.note("dims", list(torch.gradient(A, dim=(-1,), spacing=3)))
        rec.attempt("too short", lambda: torch.gradient(torch.ones(2), edge_order=2))
        rec.attempt("edge 3", lambda: torch.gradient(A, edge_order=3))
        rec.attempt("lengths", lambda: torch.gradient(A, spacing=[1.0, 2.0, 3.0]))
        rec.attempt("lengths dim", lambda: torch.gradient(A, spacing=[1.0, 2.0], dim=1))
        x = torch.tensor([0.0, 1.0, 3.0, 4.5])
        for order in (1, 2):
            g = torch.gradient(A, spacing=(x,), dim=1, edge_order=order)[0]
            rec.graph(f"coordinates {order}", g=g)
            rec.note(f"coordinates {order} grad", torch.autograd.grad(g.pow(2).sum(), A)[0])
        rec.note("coordinates two dims", list(torch.gradient(
            A, spacing=(torch.tensor([0.0, 2.0, 2.5]), x))))
    differential(snippet)


def test_deprecated_norms_as_pytorch() -> None:
    def snippet(rec: Recorder) -> None:
        torch = rec.torch
        A = torch.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 7.0]], requires_grad=True)
        # NB: PyTorch warns once per process: warnings not compared
        for label, fn in [("frobenius", lambda: torch.frobenius_norm(A, (0, 1))),
                          ("frobenius dim", lambda: torch.frobenius_norm(A, (1,), True)),
                          ("frobenius -1", lambda: torch.frobenius_norm(A, -1)),
                          ("nuclear", lambda: torch.nuclear_norm(A)),
                          ("nuclear keepdim", lambda: torch.nuclear_norm(A, keepdim=True)),
                          ("nuclear dim", lambda: torch.nuclear_norm(A, (1, 0)))]:
            rec.attempt(label, fn, record_warnings=False)
            r = fn()
            rec.graph(label, r=r)
            rec.note(f"{label} grad", torch.autograd.grad(r.sum(), A)[0])
    differential(snippet)


def test_as_strided_scatter_as_pytorch() -> None:
    def snippet(rec: Recorder) -> None:
        torch = rec.torch
        A = torch.arange(6.0).reshape(2, 3).requires_grad_()
        s = torch.ones(2, 2, requires_grad=True)
        r = torch.as_strided_scatter(A * 1, s, (2, 2), (1, 2))
        rec.graph("scatter", r=r)
        rec.note("saved", [r.grad_fn._saved_size, r.grad_fn._saved_stride,
                           r.grad_fn._saved_storage_offset])
        rec.note("grads", torch.autograd.grad((r * torch.arange(6.0).reshape(2, 3)).sum(),
                                              [A, s]))
        r = A.detach().as_strided_scatter(torch.ones(2), (2,), (2,), 1)
        rec.note("offset", [r, r.requires_grad])
        rec.attempt("sizes", lambda: torch.as_strided_scatter(A * 1, torch.ones(3), (2,), (2,)))
    differential(snippet)


def test_index_reduce_as_pytorch() -> None:
    def snippet(rec: Recorder) -> None:
        torch = rec.torch
        x = torch.ones(3, requires_grad=True)
        src = torch.tensor([2.0, 5.0, 3.0], requires_grad=True)
        idx = torch.tensor([0, 1, 0])
        for reduce in ("prod", "mean", "amax", "amin"):
            for include in (True, False):
                r = x.index_reduce(0, idx, src, reduce, include_self=include)
                rec.attempt(f"{reduce} {include}", lambda r=r: r, record_warnings=False)
                rec.graph(f"{reduce} {include}", r=r)
                rec.note(f"{reduce} {include} grads",
                         torch.autograd.grad((r * torch.tensor([1.0, 2.0, 3.0])).sum(), [x, src]))
        r = x.index_reduce(0, idx, src, "amin", include_self=False)
        rec.note("saved", [r.grad_fn._saved_dim, r.grad_fn._saved_include_self,
                           r.grad_fn._saved_reduce, r.grad_fn._saved_index,
                           r.grad_fn._saved_source, r.grad_fn._saved_result])
        t = torch.zeros(2, 3)
        t.index_reduce_(1, torch.tensor([2, 2]), torch.tensor([[1.0, 4.0], [2.0, -1.0]]), "amax")
        rec.note("in place", [t, t._version])
        A = torch.ones(3, 2)
        for label, args in [("sum", (1, torch.tensor([0, 1]), torch.ones(3, 2), "sum")),
                            ("count", (0, torch.tensor([0, 1]), torch.ones(3, 2), "prod")),
                            ("2-d", (0, torch.tensor([[0, 1]]), torch.ones(2, 2), "prod")),
                            ("float", (0, torch.tensor([0, 1.0]), torch.ones(2, 2), "prod")),
                            ("range", (0, torch.tensor([0, 5]), torch.ones(2, 2), "prod"))]:
            rec.attempt(label, lambda args=args: A.index_reduce(*args), record_warnings=False)
    differential(snippet)


def test_as_strided_inplace_as_pytorch() -> None:
    def snippet(rec: Recorder) -> None:
        torch = rec.torch
        A = torch.arange(6.0).reshape(2, 3).requires_grad_()
        rec.attempt("leaf", lambda: A.as_strided_((2, 2), (1, 2)))
        B = A * 1
        r = B.as_strided_((2, 2), (1, 2))
        rec.note("same", [r is B, B, B._version, B.is_contiguous(), B.stride()])
        rec.graph("as_strided_", B=B)
        rec.note("saved", [B.grad_fn._saved_size, B.grad_fn._saved_stride,
                           B.grad_fn._saved_storage_offset])
        rec.note("grad", torch.autograd.grad(
            (B * torch.tensor([[1.0, 2.0], [3.0, 4.0]])).sum(), A))
        C = torch.arange(6.0)
        C.as_strided_((2,), (2,), 1)
        rec.note("no grad", [C, C._version, C.is_contiguous()])
    differential(snippet)


def test_special_dtype_errors_as_pytorch() -> None:
    def snippet(rec: Recorder) -> None:
        torch = rec.torch
        S = torch.special
        h = torch.tensor([0.5], dtype=torch.float16)
        for name in ["ndtri", "log_ndtr", "erfcx", "entr", "i0e", "ndtr", "bessel_j0",
                     "modified_bessel_k0", "airy_ai", "spherical_bessel_j0"]:
            rec.attempt(name, lambda name=name: getattr(S, name)(h).dtype)
        rec.attempt("zeta", lambda: S.zeta(h, h))
        rec.attempt("chebyshev", lambda: S.chebyshev_polynomial_t(h, 2))
        rec.attempt("round int", lambda: S.round(torch.tensor([1, 2])))
        rec.attempt("round bool", lambda: torch.tensor([True]).round())
        rec.attempt("round bool decimals", lambda: torch.round(torch.tensor([True]), decimals=1))
        rec.attempt("round int plain", lambda: torch.tensor([1, 2]).round())
    differential(snippet)
