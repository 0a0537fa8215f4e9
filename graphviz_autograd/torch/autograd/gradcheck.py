"""``torch.autograd.gradcheck``: ``gradcheck`` and ``gradgradcheck``, a finite-difference
(numerical) Jacobian against the one ``autograd.grad`` gives (analytical), with PyTorch's steps,
checks, warnings and messages.

Jacobians are laid out as PyTorch lays them out: one row per input element, one column per
output element. The numerical one perturbs one element of an input's ``.data`` at a time by
``±eps`` (central differences, in the input's dtype); the analytical one is built row by row from
vector-Jacobian products with one-hot ``grad_outputs``, twice, to catch a backward that is not
reentrant. ``fast_mode=True`` compares ``vᵀJu`` only, for random unit vectors ``u`` and ``v``
drawn as PyTorch draws them (a fresh ``torch.Generator()``; the engine's generator is PyTorch's
Mersenne twister, so the draws are the same). The checks that follow (backward multiplied by
grad_output, undefined output grads, batched grads) are in ``gradcheck_more``.
``check_forward_ad=True`` also builds the Jacobian column by column in forward mode (slow mode
only; fast mode raises ``NotImplementedError``), and so does gradgradcheck's
``check_fwd_over_rev=True`` (forward over reverse: the gradients' Jacobian in forward mode).

>>> import graphviz_autograd.torch as torch
>>> x = torch.tensor([0.5, 2.0], dtype=torch.float64, requires_grad=True)
>>> gradcheck(torch.sin, (x,))
True
"""

from __future__ import annotations

import functools
import itertools
import warnings
from collections.abc import Callable, Sequence
from typing import Any

from ... import torch as T
from ...engine.executor import grad
from ...engine.tensor import Tensor
from .gradcheck_more import (
    FAILED_BATCHED_GRAD_MSG,  # noqa: F401 -- PyTorch's module has it
    GradcheckError,
    as_tuple,
    differentiable_outputs,
    is_tensor_like,
    iter_tensors,
    verify_backward_mul_by_grad_output,
    verify_batched_grad,
    verify_undefined_backward_mode,
)

__all__ = ["gradcheck", "gradgradcheck", "GradcheckError", "get_numerical_jacobian",
           "get_analytical_jacobian", "get_numerical_jacobian_wrt_specific_input"]

Tensors = tuple[Tensor, ...]

# -- PyTorch's messages, verbatim ---------------------------------------------------------------
_NOT_DOUBLE = ("Input #{} requires gradient and is not a double precision floating point or "
               "complex. This check will likely fail if all the inputs are not of double "
               "precision floating point or complex. ")
_STRIDE_0 = ("The {}th input has a dimension with stride 0. gradcheck only supports inputs that "
             "are non-overlapping to be able to compute the numerical gradients correctly. You "
             "should call .contiguous on the input before passing it to gradcheck.")
_NONE_REQUIRES_GRAD = ("gradcheck expects at least one input tensor to require gradient, but "
                       "none of them have requires_grad=True.")
_NOT_ZERO = "Numerical gradient for function expected to be zero"
_DEPRECATED = ("`{}` was part of PyTorch's private API and not meant to be exposed. We are "
               "deprecating it and it will be removed in a future version of PyTorch. If you "
               "have a specific use for this or feature request for this to be a stable API, "
               "please file us an issue at https://github.com/pytorch/pytorch/issues/new")
_GRAD_OUT = ("Expected grad_out to be 1.0. {} no longer supports values of grad_out != 1.0.")
FAILED_NONDET_MSG = """\n
NOTE: If your op relies on non-deterministic operations i.e., it is listed here:
https://pytorch.org/docs/stable/generated/torch.use_deterministic_algorithms.html
this failure might be expected.

If you are adding a new operator, please file an issue and then use one of the
workarounds. The workaround depends on how your test invokes gradcheck/gradgradcheck.
If the test
- manually invokes gradcheck/gradgradcheck, then call gradcheck/gradgradcheck
  with `nondet_tol=<tol>` as a keyword argument.
- is OpInfo-based (e.g., in test_ops_gradients.py), then modify the OpInfo for the test
  to have `gradcheck_nondet_tol=<tol>`.
- is a Module test (e.g., in common_nn.py), then modify the corresponding
  module_test entry to have `gradcheck_nondet_tol=<tol>`
"""
_NOT_REENTRANT = ("Backward is not reentrant, i.e., running backward with same input and "
                  "grad_output multiple times gives different values, although analytical "
                  "gradient matches numerical gradient.The tolerance for nondeterminism was {}."
                  + FAILED_NONDET_MSG)
FAST_FAIL_SLOW_OK_MSG = """
Fast gradcheck failed but element-wise differences are small. This means that the
test might've passed in slow_mode!

If you are adding a new operator, please file an issue and then use one of the
workarounds. The workaround depends on how your test invokes gradcheck/gradgradcheck:

If the test
- manually invokes gradcheck/gradgradcheck, then call gradcheck/gradgradcheck
  with `fast_mode=False` as a keyword argument.
- is OpInfo-based (e.g., in test_ops_gradients.py), then modify the OpInfo for the test
  to have `gradcheck_fast_mode=False`
- is a Module test (e.g., in common_nn.py), then modify the corresponding
  module_test entry to have `gradcheck_fast_mode=False`
""".strip()
_SLOW_RECOMPUTED = (
    "\nThe above quantities relating the numerical and analytical jacobians are computed \n"
    "in fast mode. See: https://github.com/pytorch/pytorch/issues/53876 for more background \n"
    "about fast mode. Below, we recompute numerical and analytical jacobians in slow mode:\n\n"
    "Numerical:\n {}\nAnalytical:\n{}\n\nThe max per-element difference (slow mode) is: {}.\n")
_NO_FORWARD_AD = ("{}: {}=True is not implemented by graphviz_autograd (of the forward-mode "
                  "checks, only the slow check_forward_ad and check_fwd_over_rev are)")


def _mismatch(analytical: Any, numerical: Any, output_idx: int, input_idx: int,
              mode: str = "") -> str:
    # NB: a 0-d tensor formats as its number (fast mode's vᵀJu), as in PyTorch
    return (f"Jacobian {mode}mismatch for output {output_idx:d} with respect to input "
            f"{input_idx:d},\n"
            f"numerical:{numerical}\nanalytical:{analytical}\n")


# -- inputs -------------------------------------------------------------------------------------
def _check_inputs(inputs: tuple[Any, ...]) -> bool:
    """Warn of each input requiring grad that is not float64; refuse overlapping ones; at least
    one must require grad."""
    found = False
    for idx, inp in enumerate(inputs):
        if not (is_tensor_like(inp) and inp.requires_grad):
            continue
        if inp.dtype != T.float64:
            # NB: located at the one call of this function, as PyTorch's (so shown once)
            warnings.warn(_NOT_DOUBLE.format(idx), UserWarning, stacklevel=2)
        if not all(st > 0 or sz <= 1 for st, sz in zip(inp.stride(), inp.size(), strict=False)):
            raise RuntimeError(_STRIDE_0.format(idx))
        found = True
    if not found:
        raise ValueError(_NONE_REQUIRES_GRAD)
    return True


def _is_float(t: Any) -> bool:
    return is_tensor_like(t) and t.is_floating_point()


def _grad_inputs(inputs: Sequence[Any]) -> tuple[list[int], list[Tensor]]:
    pairs = [(i, t) for i, t in enumerate(inputs) if is_tensor_like(t) and t.requires_grad]
    return [i for i, _ in pairs], [t for _, t in pairs]


# -- numerical side -----------------------------------------------------------------------------
def _same_dtype_and_shape(a: Tensor, b: Tensor, eps: float, idx: Any = None) -> None:
    on_index = f"on index {idx} " if idx is not None else ""
    for what, x, y in (("shape", a.shape, b.shape), ("dtype", a.dtype, b.dtype)):
        if x != y:
            raise AssertionError(f"Expected `func` to return outputs with the same {what} when "
                                 f"inputs are perturbed {on_index}by {eps}, but got: {what}s "
                                 f"{x} and {y}.")


def _central_difference(call: Callable[[], Tensors], entry: Tensor, delta: Any, norm: float,
                        eps: float, idx: Any = None) -> Tensors:
    """``(f(x + delta) - f(x - delta)) / (2 * norm)`` per output, flattened; ``entry`` (a view
    of an input's ``.data``) is changed in place and put back."""
    orig = entry.clone()
    entry.copy_(orig - delta)
    before = call()
    entry.copy_(orig + delta)
    after = call()
    entry.copy_(orig)
    out = []
    for a, b in zip(before, after, strict=False):
        _same_dtype_and_shape(a, b, eps, idx)
        out.append(((b - a) / (2 * norm)).detach().reshape(-1))
    return tuple(out)


def _caller(fn: Callable[..., Any], inputs: Sequence[Any]) -> Callable[[], Tensors]:
    return lambda: tuple(a.clone() for a in as_tuple(fn(*inputs)))


def get_numerical_jacobian_wrt_specific_input(fn: Callable[..., Any], input_idx: int,
                                              inputs: Sequence[Any], outputs: Sequence[Any],
                                              eps: float, input: Tensor | None = None,
                                              is_forward_ad: bool = False) -> Tensors:
    """One ``(input.numel(), output.numel())`` Jacobian per floating output of ``fn``."""
    inp = inputs[input_idx] if input is None else input
    if not inp.requires_grad:
        raise AssertionError("Expected input to have requires_grad=True")
    data = inp.data
    call = _caller(fn, inputs)
    columns = [_central_difference(call, data[idx], eps, eps, eps, idx)
               for idx in itertools.product(*[range(m) for m in data.shape])]
    jacobians = tuple(o.new_zeros((inp.numel(), o.numel())) for o in outputs if _is_float(o))
    for i, jacobian in enumerate(jacobians):
        for k, column in enumerate(columns):
            jacobian[k] = column[i]
    return jacobians


def _numerical_jacobian(fn: Callable[..., Any], inputs: Sequence[Any], outputs: Sequence[Any],
                        eps: float) -> list[Tensors]:
    """Per input requiring grad, its Jacobians with every floating output."""
    indices, _ = _grad_inputs(inputs)
    return [get_numerical_jacobian_wrt_specific_input(fn, i, inputs, outputs, eps, input=inp)
            for inp, i in zip(iter_tensors(inputs, True), indices, strict=False)]


def _check_no_differentiable_outputs(fn: Callable[..., Any], inputs: Sequence[Any],
                                     func_out: Sequence[Any], eps: float) -> bool:
    for per_input in _numerical_jacobian(fn, inputs, func_out, eps):
        for jacobian in per_input:
            if jacobian.ne(0).sum() > 0:
                raise GradcheckError(_NOT_ZERO)
    return True


# -- analytical side ----------------------------------------------------------------------------
def _vjp_fn(inputs: Sequence[Any], output: Tensor) -> Callable[[Tensor], Any]:
    diff = list(iter_tensors(inputs, True))
    return functools.partial(grad, output, diff, retain_graph=True, allow_unused=True)


def _jacobian_rows(vjp: Callable[[Tensor], Any], sample: Tensor) -> list[list[Tensor | None]]:
    """Row j of each input's Jacobian: the vjp of the j-th one-hot grad_output."""
    base = T.zeros_like(sample)
    flat = base.view(-1)
    rows: list[list[Tensor | None]] = []
    for j in range(flat.numel()):
        flat.zero_()
        flat[j] = 1.0
        for i, g in enumerate(vjp(base)):
            if j == 0:
                rows.append([])
            rows[i].append(g.clone() if isinstance(g, Tensor) else None)
    return rows


def _stack_rows(rows: list[list[Tensor | None]], inputs: Sequence[Any],
                numel_out: int) -> tuple[Tensors, bool, bool]:
    """The rows as ``(input.numel(), numel_out)`` Jacobians, and whether the sizes and the
    dtypes of the gradients were the inputs'."""
    jacobians = tuple(t.new_zeros((t.numel(), numel_out)) for t in inputs
                      if _is_float(t) and t.requires_grad)
    diff = list(iter_tensors(inputs, True))
    sizes_ok = types_ok = True
    for i, grads in enumerate(rows):
        inp, jacobian = diff[i], jacobians[i]
        for j, g in enumerate(grads):
            if g is None:
                jacobian[:, j].zero_()
                continue
            if g.size() != inp.size():
                sizes_ok = False
            elif g.dtype != inp.dtype:
                types_ok = False
            if jacobian[:, j].numel() != g.numel():
                raise AssertionError(f"Expected out_jacobian column to have {g.numel()} "
                                     f"elements, but got {jacobian[:, j].numel()}")
            jacobian[:, j] = g.reshape(-1)
    return jacobians, sizes_ok, types_ok


def _jacobians_equal(j1: Tensors, j2: Tensors, atol: float) -> bool:
    return all(a.numel() == 0 or not (a - b).abs().max() > atol
               for a, b in zip(j1, j2, strict=False))


def _analytical_jacobian(inputs: Sequence[Any], output: Tensor, nondet_tol: float,
                         check_grad_dtypes: bool, v: Tensor | None = None) -> Tensors:
    """Each input's Jacobian with ``output`` (or, given ``v``, its row ``vᵀJ``), computed twice
    to check that the backward is reentrant."""
    vjp = _vjp_fn(inputs, output)

    def rows() -> list[list[Tensor | None]]:
        if v is None:
            return _jacobian_rows(vjp, output.clone())
        once = vjp(v.reshape(output.clone().shape))
        return [[g.clone() if isinstance(g, Tensor) else None] for g in once]

    first, second = rows(), rows()
    numel = output.numel() if v is None else 1
    jacobians, sizes_ok, types_ok = _stack_rows(first, inputs, numel)
    again, _, _ = _stack_rows(second, inputs, numel)
    # NB: PyTorch 2.13 crosses the two flags: a wrong size reads as a dtype mismatch (only with
    # check_grad_dtypes) and a wrong dtype as an incorrect size
    if not sizes_ok and check_grad_dtypes:
        raise GradcheckError("Gradient has dtype mismatch")
    if not types_ok:
        raise GradcheckError("Analytical gradient has incorrect size")
    if not _jacobians_equal(jacobians, again, nondet_tol):
        raise GradcheckError(_NOT_REENTRANT.format(nondet_tol))
    return jacobians


def _allclose(a: Tensor, b: Tensor, rtol: float, atol: float) -> bool:
    dtype = T.promote_types(a.dtype, b.dtype)
    return bool(T.allclose(a.to(dtype=dtype), b.to(dtype=dtype), rtol, atol))


# -- the two modes ------------------------------------------------------------------------------
def _forward_jacobians(func: Callable[..., Any], inputs: Sequence[Any], outputs: Sequence[Any],
                       check_grad_dtypes: bool) -> list[list[Tensor]]:
    """Per input requiring grad, its Jacobian with each floating output, column by column in
    forward mode: a one-hot tangent on a dual copy of the input, the outputs' tangents read."""
    from . import forward_ad as fw
    floating = [o for o in outputs if _is_float(o)]
    diff = [t for t in inputs if is_tensor_like(t) and t.requires_grad]
    jacobians = [[o.new_zeros((t.numel(), o.numel())) for o in floating] for t in diff]
    with fw.dual_level():
        tangents, duals = [], []
        for inp in inputs:
            if is_tensor_like(inp) and inp.requires_grad:
                inp = fw.make_dual(inp.detach(), T.zeros_like(inp))
                tangents.append(fw.unpack_dual(inp)[1])
            duals.append(inp)
        for i, tangent in enumerate(tangents):
            for k, at in enumerate(itertools.product(*[range(m) for m in tangent.size()])):
                tangent[at] = 1.0
                got = [o for o in as_tuple(func(*duals)) if _is_float(o)]
                for j, o in enumerate(got):
                    value, res = fw.unpack_dual(o)
                    if check_grad_dtypes and res is not None and res.dtype != value.dtype:
                        raise GradcheckError("Forward AD gradient has dtype mismatch.")
                    if res is None:
                        jacobians[i][j][k].zero_()
                    else:
                        jacobians[i][j][k].copy_(res.reshape(-1))
                tangent[at] = 0.0
    return jacobians


def _slow_gradcheck(func: Callable[..., Any], func_out: Any, inputs: tuple[Any, ...],
                    outputs: Tensors, eps: float, rtol: float, atol: float,
                    check_grad_dtypes: bool, nondet_tol: float,
                    use_forward_ad: bool = False) -> bool:
    func_out = as_tuple(func_out)
    if not outputs:
        return _check_no_differentiable_outputs(func, inputs, func_out, eps)
    by_output = list(zip(*_numerical_jacobian(func, inputs, func_out, eps), strict=False))
    numerical = [n for o, n in zip(func_out, by_output, strict=False) if o.requires_grad]
    if use_forward_ad:
        forward = _forward_jacobians(func, inputs, func_out, check_grad_dtypes)
        for i, per_input in enumerate(numerical):
            for j, n in enumerate(per_input):
                a = forward[j][i]
                if not _allclose(a, n, rtol, atol):
                    raise GradcheckError(_mismatch(a, n, i, j, "computed with forward mode "))
        return True
    for i, o in enumerate(outputs):
        analytical = _analytical_jacobian(inputs, o, nondet_tol, check_grad_dtypes)
        for j, (a, n) in enumerate(zip(analytical, numerical[i], strict=False)):
            if not _allclose(a, n, rtol, atol):
                raise GradcheckError(_mismatch(a, n, i, j))
    return True


def _unit_vector(t: Tensor, gen: Any) -> Tensor:
    vec = T.rand(t.numel(), generator=gen).to(dtype=t.dtype)
    vec /= vec.norm()
    return vec


def _numerical_jvp(func: Callable[..., Any], input_idx: int, inputs: Sequence[Any], u: Tensor,
                   eps: float) -> Tensors:
    data = inputs[input_idx].data
    delta = u.reshape(data.shape) * eps
    return _central_difference(_caller(func, inputs), data, delta, eps, eps)


def _fast_gradcheck(func: Callable[..., Any], func_out: Any, inputs: tuple[Any, ...],
                    outputs: Tensors, eps: float, rtol: float, atol: float,
                    check_grad_dtypes: bool, nondet_tol: float) -> bool:
    indices, diff = _grad_inputs(inputs)
    gen = T.Generator()       # NB: its own generator: the user's random state is left alone
    all_u = [_unit_vector(t, gen) for t in diff]
    all_v = [_unit_vector(o, gen) for o in outputs]
    numerical = []
    for idx, u in zip(indices, all_u, strict=False):
        jvps = [ju for ju, o in zip(_numerical_jvp(func, idx, inputs, u, eps), as_tuple(func_out),
                                    strict=False) if _is_float(o)]
        numerical.append([(v * ju).sum() for v, ju in zip(all_v, jvps, strict=False)])
    if not outputs:
        for idx, u in zip(indices, all_u, strict=False):
            for jvp in _numerical_jvp(func, idx, inputs, u, eps):
                if jvp.numel() and (jvp - T.zeros_like(jvp)).abs().max() > nondet_tol:
                    raise GradcheckError(_NOT_ZERO)
    analytical = []
    for o, v in zip(outputs, all_v, strict=False):
        rows = _analytical_jacobian(inputs, o, nondet_tol, check_grad_dtypes, v=v)
        analytical.append([r.T.squeeze(0).dot(u) for r, u in zip(rows, all_u, strict=False)])
    for i, per_input in enumerate(numerical):
        for j, n in enumerate(per_input):
            a = analytical[j][i]
            scaled_atol = atol * float(all_u[i].sum()) * float(all_v[j].sum())
            if not _allclose(a, n, rtol, scaled_atol):
                raise GradcheckError(_mismatch(a, n, j, i) + _slow_mode_error(
                    func, inputs, outputs, i, j, rtol, atol, eps))
    return True


def _slow_mode_error(func: Callable[..., Any], inputs: tuple[Any, ...], outputs: Tensors,
                     input_idx: int, output_idx: int, rtol: float, atol: float,
                     eps: float) -> str:
    """The full Jacobians of a fast-mode failure, for the message."""
    numerical = _numerical_jacobian(func, inputs, outputs, eps)[input_idx][output_idx]
    analytical = _analytical_jacobian(inputs, outputs[output_idx], float("inf"),
                                      False)[input_idx]
    text = _SLOW_RECOMPUTED.format(numerical, analytical,
                                   f"{(numerical - analytical).abs().max()}")
    if T.allclose(analytical, numerical, rtol, atol):
        text += FAST_FAIL_SLOW_OK_MSG
    return text


# -- the public functions -----------------------------------------------------------------------
def gradcheck(func: Callable[..., Any], inputs: Any, *, eps: float = 1e-6, atol: float = 1e-5,
              rtol: float = 1e-3, raise_exception: bool = True, nondet_tol: float = 0.0,
              check_undefined_grad: bool = True, check_grad_dtypes: bool = False,
              check_batched_grad: bool = False, check_batched_forward_grad: bool = False,
              check_forward_ad: bool = False, check_backward_ad: bool = True,
              fast_mode: bool = False, masked: bool | None = None) -> bool:
    """Check ``func``'s gradients with respect to the inputs that require grad against finite
    differences (meant for float64 inputs). Raises :class:`GradcheckError` on a mismatch, or
    returns ``False`` with ``raise_exception=False``.

    >>> import graphviz_autograd.torch as torch
    >>> x = torch.tensor([1.0, 3.0], dtype=torch.float64, requires_grad=True)
    >>> gradcheck(lambda a: a.exp() * a, x, fast_mode=True)
    True
    """
    if not (check_forward_ad or check_backward_ad):
        raise AssertionError("Expected at least one of check_forward_ad or check_backward_ad "
                             "to be True")
    if check_batched_grad and not check_backward_ad:
        raise AssertionError("Setting check_batched_grad=True requires check_backward_ad to be "
                             "True")
    if check_batched_forward_grad and not check_forward_ad:
        raise AssertionError("Setting check_batched_forward_grad=True requires "
                             "check_forward_ad to be True")
    if check_forward_ad and (fast_mode or check_batched_forward_grad):
        raise NotImplementedError(_NO_FORWARD_AD.format(
            "gradcheck", "fast_mode" if fast_mode else "check_batched_forward_grad"))
    try:
        return _gradcheck(func, as_tuple(inputs), eps, atol, rtol, nondet_tol,
                          check_undefined_grad, check_grad_dtypes, check_batched_grad,
                          fast_mode, bool(masked), check_forward_ad, check_backward_ad)
    except GradcheckError:
        if raise_exception:
            raise
        return False


def _gradcheck(func: Callable[..., Any], inputs: tuple[Any, ...], eps: float, atol: float,
               rtol: float, nondet_tol: float, check_undefined_grad: bool,
               check_grad_dtypes: bool, check_batched_grad: bool, fast_mode: bool,
               masked: bool, check_forward_ad: bool = False,
               check_backward_ad: bool = True) -> bool:
    _check_inputs(inputs)
    func_out = func(*inputs)
    outputs = differentiable_outputs(func_out)
    if check_backward_ad:
        check = _fast_gradcheck if fast_mode else _slow_gradcheck
        check(func, func_out, inputs, outputs, eps, rtol, atol, check_grad_dtypes, nondet_tol)
    if check_forward_ad:
        _slow_gradcheck(func, func_out, inputs, outputs, eps, rtol, atol, check_grad_dtypes,
                        nondet_tol, use_forward_ad=True)
    if not check_backward_ad:
        return True
    if check_batched_grad:
        for i, o in enumerate(outputs):
            verify_batched_grad(inputs, o, i)
    verify_backward_mul_by_grad_output(outputs, inputs, masked)
    if check_undefined_grad:
        verify_undefined_backward_mode(func, outputs, inputs)
    return True


def gradgradcheck(func: Callable[..., Any], inputs: Any, grad_outputs: Any = None, *,
                  eps: float = 1e-6, atol: float = 1e-5, rtol: float = 1e-3,
                  gen_non_contig_grad_outputs: bool = False, raise_exception: bool = True,
                  nondet_tol: float = 0.0, check_undefined_grad: bool = True,
                  check_grad_dtypes: bool = False, check_batched_grad: bool = False,
                  check_fwd_over_rev: bool = False, check_rev_over_rev: bool = True,
                  fast_mode: bool = False, masked: bool = False) -> bool:
    """:func:`gradcheck` of the gradients of ``func`` (computed with ``create_graph=True``) with
    respect to its inputs and to ``grad_outputs`` (random in ``[-1, 1)`` when not given, drawn
    from the global generator as PyTorch draws them).

    >>> import graphviz_autograd.torch as torch
    >>> x = torch.tensor([1.0, 3.0], dtype=torch.float64, requires_grad=True)
    >>> gradgradcheck(lambda a: (a ** 3).sum(), (x,))
    True
    """
    if not (check_fwd_over_rev or check_rev_over_rev):
        raise AssertionError("Expected at least one of check_fwd_over_rev or "
                             "check_rev_over_rev to be True")
    if check_undefined_grad and not check_rev_over_rev:
        raise AssertionError("Setting check_undefined_grad=True requires check_rev_over_rev "
                             "to be True")
    if check_batched_grad and not check_rev_over_rev:
        raise AssertionError("Setting check_batched_grad=True requires check_rev_over_rev to "
                             "be True")
    inputs = as_tuple(inputs)
    if grad_outputs is None:
        make = functools.partial(T.testing.make_tensor, low=-1, high=1, requires_grad=True,
                                 noncontiguous=gen_non_contig_grad_outputs, device="cpu")
        grad_outputs = tuple(make(o.shape, dtype=o.dtype if o.is_floating_point() else T.double)
                             for o in differentiable_outputs(func(*inputs)))
    grad_outputs = as_tuple(grad_outputs)
    n_out = len(grad_outputs)
    # NB: remembered now: the arguments the check passes back are the same tensors
    diff_inputs = {i for i, x in enumerate(inputs) if is_tensor_like(x) and x.requires_grad}
    diff_grads = {i for i, x in enumerate(grad_outputs) if x.requires_grad}

    def grads_of_func(*args: Any) -> Tensors:
        ins = tuple(x.requires_grad_() if i in diff_inputs else x
                    for i, x in enumerate(args[:-n_out]))
        outs = differentiable_outputs(func(*ins))
        gos = tuple(x.requires_grad_() if i in diff_grads else x
                    for i, x in enumerate(args[-n_out:]))
        wrt = tuple(x for i, x in enumerate(ins) if i in diff_inputs)
        got = grad(outs, wrt, gos, create_graph=True, allow_unused=True)
        return tuple(g for g in got if g is not None)

    return gradcheck(grads_of_func, inputs + grad_outputs, eps=eps, atol=atol, rtol=rtol,
                     raise_exception=raise_exception, nondet_tol=nondet_tol,
                     check_undefined_grad=check_undefined_grad,
                     check_grad_dtypes=check_grad_dtypes, check_batched_grad=check_batched_grad,
                     fast_mode=fast_mode, check_forward_ad=check_fwd_over_rev,
                     check_backward_ad=check_rev_over_rev, masked=masked)


def get_numerical_jacobian(fn: Callable[..., Any], inputs: Any, target: Any = None,
                           eps: float = 1e-3, grad_out: float = 1.0) -> Tensors:
    """Deprecated in PyTorch (a ``FutureWarning``): the Jacobians of ``fn(inputs)``'s first
    output with respect to each input (or ``target``) that requires grad."""
    warnings.warn(_DEPRECATED.format("get_numerical_jacobian"), FutureWarning, stacklevel=2)
    if grad_out != 1.0:
        raise ValueError(_GRAD_OUT.format("get_numerical_jacobian"))
    packed = lambda *inps: fn(inps)  # noqa: E731 -- fn takes its inputs as one tuple
    outputs = as_tuple(packed(*as_tuple(inputs)))
    target = inputs if target is None else target
    indices, _ = _grad_inputs(target)
    jacobians = [get_numerical_jacobian_wrt_specific_input(packed, i, inputs, outputs, eps,
                                                           input=inp)
                 for inp, i in zip(iter_tensors(target, True), indices, strict=False)]
    return tuple(per_output[0] for per_output in jacobians)


def get_analytical_jacobian(inputs: Any, output: Tensor, nondet_tol: float = 0.0,
                            grad_out: float = 1.0) -> tuple[Tensors, bool, bool, bool]:
    """Deprecated in PyTorch (a ``FutureWarning``): ``(jacobians, reentrant, sizes_ok,
    types_ok)`` of ``output`` with respect to the inputs that require grad."""
    warnings.warn(_DEPRECATED.format("get_analytical_jacobian"), FutureWarning, stacklevel=2)
    if grad_out != 1.0:
        raise ValueError(_GRAD_OUT.format("get_analytical_jacobian"))
    vjp = _vjp_fn(inputs, output)
    first, sizes_ok, types_ok = _stack_rows(_jacobian_rows(vjp, output.clone()), inputs,
                                            output.numel())
    again, _, _ = _stack_rows(_jacobian_rows(vjp, output.clone()), inputs, output.numel())
    # NB: PyTorch 2.13 returns the two flags crossed, as its gradcheck reads them
    return first, _jacobians_equal(first, again, nondet_tol), types_ok, sizes_ok

