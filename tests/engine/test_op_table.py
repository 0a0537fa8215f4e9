"""Every entry of the op table, exercised through the torch API and checked three ways.

* against real PyTorch (skipped without it): forward values, the canonical graph of the output
  (node names, ``next_functions`` slots, tensor-valued ``_saved_*`` names) before and after one
  backward, and every input's ``.grad`` after that backward with a fixed upstream gradient;
* against central finite differences in float64 (no PyTorch needed);
* for coverage: each ``TABLE`` key has examples (or a reason in ``INTERNAL_ONLY``), and at
  least one of its examples builds a node of that op.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import numpy as np
import pytest
from _markers import requires_torch

import graphviz_autograd.torch as ours
from graphviz_autograd.engine.optable import TABLE

from ._op_examples import (
    INPUTS,
    build_inputs,
    compact_graph,
    input_names,
    load_harness,
    run_snippet,
    to_array,
)

# Snippets use the inputs of ``_op_examples.INPUTS``: a, b (3,), p (3,) positive, q (3,) in
# (0, 1), s 0-dim, bb (2,), A, M (2, 3), B (3, 2), N (2, 2), U (1, 3), X (2, 2, 3), Y (2, 3, 2),
# C (1, 2, 4, 4) an image batch, W (3, 2, 2, 2) a conv weight: float, requiring grad; c (3,),
# r (3,) in [0, 1], wt (3,): float, no grad; I (2, 2) int index into A's dim 1, K (2, 3) bool
# mask, tgt (2,) int class targets. ``dgrad(out, wrt, upstream)``
# is ``torch.autograd.grad(out, wrt, upstream, create_graph=True)[0]``: its graph is made of the
# nodes the backward formulas create.
EXAMPLES: dict[str, list[str]] = {
    # -- arithmetic -------------------------------------------------------------------------------
    "add": ["a + b", "a + c", "c + a", "a + 1.5", "2 + a", "torch.add(a, b, alpha=2)", "A + a",
            "A + s", "t = a.clone(); t.add_(b); t", "t = a.clone(); t += 1; t"],
    "sub": ["a - b", "a - 1.5", "c - a", "torch.sub(a, b, alpha=2)", "A - a",
            "t = a.clone(); t -= b; t"],
    "rsub": ["1.5 - a", "2 - A"],
    "mul": ["a * b", "a * a", "a * c", "c * a", "a * 2", "2.5 * a", "a * torch.tensor(2)",
            "A * a", "a * s", "U.t() * a", "t = a.clone(); t.mul_(b); t",
            "t = a.clone(); t *= 3; t", "dgrad(a * b, a, p)"],
    "mul_scalar": ["dgrad(a ** 3, a, b)", "dgrad(torch.add(a, b, alpha=2), b, p)"],
    "div": ["a / b", "a / c", "c / a", "a / 2", "2 / a", "A / a", "a / s",
            "t = a.clone(); t /= b; t",
            "dgrad(a / b, b, p)"],
    "div_scalar": ["dgrad(A.mean(), A, s)", "dgrad(A.mean(dim=1), A, bb)"],
    # NB: no quotient exactly whole (a jump, where finite differences fail)
    "div_mode": ["torch.div(a, b, rounding_mode='floor')", "b.div(p, rounding_mode='trunc')",
                 "torch.div(A, 0.35, rounding_mode='floor')", "b.div(c, rounding_mode='trunc')",
                 "t = b.clone(); t.div_(p, rounding_mode='floor'); t", "dgrad(a % b, b, p)"],
    "remainder": ["a % b", "torch.remainder(A, p)", "b % c", "c % a", "a % torch.tensor(0.7)",
                  "A % a", "t = a.clone(); t %= b; t", "t = b.clone(); t.remainder_(p); t",
                  "dgrad(a % b, b, p)"],
    "remainder_scalar": ["a % 0.7", "A.remainder(2)", "t = a.clone(); t %= 0.5; t"],
    "fmod": ["torch.fmod(a, b)", "A.fmod(p)", "t = a.clone(); t.fmod_(b); t",
             "dgrad(torch.fmod(a, b), b, p)"],
    "fmod_scalar": ["torch.fmod(a, 0.7)", "t = a.clone(); t.fmod_(0.4); t"],
    "floor_divide": ["a // b", "a // 0.5", "torch.floor_divide(A, p)", "c // a", "2 // a",
                     "a.floor_divide(c)"],
    "floor_divide_": ["t = a.clone(); t //= 0.5; t", "t = a.clone(); t.floor_divide_(b); t"],
    "remainder_of_scalar": ["2.0 % a", "torch.remainder(1.5, A)"],
    "neg": ["-a", "a.neg()", "torch.neg(A)"],
    "pow": ["a ** 2", "p ** 0.5", "a.pow(3)", "a ** -2", "torch.pow(p, -1.5)", "a ** 0",
            "t = a.clone(); t.pow_(2); t", "dgrad(p ** 2.5, p, b)"],
    "pow_tensor": ["p ** b", "p ** c", "torch.pow(p, A)", "p ** s", "c.abs() ** a"],
    "rpow": ["2 ** a", "1.5 ** A"],
    "maximum": ["torch.maximum(a, b)", "torch.max(a, b)", "torch.maximum(a, c)"],
    "minimum": ["torch.minimum(a, b)", "torch.min(A, M)"],
    "where": ["torch.where(a > 0, a, b)", "torch.where(a > 0, a, 0.0)",
              "torch.where(a > 0, c, a)", "torch.where(K, A, M)", "torch.where(K, A, a)"],
    "clamp": ["a.clamp(min=-1.0, max=1.0)", "a.clamp(min=0.0)", "a.clamp(max=1.0)",
              "torch.clamp(A, -1.0, 1.0)", "a.clamp(-1, 1)",
              "t = a.clone(); t.clamp_(-1.0, 1.0); t"],
    "clamp_min": ["a.clamp_min(0.0)", "t = a.clone(); t.clamp_min_(0.25); t"],
    "clamp_max": ["a.clamp_max(0.5)", "torch.clamp_max(A, 0.0)"],
    "clamp_tensor": ["a.clamp(min=c)", "a.clamp(min=c, max=p)", "a.clamp(max=b)"],
    # -- unary ------------------------------------------------------------------------------------
    "exp": ["a.exp()", "torch.exp(A)", "a.clone().exp_()", "dgrad(a.exp(), a, b)"],
    "log": ["p.log()", "torch.log(p)", "dgrad(p.log(), p, b)"],
    "sin": ["a.sin()", "dgrad(a.sin(), a, b)"],
    "cos": ["a.cos()", "dgrad(a.cos(), a, b)"],
    "tan": ["a.tan()"],
    "tanh": ["a.tanh()", "torch.tanh(A)"],
    "sigmoid": ["a.sigmoid()", "torch.sigmoid(A)"],
    "relu": ["A.relu()", "F.relu(A)", "a.clone().relu_()"],
    "abs": ["a.abs()", "abs(A)"],
    "sqrt": ["p.sqrt()", "dgrad(p.sqrt(), p, b)"],
    "rsqrt": ["p.rsqrt()"],
    "reciprocal": ["a.reciprocal()", "dgrad(a.reciprocal(), a, b)"],
    "sgn": ["a.sgn()"],
    "sign": ["a.sign()"],
    "log1p": ["p.log1p()"],
    "expm1": ["a.expm1()"],
    "log2": ["p.log2()"],
    "log10": ["p.log10()", "torch.log10(p)"],
    "exp2": ["a.exp2()", "dgrad(a.exp2(), a, b)"],
    "sinh": ["a.sinh()", "dgrad(a.sinh(), a, b)"],
    "cosh": ["a.cosh()", "torch.cosh(a)"],
    "atan": ["a.atan()"],
    "asin": ["q.asin()"],
    "acos": ["q.acos()"],
    "asinh": ["a.asinh()"],
    "acosh": ["(p + 1).acosh()"],
    "atanh": ["q.atanh()"],
    "atan2": ["torch.atan2(a, b)", "a.atan2(c)", "torch.atan2(A, a)",
              "t = a.clone(); t.atan2_(b); t", "torch.arctan2(A, a)"],
    "floor": ["a.floor()"],
    "ceil": ["a.ceil()"],
    "round": ["a.round()"],
    "trunc": ["a.trunc()"],
    "leaky_relu": ["F.leaky_relu(a)", "F.leaky_relu(A, 0.2)"],
    "logit": ["q.logit()", "torch.logit(q, 0.25)", "q.logit(eps=0.3)", "dgrad(q.logit(), q, b)"],
    "elu": ["F.elu(a)", "F.elu(A, alpha=0.5)"],
    "silu": ["F.silu(a)"],
    "gelu": ["F.gelu(a)", "F.gelu(A, approximate='tanh')"],
    "softplus": ["F.softplus(a)", "F.softplus(A, beta=2.0)"],
    "tanh_backward": ["dgrad(a.tanh(), a, b)"],
    "sigmoid_backward": ["dgrad(a.sigmoid(), a, b)"],
    "threshold_backward": ["dgrad(A.relu(), A, M)"],
    "smooth_l1_loss_backward": ["dgrad(F.smooth_l1_loss(a, b), a, s)",
                                "dgrad(F.smooth_l1_loss(A, M, reduction='none', beta=2.0), A, M)",
                                "dgrad(F.smooth_l1_loss(a, b, reduction='sum'), b, s)"],
    "nll_loss_backward": ["dgrad(F.nll_loss(A, tgt), A, s)",
                          "dgrad(F.cross_entropy(A, tgt, reduction='sum'), A, s)",
                          "dgrad(F.nll_loss(A, tgt, reduction='none'), A, bb)",
                          "dgrad(F.nll_loss(A.log_softmax(1), tgt, weight=wt), A, s)"],
    "leaky_relu_backward": ["dgrad(F.leaky_relu(a, 0.2), a, b)"],
    "hardtanh_backward": ["dgrad(F.hardtanh(A), A, M)", "dgrad(F.hardtanh(a, -0.5, 0.5), a, b)"],
    "elu_backward": ["dgrad(F.elu(a), a, b)", "dgrad(F.elu(A, alpha=0.5), A, M)"],
    "softplus_backward": ["dgrad(F.softplus(a), a, b)", "dgrad(F.softplus(A, beta=2.0), A, M)"],
    "gelu_backward": ["dgrad(F.gelu(a), a, b)", "dgrad(F.gelu(A, approximate='tanh'), A, M)"],
    "sub_scalar": ["dgrad((p + 1).acosh(), p, b)", "dgrad(p ** b, b, c)"],
    # -- fused and special elementwise ops (ops_special) -------------------------------------------
    "addcmul": ["torch.addcmul(a, b, c)", "torch.addcmul(a, b, p, value=2)",
                "torch.addcmul(c, a, b, value=0.5)", "A.addcmul(a, M)",
                "t = a.clone(); t.addcmul_(b, p, value=-1.5); t",
                "torch.addcmul(a, torch.ones(3), torch.full((3,), 2.0))"],
    "addcdiv": ["torch.addcdiv(a, b, p)", "torch.addcdiv(a, b, c, value=0.5)",
                "torch.addcdiv(c, c, p, value=2)", "A.addcdiv(M, p)",
                "t = a.clone(); t.addcdiv_(b, p, value=0.3); t",
                "torch.addcdiv(a, torch.ones(3), torch.full((3,), 2.0))",
                "t = a.clone(); t.addcdiv_(torch.ones(3), torch.full((3,), 2.0)); t"],
    "lerp": ["torch.lerp(a, b, 0.3)", "a.lerp(c, 0.8)", "torch.lerp(A, a, 0.5)",
             "t = a.clone(); t.lerp_(b, 0.25); t"],
    "lerp_tensor": ["torch.lerp(a, b, q)", "torch.lerp(a, b, c)", "a.lerp(c, q)",
                    "torch.lerp(A, M, q)", "t = a.clone(); t.lerp_(b, q); t"],
    "erf": ["a.erf()", "torch.erf(A)", "a.clone().erf_()", "torch.special.erf(a)"],
    "erfc": ["torch.erfc(a)", "a.clone().erfc_()"],
    "erfinv": ["q.erfinv()", "torch.special.erfinv(q * 2 - 1)", "(s / 2).erfinv()"],
    "lgamma": ["p.lgamma()", "torch.lgamma(a)", "torch.special.gammaln(p)"],
    "digamma": ["p.digamma()", "torch.special.psi(a)", "dgrad(p.lgamma(), p, b)"],
    "polygamma": ["torch.polygamma(1, p)", "p.polygamma(2)", "torch.special.polygamma(3, a)",
                  "dgrad(p.digamma(), p, b)"],
    "xlogy_scalar": ["torch.xlogy(a, 2.0)", "a.xlogy(0.5)", "t = a.clone(); t.xlogy_(3); t",
                     "torch.xlogy(a * 0, -1.0)"],
    "xlogy_of_scalar": ["torch.xlogy(2.0, p)", "torch.xlogy(-1.5, A.abs())"],
    "hypot": ["torch.hypot(a, b)", "a.hypot(c)", "torch.hypot(A, a)",
              "t = a.clone(); t.hypot_(b); t"],
    "logaddexp": ["torch.logaddexp(a, b)", "torch.logaddexp(A, c)"],
    "logaddexp2": ["torch.logaddexp2(a, b)", "a.logaddexp2(A)"],
    "sinc": ["a.sinc()", "torch.sinc(A)", "torch.special.sinc(p)"],
    "frac": ["a.frac()", "torch.frac(A * 3)", "a.clone().frac_()"],
    "nan_to_num": ["torch.nan_to_num(a.log())", "torch.nan_to_num(A, nan=1.0, posinf=2.0)",
                   "A.log().nan_to_num(nan=-3.0)", "t = a.log(); t.nan_to_num_(); t"],
    "heaviside": ["torch.heaviside(a, b)", "torch.heaviside(a, c)", "torch.heaviside(c, a)"],
    # -- comparisons in place, unique, poisson (engine/predicates.py, searching.py) -------------
    "eq_": ["t = a * 1; t.eq_(2); t"], "ne_": ["t = A * 1; t.ne_(0); t"],
    "lt_": ["t = a * 1; t.lt_(0.25); t"], "le_": ["t = A * 1; t.less_equal_(0); t"],
    "gt_": ["t = a * 1; t.gt_(0); t"], "ge_": ["t = a * 1; t.greater_equal_(0.5); t"],
    "eq_tensor_": ["t = a * 1; t.eq_(b); t"], "ne_tensor_": ["t = A * 1; t.ne_(a); t"],
    "lt_tensor_": ["t = a * 1; t.lt_(c); t"], "le_tensor_": ["t = a * 1; t.le_(b); t"],
    "gt_tensor_": ["t = A * 1; t.gt_(b); t"], "ge_tensor_": ["t = a * 1; t.ge_(s); t"],
    "unique": ["torch.unique(a)"], "unique_dim": ["torch.unique(A, dim=1)"],
    "unique_consecutive": ["torch.unique_consecutive(a)"],
    "poisson": ["torch.manual_seed(0); torch.poisson(p * 3)"],
    # -- activations (ops_activation) --------------------------------------------------------------
    "elu_": ["t = a * 1; F.elu_(t); t", "t = A * 1; F.elu(t, 0.5, inplace=True); t",
             "t = a * 1; F.selu_(t); t", "t = A * 1; F.selu(t, inplace=True); t"],
    "celu": ["F.celu(a)", "F.celu(A, 0.5)", "torch.nn.CELU(2.0)(a)", "torch.celu(a, 0.3)"],
    "celu_": ["t = a * 1; F.celu_(t); t", "t = A * 1; F.celu(t, 0.5, inplace=True); t"],
    "leaky_relu_": ["t = a * 1; F.leaky_relu_(t); t",
                    "t = A * 1; F.leaky_relu(t, 0.2, inplace=True); t"],
    "hardswish": ["F.hardswish(A * 3)", "F.hardswish(a)", "t = A * 3; F.hardswish(t, True); t"],
    "hardswish_backward": ["dgrad(F.hardswish(A * 3), A, M)"],
    "hardsigmoid": ["F.hardsigmoid(A * 3)", "t = A * 3; F.hardsigmoid(t, inplace=True); t"],
    "hardsigmoid_backward": ["dgrad(F.hardsigmoid(A * 3), A, M)"],
    "mish": ["F.mish(a)", "torch.nn.Mish()(A)", "t = a * 1; F.mish(t, inplace=True); t"],
    "threshold": ["F.threshold(a, 0.5, 2.0)", "torch.nn.Threshold(0.1, -1.0)(A)",
                  "torch.threshold(a, 0.1, 2.0)"],
    "threshold_": ["t = a * 1; F.threshold_(t, 0.5, 2.0); t",
                   "t = A * 1; F.threshold(t, 0.1, 0.0, inplace=True); t"],
    "hardshrink": ["F.hardshrink(a)", "F.hardshrink(A, 0.7)", "a.hardshrink(0.3)",
                   "torch.hardshrink(A)"],
    "hardshrink_backward": ["dgrad(F.hardshrink(a), a, b)"],
    "softshrink": ["F.softshrink(a)", "torch.nn.Softshrink(0.7)(A)"],
    "softshrink_backward": ["dgrad(F.softshrink(A, 0.7), A, M)"],
    "glu": ["F.glu(X, 1)", "F.glu(torch.cat([a, b]), 0)", "F.glu(Y)", "torch.nn.GLU(0)(X)"],
    "glu_backward": ["dgrad(F.glu(X, 1), X, X[:, :1])"],
    "prelu": ["F.prelu(A, bb[:1] + 0.1)", "F.prelu(a, bb[1:])", "F.prelu(A, p)",
              "F.prelu(X, bb)", "F.prelu(C, bb)", "torch.prelu(a, c[:1])",
              "F.prelu(s, bb[1:])"],
    # NB: in evaluation PyTorch leaves the noise buffer unwritten (test_pointwise_extra)
    "rrelu_with_noise": ["torch.manual_seed(0); F.rrelu(a, training=True)",
                         "torch.manual_seed(1); torch.nn.RReLU(0.1, 0.5)(A)"],
    "rrelu_with_noise_": ["torch.manual_seed(2); t = A * 1; F.rrelu_(t, training=True); t",
                          "torch.manual_seed(3); t = a * 1; F.rrelu(t, 0.2, 0.3, True, True); t"],
    "rrelu_with_noise_backward": ["torch.manual_seed(0); dgrad(F.rrelu(A, training=True), A, M)"],
    "prelu_kernel_backward": ["dgrad(F.prelu(A, p), A, M)", "dgrad(F.prelu(X, bb), bb, X)"],
    # -- random draws of parameters that require grad (engine/ops_random.py) ---------------------
    "normal_tensor_tensor": ["torch.manual_seed(0); torch.normal(a, p)",
                             "torch.manual_seed(1); torch.normal(A, M * M + 0.5)"],
    "normal_tensor_float": ["torch.manual_seed(0); torch.normal(a, 2.0)"],
    "normal_float_tensor": ["torch.manual_seed(0); torch.normal(1.5, p)"],
    "bernoulli": ["torch.manual_seed(0); torch.bernoulli(q)",
                  "torch.manual_seed(1); q.bernoulli()"],
    "binomial": ["torch.manual_seed(0); torch.binomial(p * 10, q)"],
    "bernoulli_p": ["torch.manual_seed(0); torch.bernoulli(a, 0.3)"],
    "normal_": ["torch.manual_seed(0); t = a * 1; t.normal_(); t",
                "torch.manual_seed(1); t = A * 1; t.t().normal_(2.0, 3.0); t"],
    "uniform_": ["torch.manual_seed(0); t = a * 1; t.uniform_(-1, 2); t"],
    "bernoulli_": ["torch.manual_seed(0); t = a * 1; t.bernoulli_(0.3); t"],
    "random_": ["torch.manual_seed(0); t = a * 1; t.random_(); t"],
    "random_to": ["torch.manual_seed(0); t = a * 1; t.random_(7); t"],
    "random_from_to": ["torch.manual_seed(0); t = a * 1; t.random_(-3, 4); t",
                       "torch.manual_seed(0); t = A * 1; t[0].random_(-3, 4); t"],
    "exponential_": ["torch.manual_seed(0); t = a * 1; t.exponential_(); t"],
    "cauchy_": ["torch.manual_seed(0); t = a * 1; t.cauchy_(0.5, 2.0); t"],
    "geometric_": ["torch.manual_seed(0); t = a * 1; t.geometric_(0.3); t"],
    "log_normal_": ["torch.manual_seed(0); t = a * 1; t.log_normal_(); t"],
    "bernoulli_tensor": ["torch.manual_seed(0); t = A * 1; t.bernoulli_(q); t",
                         "torch.manual_seed(1); t = torch.zeros_like(q); t.bernoulli_(q); t"],
    "cholesky_inverse": ["torch.cholesky_inverse(torch.tril(N) + 2 * torch.eye(2))",
                         "torch.cholesky_inverse(torch.triu(N) + 2 * torch.eye(2), upper=True)"],
    "standard_gamma": ["torch.manual_seed(0); torch._standard_gamma(p)",
                       "torch.manual_seed(1); torch._standard_gamma(A * A + 0.2)"],
    # -- reductions -------------------------------------------------------------------------------
    "sum": ["A.sum()", "torch.sum(X)", "s.sum()"],
    "sum_dim": ["A.sum(dim=0)", "A.sum(1, keepdim=True)", "X.sum((0, 2))", "X.sum(-1)",
                "s.sum(0)", "A.sum([])", "torch.einsum('ij->j', A)",
                "torch.einsum('ij,k->i', A, bb)", "torch.einsum('i,j->ij', a, bb)",
                "dgrad(A.sum(-1), A, bb)"],
    "mean": ["A.mean()"],
    "mean_dim": ["A.mean(dim=0)", "A.mean(1, keepdim=True)", "X.mean((0, 2))",
                 "s.mean(-1, keepdim=True)", "dgrad(A.mean(-1), A, bb)"],
    "max": ["A.max()"],
    "min": ["A.min()"],
    "amax": ["A.amax(dim=1)", "X.amax((0, 2), keepdim=True)"],
    "max_dim": ["A.max(dim=1)[0]", "A.max(dim=0, keepdim=True).values", "torch.max(X, 2)[0]",
                "(v := s.max(-1)[0]) * v", "dgrad(A.max(-1)[0], A, bb)"],
    "min_dim": ["A.min(dim=1)[0]", "A.min(0).values", "s.min(0).values", "(v := s.min(0)[0]) * v"],
    "median_dim": ["A.median(dim=1)[0]", "A.median(0, keepdim=True).values",
                   "torch.median(X, 2)[0]", "s.median(-1).values",
                   "(v := s.median(0)[0]) * v"],
    "scatter": ["dgrad(A.max(dim=1)[0], A, bb)", "dgrad(A.min(dim=0)[0], A, b)",
                "A.scatter(1, torch.tensor([[2, 0], [1, 0]]), N)",
                "torch.scatter(A, 0, I.t()[1:], U[:, :2])",
                "t = A.clone(); t.scatter_(1, torch.tensor([[0, 1], [2, 0]]), N); t"],
    "prod": ["a.prod()", "A.prod()", "(a * torch.tensor([0.0, 1.0, 1.0])).prod()",
             "(A * torch.tensor([1.0, 0.0, 1.0])).prod()"],
    "prod_dim": ["A.prod(dim=1)", "A.prod(0, keepdim=True)",
                 "(A * torch.tensor([1.0, 0.0, 1.0])).prod(-1)",
                 "(A * torch.tensor([[0.0], [1.0]])).prod(0, keepdim=True)"],
    "var": ["A.var()", "A.var(dim=1)", "A.var(0, unbiased=False)", "A.var(dim=1, correction=0)",
            "X.var((0, 2), keepdim=True)", "dgrad(A.var(-1), A, bb)",
            "dgrad(X.var((0, -1)), X, bb)"],
    "std": ["A.std()", "A.std(dim=1, keepdim=True)", "A.std(unbiased=False)"],
    "norm": ["A.norm()", "a.norm()", "A.norm(dim=1)", "X.norm(dim=(1, 2))", "a.norm(p=1)",
             "A.norm(p=float('inf'), dim=1)", "a.norm(p=3)", "A.norm(p=1.5, dim=0)",
             "a.norm(p=0.5)", "dgrad(a.norm(p=1), a, s)", "dgrad(A.norm(p=3, dim=1), A, bb)"],
    "logsumexp": ["A.logsumexp(dim=1)", "A.logsumexp(1, keepdim=True)", "X.logsumexp((0, 2))",
                  "dgrad(A.logsumexp(-1), A, bb)"],
    "cumsum": ["a.cumsum(0)", "A.cumsum(dim=1)", "X.cumsum(-1)", "s.cumsum(0)"],
    # -- matmul family ----------------------------------------------------------------------------
    "mm": ["A @ B", "torch.mm(A, B)", "B.t() @ A.t()", "F.linear(A, M)", "dgrad(A @ B, A, N)",
           "torch.tensordot(X, Y, dims=([1, 2], [0, 1]))"],
    "mv": ["A @ a", "torch.mv(A, b)", "X @ a", "dgrad(A @ a, A, bb)", "dgrad(A @ a, a, bb)"],
    "dot": ["a @ b", "torch.dot(a, c)", "torch.tensordot(A, M)"],
    "bmm": ["torch.bmm(X, Y)", "X @ Y", "Y.transpose(1, 2) @ X.transpose(1, 2)", "a @ Y",
            "torch.einsum('ij,jk->ik', A, B)", "torch.einsum('bij,bjk->bik', X, Y)",
            "torch.einsum('...ij,jk', X, B)", "torch.einsum('i,i->', a, b)",
            "torch.einsum('ij,jk,kl->il', A, B, N)", "torch.einsum('ii,i', N, bb)"],
    "addmm": ["torch.addmm(bb, A, B)", "torch.addmm(bb, A, B, beta=0.5, alpha=2.0)",
              "F.linear(A, M, bb)", "F.linear(a, M, bb)", "F.linear(X, M, bb)"],
    "addmv": ["torch.addmv(bb, A, a)", "torch.addmv(s, A, c, beta=0.5, alpha=2.0)",
              "bb.addmv(A, b)", "dgrad(torch.addmv(bb, A, a), A, bb)",
              "t = bb.clone(); t.addmv_(A, a, beta=0.5); t"],
    "addr": ["torch.addr(A, bb, a)", "torch.addr(a, bb, b, beta=2.0, alpha=0.5)",
             "dgrad(torch.addr(A, bb, a), bb, A)", "t = A.clone(); t.addr_(bb, a); t"],
    "addbmm": ["torch.addbmm(N, X, Y)", "torch.addbmm(bb, X, Y, beta=0.5, alpha=2.0)",
               "t = N.clone(); t.addbmm_(X, Y, alpha=2); t"],
    "vdot": ["torch.vdot(a, b)", "a.vdot(c)", "dgrad(torch.vdot(a, b), a, s)"],
    "linalg_cross": ["torch.linalg.cross(a, b)", "torch.linalg.cross(A, U)",
                     "torch.cross(A, M, dim=1)", "dgrad(torch.linalg.cross(a, b), a, p)"],
    "dist": ["torch.dist(a, b)", "torch.dist(A, a, p=3)", "A.dist(M, 1)",
             "torch.dist(A, a, float('inf'))", "dgrad(torch.dist(A, a), a, s)",
             "dgrad(torch.dist(A, M, 1.5), A, s)"],
    "cdist": ["torch.cdist(A, M)", "torch.cdist(A, B.t(), p=1)", "torch.cdist(X, Y.mT, p=3)"],
    "euclidean_dist": ["torch.cdist(A, M, compute_mode='use_mm_for_euclid_dist')",
                       "torch.cdist(X, U, compute_mode='use_mm_for_euclid_dist')"],
    # -- linear algebra ---------------------------------------------------------------------------
    "linalg_inv_ex": ["torch.linalg.inv(N)", "N.inverse()", "torch.matrix_power(N, -2)",
                      "torch.linalg.inv_ex(N).inverse", "dgrad(torch.linalg.inv(N), N, N)"],
    "linalg_det": ["torch.linalg.det(N)", "torch.det(X[:, :, :2])",
                   "dgrad(torch.linalg.det(N), N, s)"],
    "linalg_slogdet": ["torch.linalg.slogdet(N)[1]", "torch.logdet(N @ N.t())",
                       "dgrad(torch.linalg.slogdet(X[:, :, :2])[1], X, bb)"],
    "linalg_solve_ex": ["torch.linalg.solve(N, bb)", "torch.linalg.solve(N, A)",
                        "torch.linalg.solve(X[:, :, :2], X)",
                        "dgrad(torch.linalg.solve(N, bb), N, a[:2])",
                        "dgrad(torch.linalg.solve(N, A), A, M)",
                        "torch.linalg.solve(N, B, left=False)"],
    "linalg_cholesky_ex": ["torch.linalg.cholesky(N @ N.t() + torch.eye(2))",
                           "torch.linalg.cholesky(N @ N.t() + torch.eye(2), upper=True)",
                           "dgrad(torch.linalg.cholesky(N @ N.t() + torch.eye(2)), N, N)"],
    "cholesky": ["torch.cholesky(N @ N.t() + torch.eye(2))"],
    "linalg_svd": ["torch.linalg.svdvals(A)", "torch.linalg.matrix_norm(X, 'nuc')",
                   "torch.linalg.svd(B, full_matrices=False).S"],
    "linalg_eigh": ["torch.linalg.eigvalsh(N @ N.t())", "torch.linalg.eigh(N + N.t())[0]"],
    "linalg_qr": ["torch.linalg.qr(B)[0]", "torch.linalg.qr(B).R", "torch.linalg.qr(A).Q",
                  "torch.linalg.qr(X).R"],
    "linalg_pinv": ["torch.linalg.pinv(A)", "torch.pinverse(X)"],
    "linalg_lstsq": ["torch.linalg.lstsq(B, M.t()).solution", "torch.linalg.lstsq(A, N).solution",
                     "torch.linalg.lstsq(X, X * 2).solution",
                     "dgrad(torch.linalg.lstsq(B, M.t()).solution, B, N)",
                     "dgrad(torch.linalg.lstsq(A, N).solution, A, B)",
                     "dgrad(torch.linalg.lstsq(B, M.t()).solution, M, N)"],
    "linalg_ldl_factor_ex": ["torch.linalg.ldl_factor(N + N.t()).LD",
                             "torch.linalg.ldl_factor_ex(X[:, :, :2]).LD"],
    "linalg_ldl_solve": ["torch.linalg.ldl_solve(*torch.linalg.ldl_factor(N.detach() + 3), M)",
                         "torch.linalg.ldl_solve(*torch.linalg.ldl_factor(N + N.t()), M)"],
    "geqrf": ["torch.geqrf(A.t()).a", "torch.geqrf(N)[1]"],
    "ormqr": ["torch.ormqr(B, bb, M.t())", "torch.ormqr(B, bb, M.t(), transpose=True)",
              "torch.ormqr(B, bb * 0.5, M, left=False)"],
    "linalg_lu_factor_ex": ["torch.linalg.lu_factor(N).LU", "torch.linalg.lu_factor_ex(N * 2).LU",
                            "torch.lu_unpack(*torch.linalg.lu_factor(N)).U",
                            "dgrad(torch.linalg.lu_factor(N).LU, N, N)",
                            "dgrad(torch.linalg.lu_factor(X[:, :, :2]).LU, X, X[:, :, 1:])"],
    "linalg_lu": ["torch.linalg.lu(N).L", "torch.linalg.lu(N * 2).U",
                  "sum(torch.linalg.lu(N)[1:])", "dgrad(torch.linalg.lu(N).U, N, N)",
                  "dgrad(sum(torch.linalg.lu(X[:, :, :2])[1:]), X, X[:, :, 1:])"],
    "lu_unpack": ["torch.lu_unpack(N, torch.tensor([2, 2], dtype=torch.int32)).U",
                  "torch.lu_unpack(A, torch.tensor([2, 2], dtype=torch.int32))[1]",
                  "torch.lu_unpack(B, torch.tensor([3, 2], dtype=torch.int32)).L",
                  "sum(torch.lu_unpack(N, torch.tensor([1, 2], dtype=torch.int32))[1:])",
                  "dgrad(torch.lu_unpack(A, torch.tensor([2, 2], dtype=torch.int32))[1], A, N)",
                  "dgrad(torch.lu_unpack(B, torch.tensor([3, 2], dtype=torch.int32))[2], B, N)",
                  "dgrad(torch.lu_unpack(A, torch.tensor([2, 2], dtype=torch.int32))[2], A, M)"],
    "linalg_lu_solve": ["torch.linalg.lu_solve(*torch.linalg.lu_factor(N), M)",
                        "dgrad(torch.linalg.lu_solve(*torch.linalg.lu_factor(N), M), N, M)",
                        "dgrad(torch.linalg.lu_solve(*torch.linalg.lu_factor(N), M), M, M)",
                        "dgrad(torch.linalg.lu_solve(*torch.linalg.lu_factor(N), B, left=False, "
                        "adjoint=True), N, B)",
                        "torch.linalg.lu_solve(*torch.linalg.lu_factor(N), B, left=False, "
                        "adjoint=True)"],
    "triangular_solve": ["torch.triangular_solve(M, N + 3 * torch.eye(2)).solution",
                         "torch.triangular_solve(M, N + 3 * torch.eye(2), upper=False, "
                         "transpose=True).solution",
                         "dgrad(torch.triangular_solve(M, N + 3 * torch.eye(2)).solution, N, A)",
                         "dgrad(torch.triangular_solve(M, N + 3 * torch.eye(2), upper=False, "
                         "transpose=True).solution, N, A)",
                         "dgrad((lambda r: r[0].sum() + (r[1] ** 2).sum())("
                         "torch.triangular_solve(M, N + 3 * torch.eye(2))), N, s)"],
    "cholesky_solve": ["torch.cholesky_solve(M, N.tril() + 2 * torch.eye(2))",
                       "dgrad(torch.cholesky_solve(M, N.tril() + 2 * torch.eye(2)), N, A)",
                       "dgrad(torch.cholesky_solve(M, N.tril() + 2 * torch.eye(2)), M, A)",
                       "M.cholesky_solve(N.triu() + 2 * torch.eye(2), upper=True)"],
    "linalg_solve_triangular": ["torch.linalg.solve_triangular(N + 2, A, upper=True)",
                                "torch.linalg.solve_triangular(N + 2, B, upper=False, left=False,"
                                " unitriangular=True)",
                                "dgrad(torch.linalg.solve_triangular(N + 2, A, upper=True), N, A)",
                                "dgrad(torch.linalg.solve_triangular(N + 2, B, upper=False, "
                                "left=False), B, B)"],
    # -- views and shape ops ----------------------------------------------------------------------
    "alias": ["A[:, :]", "A[...]"],
    "fw_primal": ["with torch.autograd.forward_ad.dual_level():\n"
                  "    p = torch.autograd.forward_ad.unpack_dual(A * 2).primal\np",
                  "with torch.autograd.forward_ad.dual_level() as level:\n"
                  "    d = torch.autograd.forward_ad.make_dual(A, A.detach().exp())\n"
                  "    p = torch.autograd.forward_ad.unpack_dual(d, level=level).primal\np"],
    "view": ["A.view(3, 2)", "A.view(-1)", "A.reshape(6)", "A.flatten()", "X.view(4, 3)",
             "A.repeat_interleave(2)", "X.repeat_interleave(3, dim=-2)"],
    "unsafe_view": ["A.t().reshape(6)", "X @ B", "X @ Y"],
    "reshape_alias": ["A.t().reshape(3, 2)", "X.permute(2, 0, 1).reshape(3, 4)",
                      "Y.transpose(1, 2) @ X.transpose(1, 2)"],
    "transpose": ["A.transpose(0, 1)", "X.transpose(0, 2)", "X.mT", "s.transpose(0, -1)"],
    "t": ["A.t()", "a.t()"],
    "permute": ["A.permute(1, 0)", "X.permute(2, 0, 1)", "A.T", "X.movedim(0, -1)",
                "torch.moveaxis(X, (0, 1), (2, 0))"],
    "unsqueeze": ["a.unsqueeze(0)", "A.unsqueeze(-1)", "a[None]", "torch.atleast_3d(a)",
                  "torch.vstack([a, b])", "torch.dstack([A, M])"],
    "squeeze": ["U.squeeze()"],
    "squeeze_dim": ["U.squeeze(0)", "U.squeeze(1)"],
    "squeeze_multi": ["U.squeeze((0,))", "X.unsqueeze(0).squeeze((0, -1))", "U.squeeze([1, 0])",
                      "U.squeeze(())", "dgrad(X.unsqueeze(0).squeeze((0, -2)), X, X)"],
    "squeeze_dims": ["t = U * 1; t.squeeze_(0); t", "t = U * 1; t.squeeze_(-1); t",
                     "a @ B"],
    "expand": ["a.expand(2, 3)", "a.expand_as(A)", "s.expand(3)", "U.expand(2, -1)",
               "a.broadcast_to(2, 3)", "torch.broadcast_tensors(A, a)[1]",
               "torch.meshgrid(a, bb, indexing='ij')[1]",
               "torch.meshgrid(a, bb, indexing='xy')[0]"],
    "select": ["A[0]", "A[:, 1]", "A[0, 1]", "A[..., 0]", "X.select(2, 1)", "a[-1]"],
    "select_backward": ["dgrad(A[1], A, b)"],
    "slice": ["a[1:]", "A[0:1]", "A[:, 0:2]", "a[::2]", "A.narrow(1, 1, 2)", "A[:]",
              "A.tensor_split(2, dim=1)[0]", "torch.tensor_split(X, (1, 2), -1)[1]",
              "A.hsplit(3)[2]", "torch.vsplit(A, [1])[1]", "a.diff()",
              "torch.diff(X, n=2, dim=-1)"],
    "slice_backward": ["dgrad(a[1:], a, bb)"],
    "index": ["a[torch.tensor([0, 2])]", "a[a > 0]", "a[[0, 0, 2]]", "A[:, [2, 0]]", "A[K]",
              "X[:, [1, 0]]", "a[[-1, 0]]"],
    "index_put": ["t = A.clone(); t[[0, 1], [2, 0]] = bb; t", "t = a.clone(); t[a > 0] = 0.0; t",
                  "t = A.clone(); t[K] = 0.0; t", "t = A.clone(); t[0, [0, 2]] = bb; t"],
    "index_put_impl": ["dgrad(a[[0, 2]], a, bb)", "dgrad(A[:, [2, 0]], A, N)"],
    "clone": ["a.clone()", "A.t().contiguous()"],
    "to_copy": ["a.double()", "a.to(torch.float64)", "A.to(dtype=torch.float64)",
                "a.double().exp()", "a.double() * b"],
    "cat": ["torch.hstack([a, b])", "torch.hstack([A, M])", "torch.column_stack([a, b])",
            "torch.row_stack([A, a])", "torch.cat([a, b])", "torch.cat([a, c, b])",
            "torch.cat([A, M], dim=1)",
            "torch.cat((A, a[None]))", "torch.cat([a, torch.zeros(0), b])"],
    "stack": ["torch.stack([a, b])", "torch.stack([c, a], dim=1)", "torch.stack([A, M], dim=-1)"],
    "split": ["A.split(2, dim=1)[1]", "A.chunk(2, dim=1)[0]", "a.split(2)[0]", "a.chunk(3)[1]",
              "s0, s1 = A.split(1); s0 * s1"],
    "unsafe_split": ["u0, u1 = A.unsafe_chunk(2, 1); u0 * u1", "torch.unsafe_split(M, 1)[1]",
                     "u = X.unsafe_chunk(3, -1); u[0] + u[2]",
                     "u = A.unsafe_chunk(3, 1); v = u[1]; v.mul_(2); v",
                     "B2 = A * 1; u = B2.unsafe_chunk(3, 1); u[1].mul_(2); B2"],
    "split_with_sizes": ["A.split([1, 2], dim=1)[1]", "a.split([2, 1])[0]",
                         "u, v = X.split([1, 2], dim=2); u * v.sum(2, keepdim=True)"],
    "unbind": ["A.unbind(1)[2]", "u0, u1 = A.unbind(); u0 * u1"],
    # NB: a batch-first recurrent layer turns its output in place
    "transpose_inplace": ["t = A * 1; t.transpose_(0, 1); t", "t = X * 1; t.swapaxes_(0, -1); t",
                          "t = X * 1; t.swapdims_(2, 1); t",
                          "torch.rnn_tanh(X, torch.zeros(1, 2, 1, dtype=X.dtype), "
                          "[A[:1], b[:1].reshape(1, 1)], False, 1, 0.0, True, False, True)[0]"],
    # -- the fused float32 LSTM layer (hidden size 1: X is 2 steps of a batch of 2) --------------
    "mkldnn_rnn_layer": [
        "h = torch.zeros(1, 2, 1, dtype=X.dtype); torch.lstm(X, (h, h), [A.repeat(2, 1), "
        "b[:1].repeat(4, 1), p[:1].repeat(4), q[:1].repeat(4)], True, 1, 0.0, True, False, "
        "False)[0]",
        "torch.lstm(X, (bb.reshape(1, 2, 1), bb.reshape(1, 2, 1) * 2), [A.repeat(2, 1), "
        "b[:1].repeat(4, 1)], False, 1, 0.0, True, False, False)[1]",
        "h = torch.zeros(2, 2, 1, dtype=X.dtype); torch.lstm(X, (h, h), [A.repeat(2, 1), "
        "b[:1].repeat(4, 1)] * 2, False, 1, 0.0, True, True, True)[0]",
        "h = torch.zeros(1, 2, 1, dtype=X.dtype); torch.lstm(X, (h, bb.reshape(1, 2, 1)), "
        "[A.repeat(2, 1), b[:1].repeat(4, 1)], False, 1, 0.0, False, False, False)[2]"],
    # -- convolution, padding and pooling (C an image batch, W a conv weight) -------------------
    "convolution": ["F.conv_transpose2d(C, W.transpose(0, 1), a, stride=2, padding=1, "
                    "output_padding=1)", "F.conv_transpose1d(X, W[:2, :, 0], groups=2)",
                    "F.conv2d(C, W)", "F.conv2d(C, W, a, stride=2, padding=1)",
                    "F.conv2d(C, W, c, padding=(1, 0), dilation=2)",
                    "F.conv2d(C, W, padding='valid')",
                    "F.conv2d(C, W[:2, :1], bb, groups=2, padding='same')",
                    "F.conv2d(C[0], W, stride=(1, 2))",
                    "F.conv1d(C[0, :, 0], W[:, :, 0], b, padding=1)"],
    "convolution_backward": [
        "dgrad(F.conv2d(C, W, a, stride=2, padding=1), C, F.conv2d(C, W, stride=2, padding=1))",
        "dgrad(F.conv2d(C, W[:2, :1], bb, groups=2), W, F.conv2d(C, W[:2, :1], groups=2).tanh())",
        "dgrad(F.conv1d(X, W[:2, :, 0], bb, padding=1, dilation=2), bb, X * X)",
        "dgrad(F.conv_transpose2d(C, W.transpose(0, 1), stride=2), C, "
        "torch.ones(1, 3, 8, 8, dtype=C.dtype))"],
    "reflection_pad2d_backward": ["dgrad(F.pad(C, (1, 2, 0, 3), mode='reflect'), C, "
                                  "F.pad(C, (1, 2, 0, 3), mode='reflect') ** 2)"],
    "reflection_pad1d_backward": ["dgrad(F.pad(X, (2, 1), mode='reflect'), X, "
                                  "F.pad(X * X, (2, 1)))"],
    "reflection_pad3d_backward": ["dgrad(F.pad(C, (1, 0, 0, 1, 1, 0), mode='reflect'), C, "
                                  "F.pad(C, (1, 0, 0, 1, 1, 0)))"],
    "replication_pad2d_backward": ["dgrad(F.pad(C, (1, 2, 0, 3), mode='replicate'), C, "
                                   "F.pad(C, (1, 2, 0, 3)).exp())"],
    "replication_pad1d_backward": ["dgrad(F.pad(X, (2, 1), mode='replicate'), X, "
                                   "F.pad(X * X, (2, 1)))"],
    "replication_pad3d_backward": ["dgrad(F.pad(C, (1, 0, 0, 1, 1, 0), mode='replicate'), C, "
                                   "F.pad(C, (1, 0, 0, 1, 1, 0)))"],
    "max_pool2d_with_indices_backward": ["dgrad(F.max_pool2d(C, 2), C, C[:, :, ::2, 1::2] ** 2)",
                                         "dgrad(F.max_pool2d(C, 3, 2, 1), C, C[:, :, :2, :2])"],
    "avg_pool2d_backward": ["dgrad(F.avg_pool2d(C, 2), C, C[:, :, ::2, 1::2] ** 2)",
                            "dgrad(F.avg_pool2d(C, 3, 2, 1, True, False), C, C[:, :, 1:, 1:])"],
    "adaptive_avg_pool2d_backward": ["dgrad(F.adaptive_avg_pool2d(C, (3, 2)), C, "
                                     "C[:, :, :3, :2] ** 2)"],
    "adaptive_max_pool2d_backward": ["dgrad(F.adaptive_max_pool2d(C, (3, 2)), C, "
                                     "C[:, :, :3, :2] ** 2)"],
    "constant_pad_nd": ["F.pad(C, (1, 0, 2, 1))", "F.pad(X, (1, 2), value=0.5)",
                        "F.pad(C, (1, -1, -2, 1))"],
    "reflection_pad2d": ["F.pad(C, (1, 2, 0, 3), mode='reflect')"],
    "reflection_pad1d": ["F.pad(X, (2, 1), mode='reflect')"],
    "replication_pad2d": ["F.pad(C, (1, 2, 0, 3), mode='replicate')",
                          "F.conv2d(F.pad(C, (1, 1, 1, 1), mode='replicate'), W)"],
    "reflection_pad3d": ["F.pad(C, (1, 2, 0, 3, 1, 0), mode='reflect')"],
    "replication_pad3d": ["F.pad(C, (1, 2, 0, 3, 1, 0), mode='replicate')",
                          "F.conv3d(F.pad(C[None, :, :1], (1, 0, 0, 1, 0, 0), "
                          "mode='replicate'), W[:, :1, None])"],
    "replication_pad1d": ["F.pad(X, (2, 1), mode='replicate')"],
    "max_pool2d_with_indices": ["F.max_pool2d(C, 2)", "F.max_pool2d(C, 3, 2, 1, ceil_mode=True)",
                                "F.max_pool2d(C[0], 2, 1, dilation=2)",
                                "F.max_pool2d(C, (2, 3), return_indices=True)[0]"],
    "avg_pool2d": ["F.avg_pool2d(C, 2)", "F.avg_pool2d(C, 3, 2, 1, True, False)",
                   "F.avg_pool2d(C[0], (2, 3), 1, divisor_override=4)"],
    "adaptive_avg_pool2d": ["F.adaptive_avg_pool2d(C, (3, 2))", "F.adaptive_avg_pool2d(C[0], 3)"],
    "adaptive_max_pool2d": ["F.adaptive_max_pool2d(C, (3, 2))", "F.adaptive_max_pool2d(C[0], 1)",
                            "F.adaptive_max_pool1d(X, 2)"],
    "max_unpool2d": ["F.max_unpool2d(*F.max_pool2d(C, 2, return_indices=True), 2)",
                     "F.max_unpool1d(*F.max_pool1d(X, 2, return_indices=True), 2, "
                     "output_size=[3])"],
    "upsample_nearest1d": ["F.interpolate(X, scale_factor=2)", "F.interpolate(X, size=5)"],
    "upsample_nearest2d": ["F.interpolate(C, scale_factor=2)", "F.interpolate(C, size=(3, 7))"],
    "upsample_nearest_exact1d": ["F.interpolate(X, scale_factor=1.7, mode='nearest-exact')"],
    "upsample_nearest_exact2d": ["F.interpolate(C, size=(3, 7), mode='nearest-exact')"],
    "upsample_linear1d": ["F.interpolate(X, size=5, mode='linear')",
                          "F.interpolate(X, scale_factor=2, mode='linear', align_corners=True)"],
    "upsample_bilinear2d": ["F.interpolate(C, size=(3, 7), mode='bilinear')",
                            "F.interpolate(C, scale_factor=1.5, mode='bilinear', "
                            "align_corners=True)"],
    "pixel_shuffle": ["F.pixel_shuffle(C[:, :, :2].reshape(1, 4, 2, 2), 2)",
                      "F.pixel_shuffle(C, 1)"],
    "pixel_unshuffle": ["F.pixel_unshuffle(C, 2)", "F.pixel_unshuffle(C[0], 2)"],
    "im2col": ["F.unfold(C, 2)", "F.unfold(C[0], (2, 3), dilation=(2, 1), padding=1)"],
    "col2im": ["F.fold(C.reshape(1, 8, 4), (3, 3), 2)",
               "F.fold(C.reshape(8, 4), (4, 4), 2, stride=2)"],
    "flip": ["A.flip(1)", "X.flip(0, 2)", "s.flip(0)"],
    "gather": ["A.gather(1, I)", "torch.gather(A, 1, I)", "s.gather(0, torch.tensor(0))",
               "torch.take_along_dim(A, I, 1)", "A.take_along_dim(torch.tensor([[1], [0]]), -1)",
               "torch.take_along_dim(A, torch.tensor([1, 5, 0]))"],
    "scatter_add": ["dgrad(A.gather(1, I), A, N)", "A.scatter_add(1, I, N)",
                    "torch.scatter_add(A, 1, I, N)", "t = A.clone(); t.scatter_add_(1, I, N); t",
                    "A.cummin(1)[0]", "A.scatter_add(1, I, I.to(A.dtype))"],
    "masked_fill": ["A.masked_fill(K, 0.25)", "A.masked_fill(a > 0, 0.0)",
                    "t = A.clone(); t.masked_fill_(K, -1.0); t",
                    "dgrad(A.masked_fill(K, 0.25), A, M)"],
    "masked_fill_tensor": ["A.masked_fill(K, s)", "t = A.clone(); t.masked_fill_(K, s); t",
                           "dgrad(A.masked_fill(K, s), A, M)", "dgrad(A.masked_fill(K, s), s, M)"],
    "repeat": ["A.tile(2)", "torch.tile(a, (2, 1))", "a.repeat(2)", "A.repeat(2, 1)",
               "a.repeat(2, 2)", "A.repeat(1, 1)",
               "A.repeat(2, 0)", "dgrad(a.repeat(2, 1, 2), a, Y.reshape(2, 1, 6))",
               "dgrad(a.repeat(2), a, bb.repeat(3))"],
    # -- normalization (A: a batch of 2 of 3 channels, X: 2 of 2 channels of length 3) --------
    "native_layer_norm": ["F.layer_norm(A, (3,), a, b)", "F.layer_norm(X, (2, 3))",
                          "F.layer_norm(X, [3], a)", "F.layer_norm(X, (3,), None, b, eps=1e-3)",
                          "F.layer_norm(M, (3,), c, b)",
                          "F.layer_norm(torch.stack([c, r]), (3,), a, b)"],
    "native_layer_norm_backward": ["dgrad(F.layer_norm(A, (3,), a, b), A, M * A)",
                                   "dgrad(F.layer_norm(X, (2, 3)), X, X.exp())",
                                   "dgrad(F.layer_norm(A, (3,), a, b), a, A * A)"],
    "native_batch_norm_backward": [
        "dgrad(F.batch_norm(A, None, None, a, b, training=True), A, M * A)",
        "dgrad(F.batch_norm(X, None, None, bb, training=True), bb, X * X)",
        "dgrad(F.batch_norm(A, c, r + 0.5, a, b), a, M * A)"],
    "native_group_norm": ["F.group_norm(C, 2)", "F.group_norm(X, 1, bb, bb)",
                          "F.group_norm(A, 3, a, b, eps=0.1)"],
    "native_batch_norm": [
        "F.batch_norm(A, None, None, a, b, training=True)",
        "F.batch_norm(X, torch.zeros(2, dtype=X.dtype), torch.ones(2, dtype=X.dtype), bb, None, "
        "training=True)",
        "F.batch_norm(A, c, r + 0.5, a, b)",
        "F.batch_norm(X, torch.tensor([0.3, -0.2], dtype=X.dtype), torch.ones(2, dtype=X.dtype))",
        "F.batch_norm(M, c * 0, c * 0 + 1, training=True, momentum=0.3)",
        "F.batch_norm(torch.stack([c, r]), c, r + 0.5, a, b, eps=0.1)",
        "F.batch_norm(X, None, None, None, bb, training=True)"],
    # -- attention (C: one batch of 2 heads of 4 positions of 4 features) -----------------------
    "safe_softmax": ["torch._safe_softmax(A, -1)", "torch._safe_softmax(X, 1)",
                     "torch._safe_softmax(A + torch.tensor([[0.0, -float('inf'), 0.0], "
                     "[-float('inf'), -float('inf'), 0.0]]), 0)",
                     "dgrad(torch._safe_softmax(A, 1), A, M)"],
    "baddbmm": ["torch.baddbmm(X[:, :, :2], X, Y)", "torch.baddbmm(bb, X, Y, beta=0.5, alpha=2)",
                "torch.baddbmm(N, X, torch.ones(2, 3, 2, dtype=X.dtype))",
                "torch.baddbmm(N, torch.ones(2, 2, 3, dtype=Y.dtype), Y, beta=0)",
                "torch.baddbmm(X @ Y, X, Y, beta=0.5, alpha=2)", "t = X @ Y; t.baddbmm_(X, Y); t"],
    "scaled_dot_product_flash_attention_for_cpu": [
        "F.scaled_dot_product_attention(C, C, C)",
        "F.scaled_dot_product_attention(C, torch.ones(1, 2, 4, 4, dtype=C.dtype), C * 2, "
        "is_causal=True)",
        "F.scaled_dot_product_attention(C, C, torch.ones(1, 2, 4, 4, dtype=C.dtype), "
        "attn_mask=torch.tensor([[True, False, True, True]]), scale=0.3)",
        "F.scaled_dot_product_attention(C, C[:, :1], C[:, :1], enable_gqa=True)",
        "F.scaled_dot_product_attention(C, C, C, "
        "attn_mask=torch.tensor([[0.5, -1.0, 0.0, 2.0]], dtype=C.dtype))"],
    # -- selecting by index or mask, and the scatters of their backward formulas -----------------
    "embedding": ["F.embedding(I, B)", "F.embedding(tgt, B, padding_idx=0)",
                  "F.embedding(I, B, scale_grad_by_freq=True)", "F.embedding(I, B, padding_idx=-1)",
                  "F.embedding(I, B * 2, padding_idx=1, scale_grad_by_freq=True)"],
    "embedding_dense_backward": ["dgrad(F.embedding(tgt, B, padding_idx=0), B, N)",
                                 "dgrad(F.embedding(tgt, B), B, N)",
                                 "dgrad(F.embedding(tgt, B, scale_grad_by_freq=True), B, N)"],
    "index_select": ["A.index_select(1, torch.tensor([2, 0, 2]))",
                     "A.repeat_interleave(torch.tensor([1, 0, 2]), dim=1)",
                     "torch.repeat_interleave(A, torch.tensor(2))",
                     "torch.index_select(A, 0, torch.tensor([1]))",
                     "X.index_select(-1, torch.tensor([0, 0]))",
                     "a.index_select(0, torch.tensor(2))",
                     "dgrad(A.index_add(1, torch.tensor([0, 0]), N), N, A)"],
    "index_add": ["dgrad(A.index_select(1, torch.tensor([2, 0, 2])), A, M.repeat(1, 1))",
                  "A.index_add(1, torch.tensor([0, 0]), N)",
                  "A.index_add(0, torch.tensor([1]), U, alpha=2.0)",
                  "t = A.clone(); t.index_add_(1, torch.tensor([2, 2]), N); t"],
    "masked_select": ["A.masked_select(K)", "A.masked_select(A > 0)",
                      "torch.masked_select(a, a > 0)",
                      "a.masked_select(K)", "A.masked_select(torch.tensor([True, False, True]))",
                      "X.masked_select(X > 0)"],
    "masked_scatter": ["dgrad(A.masked_select(K), A, b)", "A.masked_scatter(K, M)",
                       "A.masked_scatter(K, b)", "a.masked_scatter(K, M)",
                       "t = A.clone(); t.masked_scatter_(K, b); t",
                       "dgrad(dgrad(A.masked_scatter(K, M), M, A), A, M)"],
    "masked_scatter_backward": ["dgrad(A.masked_scatter(K, M), M, A)",
                                "dgrad(A.masked_scatter(K, b), b, M)"],
    "roll": ["A.roll(1, 1)", "A.roll(-1)", "torch.roll(X, (1, -1), (0, 2))", "a.roll(2, 0)",
             "dgrad(A.roll(1, 1), A, M)"],
    "take": ["torch.take(A, torch.tensor([0, 5, 5]))", "A.take(torch.tensor([[1, -1], [2, 2]]))",
             "a.take(torch.tensor(1))", "dgrad(A.put(torch.tensor([1, 4]), bb), bb, A)"],
    "put": ["dgrad(torch.take(A, torch.tensor([0, 5, 5])), A, b)",
            "A.put(torch.tensor([1, 4]), bb)", "A.put(torch.tensor([1, 1]), bb, accumulate=True)",
            "t = A.clone(); t.put_(torch.tensor([0, 2]), bb); t"],
    # -- ordering, cumulative ops, triangles and diagonals (engine/ops_order.py) ------------------
    "sort": ["torch.sort(A)[0]", "A.sort(0, descending=True).values", "X.sort(dim=1)[0]",
             "s.sort()[0]", "torch.msort(M)", "dgrad(A.sort(1)[0], A, M)"],
    "sort_stable": ["torch.sort(A, stable=True, dim=0).values",
                    "a.sort(stable=False, descending=True)[0]"],
    "topk": ["A.topk(2)[0]", "torch.topk(A, 1, dim=0, largest=False).values",
             "X.topk(2, 1, True, True)[0]", "a.topk(3, sorted=True).values", "s.topk(1)[0]",
             "dgrad(A.topk(2).values, A, N)"],
    "kthvalue": ["A.kthvalue(2)[0]", "torch.kthvalue(A, 1, 0, keepdim=True).values",
                 "X.kthvalue(2, dim=-2).values", "s.kthvalue(1)[0]", "(v := s.kthvalue(1)[0]) * v",
                 "dgrad(A.kthvalue(2, 1)[0], A, bb)"],
    "mode": ["A.mode()[0]", "torch.mode(A, 0, keepdim=True).values", "s.mode().values",
             "(v := s.mode()[0]) * v", "dgrad(M.mode(1).values, M, bb)"],
    "amin": ["A.amin(1)", "torch.amin(A)", "X.amin((0, 2), keepdim=True)", "s.amin()",
             "a.amin(-1)", "dgrad(A.amin(1), A, bb)"],
    "cumprod": ["A.cumprod(1)", "torch.cumprod(X, dim=-1)", "a.cumprod(0)", "s.cumprod(0)",
                "dgrad(A.cumprod(1), A, M)"],
    "cummax": ["A.cummax(1)[0]", "torch.cummax(X, dim=0).values", "s.cummax(0)[0]",
               "dgrad(A.cummax(1)[0], A, M)"],
    "cummin": ["A.cummin(0)[0]", "torch.cummin(a, -1).values"],
    "logcumsumexp": ["A.logcumsumexp(1)", "torch.logcumsumexp(X, dim=-1)", "s.logcumsumexp(0)",
                     "dgrad(A.logcumsumexp(1), A, M)"],
    "triu": ["A.triu()", "torch.triu(X, 1)", "A.triu(-1)", "t = A.clone(); t.triu_(1); t",
             "dgrad(A.triu(1), A, M)"],
    "tril": ["A.tril()", "torch.tril(X, -1)", "t = A.clone(); t.tril_(); t"],
    "diagonal": ["A.diagonal()", "torch.diagonal(X, 1, 0, 2)", "X.diagonal(0, -1, -2)",
                 "A.diagonal(-1)", "dgrad(torch.diag_embed(A), A, X.repeat(1, 2, 1)[:, :3])",
                 "torch.einsum('ii->i', N)", "t = N.clone(); t.diagonal().mul_(2); t"],
    "diagonal_copy": ["A.diag()", "torch.diag(A, 1)", "N.diag(-1)"],
    "diagonal_backward": ["dgrad(A.diagonal(), A, bb)", "dgrad(torch.diag(A, 1), A, bb)",
                          "dgrad(dgrad(A.diagonal(), A, bb), bb, M)"],
    "diag_embed": ["torch.diag_embed(A)", "torch.diag_embed(a, 1)", "a.diag()",
                   "torch.diag(bb, -1)", "torch.diag_embed(A, -1, 0, 2)",
                   "dgrad(dgrad(A.diagonal(), A, bb), bb, M)"],
    "trace": ["A.trace()", "torch.trace(N)", "B.trace()"],
    "index_fill": ["A.index_fill(1, torch.tensor([0, 2]), 1.5)",
                   "t = A.clone(); t.index_fill_(0, torch.tensor([1]), -0.5); t",
                   "a.index_fill(0, torch.tensor([-1]), 2.0)"],
    "index_fill_tensor": ["A.index_fill(1, torch.tensor([0, 2]), s)", "dgrad(A.trace(), A, s)",
                          "t = A.clone(); t.index_fill_(0, torch.tensor([1]), s * 2); t"],
    # -- scatters along a dim (engine/ops_scatter.py, engine/scattering.py) -----------------------
    "scatter_value": ["A.scatter(1, I, 0.5)", "torch.scatter(A, 0, I.t()[1:], value=-1.0)",
                      "t = A.clone(); t.scatter_(1, I, 2.0); t",
                      "dgrad(A.scatter(1, I, 0.5), A, M)"],
    "index_copy": ["A.index_copy(1, torch.tensor([2, 0]), N)",
                   "torch.index_copy(A, 0, torch.tensor([1]), U)",
                   "t = A.clone(); t.index_copy_(1, torch.tensor([1]), N[:, :1]); t",
                   "dgrad(A.index_copy(1, torch.tensor([2, 0]), N), N, M)"],
    # -- reductions, copies and scatters of test_missing_extra ------------------------------
    "aminmax": ["torch.aminmax(A, dim=1)[0]", "torch.aminmax(A).max",
                "A.aminmax(dim=0, keepdim=True)[1]",
                "(lambda r: r.min * r.max)(torch.aminmax(X, dim=-1))",
                "dgrad(torch.aminmax(A, dim=1).max, A, bb)"],
    "narrow_copy": ["A.narrow_copy(1, 1, 2)", "torch.narrow_copy(X, -1, -2, 1)",
                    "dgrad(A.narrow_copy(1, 0, 2), A, N)"],
    "scatter_reduce": ["A.scatter_reduce(1, I, N, 'sum')", "A.scatter_reduce(1, I, N, 'mean')",
                       "A.scatter_reduce(1, I, N, 'prod', include_self=False)",
                       "torch.scatter_reduce(A, 1, I, N, 'amax')",
                       "A.scatter_reduce(1, I, N, 'amin', include_self=False)",
                       "t = A.clone(); t.scatter_reduce_(1, I, N, 'prod'); t"],
    "scatter_reduce_legacy": ["A.scatter(1, I, N, reduce='add')",
                              "A.scatter(1, I, 2.0, reduce='multiply')"],
    "max_pool3d_with_indices": ["F.max_pool3d(C, 2)", "F.max_pool3d(C, (1, 3, 2), 1, (0, 1, 1))",
                                "F.max_pool3d(C.unsqueeze(0), 2, ceil_mode=True)"],
    "avg_pool3d": ["F.avg_pool3d(C, 2)", "F.avg_pool3d(C, (2, 3, 3), 2, 1, True, False)",
                   "F.avg_pool3d(C.unsqueeze(0), (2, 3, 2), 1, divisor_override=4)"],
    "adaptive_avg_pool3d": ["F.adaptive_avg_pool3d(C, (1, 3, 2))",
                            "F.adaptive_avg_pool3d(C.unsqueeze(0), 3)"],
    "upsample_bicubic2d": ["F.interpolate(C, scale_factor=2, mode='bicubic')",
                           "F.interpolate(C, size=(3, 5), mode='bicubic', align_corners=True)"],
    "upsample_nearest3d": ["F.interpolate(C.unsqueeze(0), scale_factor=(1, 2, 1.5))"],
    "upsample_nearest_exact3d": ["F.interpolate(C.unsqueeze(0), size=(3, 3, 5), "
                                 "mode='nearest-exact')"],
    "upsample_trilinear3d": ["F.interpolate(C.unsqueeze(0), scale_factor=2, mode='trilinear')",
                             "F.interpolate(C.unsqueeze(0), size=(3, 2, 5), mode='trilinear', "
                             "align_corners=True)"],
    "ctc_loss": ["F.ctc_loss(Y.permute(1, 0, 2).log_softmax(2), torch.tensor([[1], [1]]), "
                 "torch.tensor([3, 3]), torch.tensor([1, 1]), reduction='none')",
                 "F.ctc_loss(Y.permute(1, 0, 2).log_softmax(2), torch.tensor([1, 1]), (3, 3), "
                 "(1, 1))",
                 "F.ctc_loss(Y.permute(1, 0, 2).log_softmax(2), torch.tensor([[1], [1]]), [3, 3], "
                 "[1, 1], "
                 "reduction='sum', zero_infinity=True)"],
    "pack_padded_sequence": ["torch.nn.utils.rnn.pack_padded_sequence(X, [2, 1]).data",
                             "torch.nn.utils.rnn.pack_padded_sequence(Y, [2, 3], "
                             "batch_first=True, enforce_sorted=False).data"],
    "embedding_bag": ["F.embedding_bag(torch.tensor([0, 2, 1, 1]), B, torch.tensor([0, 1]))",
                      "F.embedding_bag(torch.tensor([[0, 2], [1, 2]]), B, mode='sum')",
                      "F.embedding_bag(torch.tensor([0, 2, 1]), B, torch.tensor([0, 1, 1]), "
                      "mode='max')",
                      "F.embedding_bag(torch.tensor([0, 2, 1]), B, torch.tensor([0, 2]), "
                      "mode='sum', per_sample_weights=a)",
                      "F.embedding_bag(torch.tensor([0, 2, 1]), B, torch.tensor([0, 2]), "
                      "mode='mean', padding_idx=2)"],
    # -- in-place writes --------------------------------------------------------------------------
    "zero": ["a.clone().zero_()", "t = A.clone(); t[0].zero_(); t"],
    "fill": ["a.clone().fill_(2.25)", "t = A.clone(); t[:, 1].fill_(0.75); t"],
    "fill_tensor": ["A.clone().fill_(s)", "t = a.clone(); t.fill_(s * 2); t"],
    "copy": ["t = a.clone(); t.copy_(b); t", "t = A.clone(); t.copy_(a); t",
             "t = A.clone(); t[0] = b; t", "t = a.clone(); t[1] = 5.0; t",
             "t = A.clone(); t[:, 1] = c[:2]; t", "t = A.clone(); t[1, 0:2] = bb; t"],
    "as_strided": ["t = A.clone(); v = t[0]; t.mul_(2); v",
                   "t = A.clone(); v = t[0]; v.mul_(2); v"],
    # -- softmax and losses -----------------------------------------------------------------------
    "hardtanh": ["F.hardtanh(A)", "F.hardtanh(a, -0.5, 0.5)"],
    "median": ["a.median()", "A.median()"],
    "softmax": ["torch.softmax(A, dim=1)", "F.softmax(A, dim=0)", "X.softmax(-1)"],
    "softmax_backward_data": ["dgrad(torch.softmax(A, 1), A, M)",
                              "dgrad(X.softmax(0), X, Y.transpose(1, 2))"],
    "log_softmax": ["torch.log_softmax(A, dim=1)", "F.log_softmax(X, dim=1)",
                    "F.cross_entropy(A, M)", "F.cross_entropy(A, M.softmax(1))",
                    "F.cross_entropy(A, torch.tensor([[0.2, 0.3, 0.5], [1.0, 0.0, 0.0]]),"
                    " weight=wt, reduction='none')",
                    "F.cross_entropy(a, b.softmax(0), weight=wt, reduction='sum')",
                    "F.cross_entropy(X, Y.transpose(1, 2).softmax(1), label_smoothing=0.1)"],
    "add_scalar": ["F.cross_entropy(A, M.softmax(1), label_smoothing=0.2)",
                   "F.cross_entropy(a, b.softmax(0), label_smoothing=0.5, reduction='none')"],
    "log_softmax_backward_data": ["dgrad(F.log_softmax(A, 1), A, M)"],
    "mse_loss": ["F.mse_loss(a, b)", "F.mse_loss(a, c, reduction='sum')",
                 "F.mse_loss(A, M, reduction='none')"],
    "mse_loss_backward": ["dgrad(F.mse_loss(a, b), a, s)",
                          "dgrad(F.mse_loss(a, b, reduction='sum'), b, s)",
                          "dgrad(F.mse_loss(A, M, reduction='none'), A, N.sum() * M)"],
    "nll_loss": ["F.nll_loss(A, tgt)", "F.cross_entropy(A, tgt)",
                 "F.cross_entropy(A, tgt, reduction='sum')",
                 "F.cross_entropy(A, tgt, reduction='none')",
                 "F.nll_loss(F.log_softmax(A, dim=1), tgt, weight=wt)",
                 "F.nll_loss(A, tgt, ignore_index=0)",
                 "F.cross_entropy(A, tgt, label_smoothing=0.1)",
                 "F.cross_entropy(A, tgt, weight=wt, label_smoothing=0.2, reduction='sum')",
                 "F.cross_entropy(A, tgt, label_smoothing=0.1, ignore_index=0, reduction='none')",
                 "F.cross_entropy(A, tgt, weight=wt, label_smoothing=0.3, ignore_index=2)",
                 "F.cross_entropy(a, tgt[0], label_smoothing=0.25)"],
    "binary_cross_entropy": ["F.binary_cross_entropy(q, r)",
                             "F.binary_cross_entropy(q, r, reduction='sum')",
                             "F.binary_cross_entropy(q, r, weight=wt)",
                             "F.binary_cross_entropy(q, p.sigmoid())"],
    "binary_cross_entropy_backward": [
        "dgrad(F.binary_cross_entropy(q, r), q, s)",
        "dgrad(F.binary_cross_entropy(q, r, wt, reduction='sum'), q, s)",
        "dgrad(F.binary_cross_entropy(q, r, reduction='none'), q, b)",
        "dgrad(F.binary_cross_entropy(q, p.sigmoid()), p, s)"],
    "binary_cross_entropy_with_logits": [
        "F.binary_cross_entropy_with_logits(a, r)",
        "F.binary_cross_entropy_with_logits(a, q)",
        "F.binary_cross_entropy_with_logits(a, r, pos_weight=wt)",
        "F.binary_cross_entropy_with_logits(A, M.sigmoid(), reduction='sum')",
        "dgrad(F.binary_cross_entropy_with_logits(a, q), a, s)",
        "dgrad(F.binary_cross_entropy_with_logits(A, M.sigmoid(), reduction='none'), M, A)",
        "dgrad(F.binary_cross_entropy_with_logits(a, r, pos_weight=wt), a, s)",
        "dgrad(F.binary_cross_entropy_with_logits(a, r, weight=wt, reduction='sum'), a, s)"],
    "smooth_l1_loss": ["F.smooth_l1_loss(a, b)", "F.smooth_l1_loss(a, c, beta=0.4)",
                       "F.smooth_l1_loss(A, M, reduction='none')"],
    # -- the less common losses and their pieces (NB: no |x - t| at a huber delta, no margin
    # term at 0: kinks, where finite differences fail)
    "huber_loss": ["F.huber_loss(a, b)", "F.huber_loss(A, M, reduction='none', delta=0.5)",
                   "F.huber_loss(a, c, reduction='sum', delta=2.0)", "torch.nn.HuberLoss()(b, a)"],
    "huber_loss_backward": ["dgrad(F.huber_loss(a, b), a, s)",
                            "dgrad(F.huber_loss(A, M, reduction='none', delta=0.7), A, M)",
                            "dgrad(F.huber_loss(a, b, reduction='sum'), b, s)"],
    "soft_margin_loss": ["F.soft_margin_loss(a, c.sign())",
                         "F.soft_margin_loss(A, M.detach().sign(), reduction='none')",
                         "F.soft_margin_loss(A, M.detach().sign(), reduction='sum')"],
    "soft_margin_loss_backward": [
        "dgrad(F.soft_margin_loss(a, c.sign()), a, s)",
        "dgrad(F.soft_margin_loss(A, M.detach().sign(), reduction='none'), A, M)"],
    "multi_margin_loss": ["F.multi_margin_loss(A, tgt)",
                          "F.multi_margin_loss(A, tgt, p=2, margin=2.0, weight=wt, "
                          "reduction='none')"],
    "multi_margin_loss_backward": ["dgrad(F.multi_margin_loss(A, tgt), A, s)"],
    "upsample_nearest1d_backward": ["dgrad(F.interpolate(X, size=5) ** 2, X, X.repeat(1, 1, 2)"
                                    "[..., :5])"],
    "upsample_nearest2d_backward": ["dgrad(F.interpolate(C, scale_factor=2) ** 2, C, "
                                    "C.repeat(1, 1, 2, 2))"],
    "upsample_nearest_exact1d_backward": [
        "dgrad(F.interpolate(X, size=5, mode='nearest-exact') ** 2, X, X.repeat(1, 1, 2)"
        "[..., :5])"],
    "upsample_nearest_exact2d_backward": [
        "dgrad(F.interpolate(C, size=(3, 7), mode='nearest-exact') ** 2, C, "
        "C.repeat(1, 1, 1, 2)[:, :, :3, :7])"],
    "upsample_linear1d_backward": [
        "dgrad(F.interpolate(X, size=5, mode='linear', align_corners=True) ** 2, X, "
        "X.repeat(1, 1, 2)[..., :5])"],
    "upsample_bilinear2d_backward": [
        "dgrad(F.interpolate(C, size=(3, 7), mode='bilinear') ** 2, C, "
        "C.repeat(1, 1, 1, 2)[:, :, :3, :7])"],
    "upsample_bicubic2d_backward": [
        "dgrad(F.interpolate(C, scale_factor=2, mode='bicubic') ** 2, C, "
        "C.repeat(1, 1, 2, 2))"],
    "upsample_nearest3d_backward": [
        "dgrad(F.interpolate(C.unsqueeze(0), scale_factor=(1, 2, 1.5)) ** 2, C, "
        "C.unsqueeze(0).repeat(1, 1, 1, 2, 2)[..., :6])"],
    "upsample_nearest_exact3d_backward": [
        "dgrad(F.interpolate(C.unsqueeze(0), size=(3, 3, 5), mode='nearest-exact') ** 2, C, "
        "C.unsqueeze(0).repeat(1, 1, 2, 1, 2)[:, :, :3, :3, :5])"],
    "upsample_trilinear3d_backward": [
        "dgrad(F.interpolate(C.unsqueeze(0), scale_factor=2, mode='trilinear') ** 2, C, "
        "C.unsqueeze(0).repeat(1, 1, 2, 2, 2))"],
    "flash_attention_backward": ["dgrad(F.scaled_dot_product_attention(C, C, C), C, C)",
                                 "dgrad(F.scaled_dot_product_attention(C, C * 2, C, "
                                 "is_causal=True), C, C)"],
    "multilabel_margin_loss": [
        "F.multilabel_margin_loss(A, torch.tensor([[2, 0, -1], [1, -1, 0]]))",
        "F.multilabel_margin_loss(a, torch.tensor([1, 2, -1]), reduction='none')"],
    "multilabel_margin_loss_backward": [
        "dgrad(F.multilabel_margin_loss(A, torch.tensor([[2, 0, -1], [1, -1, 0]])), A, s)"],
    "xlogy": ["torch.xlogy(a, p)", "torch.xlogy(p, b.abs())", "p.xlogy(A.abs())",
              "torch.xlogy(c, p)", "dgrad(torch.xlogy(a, p), p, b)",
              "torch.xlogy(p, q + c.abs())", "torch.special.xlogy(A, p)",
              "dgrad(torch.xlogy(a, p), a, b)"],
    "_weight_norm_interface": ["torch._weight_norm(A, bb.view(2, 1), 0)",
                               "torch._weight_norm(B, bb.view(1, 2), 1)",
                               "torch._weight_norm_interface(W, b.view(3, 1, 1, 1))[0]"],
    "linalg_householder_product": ["torch.linalg.householder_product(B, bb)",
                                   "torch.orgqr(B, bb[:1])",
                                   "torch.linalg.householder_product(Y, A[:, :2] * 0.5)"],
    "linalg_matrix_exp": ["torch.matrix_exp(N)", "torch.linalg.matrix_exp(N * 3)",
                          "torch.matrix_exp(X[:, :, :2])", "N.matrix_exp()",
                          "dgrad(torch.linalg.matrix_exp(N), N, N)",
                          "dgrad(torch.linalg.matrix_exp(X[:, :, :2] * 3), X, X[:, :, :2])"],
    "norm_all": ["torch.norm_except_dim(A, 2, -1)", "torch._weight_norm(X, s, -1)",
                 "torch.norm_except_dim(W, 3, -1)"],
    "norm_p": ["F.pairwise_distance(A, M)", "F.pairwise_distance(a, b, p=1.5, keepdim=True)",
               "F.pairwise_distance(A, a, p=3)", "F.triplet_margin_loss(A, M, A.flip(0))"],
    "nll_loss2d": [
        "F.nll_loss(C, torch.tensor([[[0, 1, 1, 0], [1, 0, 0, 1], [0, 0, 1, 1], [1, 1, 0, 0]]]))",
        "F.cross_entropy(C, torch.tensor([[[0, 1, 1, 0], [1, 0, 0, 1], [0, 0, 1, 1], "
        "[1, 1, 0, 0]]]), reduction='none')",
        "F.cross_entropy(X, torch.tensor([[0, 1, 1], [1, 0, 1]]), ignore_index=0)",
        "F.nll_loss(X, torch.tensor([[0, 1, 1], [1, 0, 1]]), reduction='none')"],
    "nll_loss2d_backward": [
        "dgrad(F.nll_loss(X, torch.tensor([[0, 1, 1], [1, 0, 1]])), X, s)",
        "dgrad(F.nll_loss(C, torch.tensor([[[0, 1, 1, 0], [1, 0, 0, 1], [0, 0, 1, 1], "
        "[1, 1, 0, 0]]]), reduction='sum'), C, s)"],
    "log_sigmoid": ["F.logsigmoid(a)", "F.logsigmoid(A)", "torch.nn.LogSigmoid()(b)"],
    "log_sigmoid_backward": ["dgrad(F.logsigmoid(a), a, b)", "dgrad(F.logsigmoid(A), A, M)"],
    # -- engine/mathfns.py ------------------------------------------------------------------------
    "nansum": ["torch.nansum(A)", "torch.nansum(A, 1)", "A.nansum(0, keepdim=True)",
               "torch.nansum(torch.log(a))", "torch.nanmean(torch.log(A), 1)", "torch.nansum(s)",
               "dgrad(torch.nansum(A, 1), A, bb)", "dgrad(torch.nansum(A, -1), A, bb)"],
    "nanmedian": ["torch.nanmedian(A)", "torch.nanmedian(torch.log(a))", "s.nanmedian()",
                  "dgrad(torch.nanmedian(A), A, s)"],
    "nanmedian_dim": ["torch.nanmedian(A, 1)[0]", "A.nanmedian(0, keepdim=True)[0]",
                      "torch.nanmedian(torch.log(X + 1.5), 2)[0]", "torch.nanmedian(s, 0)[0]",
                      "dgrad(torch.nanmedian(A, 1)[0], A, bb)",
                      "dgrad(torch.nanmedian(A, -1)[0], A, bb)"],
    "as_strided_view": ["A.as_strided((2, 2), (1, 2), 1)", "torch.as_strided(A, (3,), (2,))",
                        "t = A * 1; t.as_strided((2,), (4,)).mul_(2); t",
                        "M.as_strided((3, 2), (1, 1))",
                        "dgrad(A.as_strided((2, 2), (1, 2), 1), A, N)",
                        "dgrad(A[1].as_strided((2,), (1,)), A, bb)",
                        "dgrad(A.as_strided((3, 2), (1, 1)), A, B)"],
    "t_inplace": ["t = A * 1; t.t_(); t", "t = a * 1; t.t_(); t",
                  "t = A * 1; t.t_(); t.mul_(2); t",
                  "t = M * 1; u = t[0]; u.t_(); u.mul_(2); t"],
    "squeeze_inplace": ["t = U * 1; t.squeeze_(); t", "t = A[None] * 1; t.squeeze_(); t * t"],
    "squeeze_inplace_dims": ["t = U * 1; t.squeeze_((0, 1)); t",
                             "t = X[:, :1] * 1; t.squeeze_((1, -1)); t"],
    "unsqueeze_inplace": ["t = A * 1; t.unsqueeze_(1); t", "t = a * 1; t.unsqueeze_(-1); t",
        "torch.quantile(A, torch.tensor([0.25, 0.5], dtype=A.dtype), dim=1)",
        "torch.nanquantile(a, torch.tensor([0.1, 0.6, 0.9], dtype=a.dtype))",
        "dgrad(torch.quantile(A, torch.tensor([0.25, 0.5], dtype=A.dtype), 1), A, N)"],
    "var_mean": ["o = torch.var_mean(A, 1); o[0] * o[1]", "torch.var_mean(A)[0]",
                 "torch.var_mean(A, 0, keepdim=True, correction=0)[1]",
                 "o = torch.var_mean(a); o[0] + o[1]", "dgrad(torch.var_mean(A, 1)[0], A, bb)",
                 "dgrad(torch.var_mean(A, -1)[0], A, bb)"],
    "std_mean": ["o = torch.std_mean(A, 1); o[0] * o[1]", "torch.std_mean(A)[0]",
                 "torch.std_mean(X, (0, 2), unbiased=False)[1]", "torch.std_mean(a)[0]",
                 "dgrad(torch.std_mean(A, 1)[0], A, bb)", "dgrad(torch.std_mean(A, -1)[0], A, bb)",
                 "dgrad(torch.std_mean(A, -1)[1], A, bb)"],
    "copysign": ["torch.copysign(a, b)", "a.copysign(c)", "torch.copysign(A, b)",
                 "t = a.clone(); t.copysign_(b); t", "dgrad(torch.copysign(a, b), a, p)"],
    "copysign_scalar": ["torch.copysign(a, -1.0)", "A.copysign(2)",
                        "t = a.clone(); t.copysign_(-0.5); t"],
    "fmax": ["torch.fmax(a, b)", "torch.fmax(M, c)", "dgrad(torch.fmax(a, b), b, p)"],
    "fmin": ["torch.fmin(a, b)", "A.fmin(b)", "dgrad(torch.fmin(a, b), a, p)"],
    "deg2rad": ["torch.deg2rad(a)", "A.deg2rad()", "t = a.clone(); t.deg2rad_(); t",
                "dgrad(torch.deg2rad(a), a, p)"],
    "rad2deg": ["torch.rad2deg(a)", "t = A.clone(); torch.rad2deg_(t); t",
                "dgrad(a.rad2deg(), a, p)"],
    "asinh_": ["t = a.clone(); t.asinh_(); t", "t = a.clone(); torch.arcsinh_(t); t"],
    "acosh_": ["t = p + 1; t.acosh_(); t"],
    "atanh_": ["t = q.clone(); t.atanh_(); t"],
    "unfold": ["A.unfold(1, 2, 1)", "X.unfold(-1, 2, 2)", "s.unfold(0, 1, 1)",
               "a.unfold(0, 3, 1)", "t = M * 1; t.unfold(1, 1, 2).mul_(2); t",
               "dgrad(a.unfold(0, 2, 1), a, N)"],
    "unfold_backward": ["dgrad(a.unfold(0, 2, 1), a, N)", "dgrad(A.unfold(-1, 2, 1).sum(2), A, N)"],
    "bincount": ["torch.bincount(torch.tensor([0, 2, 2]), a)",
                 "torch.tensor([1, 0]).bincount(bb, minlength=3)"],
    "ldexp": ["torch.ldexp(a, b)", "torch.ldexp(A, torch.tensor([1, 2, 0]))", "a.ldexp(c)",
              "t = a.clone(); t.ldexp_(b); t", "dgrad(torch.ldexp(a, b), b, p)",
              "dgrad(torch.ldexp(a, b), a, p)"],
    "mvlgamma": ["torch.mvlgamma(p + 1, 2)", "A.abs().mvlgamma(1)", "torch.mvlgamma(p + 2, 3)",
                 "t = p + 1; t.mvlgamma_(2); t", "dgrad(torch.mvlgamma(p + 1, 2), p, b)"],
    "renorm": ["torch.renorm(A, 2, 0, 1.0)", "A.renorm(1, 1, 0.5)", "torch.renorm(X, 3, -1, 1.5)",
               "torch.renorm(A, float('inf'), 0, 1.0)", "t = A * 1; t.renorm_(2, 1, 1.0); t",
               "dgrad(torch.renorm(A, 2, 0, 1.0), A, M)", "dgrad(A.renorm(1, 1, 0.5), A, M)",
               "dgrad(torch.renorm(X, 3, -1, 1.5), X, X)"],
    "block_diag": ["torch.block_diag(A, a, s)", "torch.block_diag(A, c)",
                   "torch.block_diag(N, B)", "dgrad(torch.block_diag(a), a, U)",
                   "dgrad(torch.block_diag(s, bb), bb, A)"],
    "i0": ["torch.i0(a)", "A.i0()", "torch.special.i0(s)", "t = a.clone(); t.i0_(); t",
           "dgrad(torch.i0(a), a, p)"],
    "special_i1": ["torch.special.i1(a)", "torch.special.i1(A * 3)", "dgrad(torch.i0(a), a, p)",
                   "dgrad(torch.special.i1(a), a, p)"],
    "nextafter": ["torch.nextafter(a, b)", "M.nextafter(c)",
                  "t = a.clone(); t.nextafter_(b); t", "dgrad(torch.nextafter(a, c), a, p)"],
    # NB: PyTorch has no derivative for the first input (its backward raises there)
    "igamma": ["torch.igamma(c.abs() + 1, q)", "torch.igamma(c.abs(), A.abs())",
               "torch.special.gammainc(c.abs() * 3, p * 3)",
               "t = c.abs() * 1; t.igamma_(q); t", "dgrad(torch.igamma(c.abs(), p), p, b)"],
    "igammac": ["torch.igammac(c.abs() + 1, q)", "torch.special.gammaincc(c.abs(), A.abs())",
                "t = c.abs() * 1; t.igammac_(q); t", "dgrad(torch.igammac(c.abs(), p), p, b)"],
    "rot90": ["torch.rot90(A)", "A.rot90(2)", "torch.rot90(X, -1, [2, 0])", "torch.rot90(A, 0)",
              "dgrad(torch.rot90(A), A, B)", "dgrad(torch.rot90(A, -1), A, B)",
              "dgrad(torch.rot90(A, 3, [1, 0]), A, B)"],
    "select_scatter": ["torch.select_scatter(A, a, 0, 1)", "M.select_scatter(bb, 1, -1)",
                       "torch.select_scatter(A, c, 0, 0)", "torch.select_scatter(a, s, 0, 2)",
                       "dgrad(torch.select_scatter(A, a, 0, 1), a, M)",
                       "dgrad(torch.select_scatter(A, bb, -1, -2), A, M)",
                       "dgrad(torch.select_scatter(A, bb, -1, -2), bb, M)"],
    "slice_scatter": ["torch.slice_scatter(A, B.t()[:, :2], 1, 0, 2)",
                      "A.slice_scatter(a[None], 0, 1)", "torch.slice_scatter(A, M[:, ::2], 1, "
                      "step=2)", "torch.slice_scatter(A, c[None], 0, end=-1)",
                      "dgrad(torch.slice_scatter(A, M[:, :2], 1, 0, 2), A, M)",
                      "dgrad(torch.slice_scatter(A, M[:, 1:], -1, 1), M, A)",
                      "dgrad(torch.slice_scatter(A, M[:, :2], -1, end=-1), A, M)"],
    "diagonal_scatter": ["torch.diagonal_scatter(A, bb)", "A.diagonal_scatter(bb, 1)",
                         "torch.diagonal_scatter(X, N, 0, 1, 2)",
                         "torch.diagonal_scatter(A, c[:1], -1)",
                         "dgrad(torch.diagonal_scatter(A, bb), bb, M)",
                         "dgrad(torch.diagonal_scatter(A, bb, 0, -1, -2), A, M)",
                         "dgrad(torch.diagonal_scatter(A, bb, 0, -1, -2), bb, M)"],
    # -- sampling at grid points (test_functional_extra) -----------------------------------------
    "grid_sampler_2d": [
        "F.grid_sample(C, Y.reshape(1, 3, 2, 2), align_corners=False)",
        "F.grid_sample(C, Y.reshape(1, 2, 3, 2), mode='nearest', padding_mode='border', "
        "align_corners=True)",
        "F.grid_sample(C, Y.reshape(1, 3, 2, 2) * 1.4, padding_mode='reflection', "
        "align_corners=True)",
        "F.grid_sample(C, F.affine_grid(M.unsqueeze(0) * 0.6, (1, 2, 3, 2), align_corners=False),"
        " padding_mode='border', align_corners=False)",
        "F.grid_sample(C, Y.reshape(1, 3, 2, 2) * 1.2, mode='bicubic', align_corners=False)",
        "F.grid_sample(C, Y.reshape(1, 2, 3, 2), mode='bicubic', padding_mode='reflection', "
        "align_corners=True)"],
    "grid_sampler_3d": [
        "F.grid_sample(C.unsqueeze(0), Y.reshape(1, 2, 2, 1, 3), align_corners=False)",
        "F.grid_sample(C.unsqueeze(0), Y.reshape(1, 1, 2, 2, 3) * 1.3, "
        "padding_mode='reflection', align_corners=False)"],
    "affine_grid_generator": [
        "F.affine_grid(M.unsqueeze(0), (1, 2, 3, 4), align_corners=False)",
        "F.affine_grid(A.reshape(1, 2, 3), [1, 1, 2, 3], align_corners=True)",
        "F.affine_grid(X.reshape(1, 3, 4), (1, 1, 2, 2, 3), align_corners=False)",
        "dgrad(F.affine_grid(M.unsqueeze(0), (1, 2, 3, 4), align_corners=False), M, "
        "torch.ones(1, 3, 4, 2, requires_grad=True))"],
    # -- bilinear, pdist, channel shuffle, 3-d adaptive max pool and unpool (test_functional_extra)
    "trilinear": ["F.bilinear(A, N, Y)", "F.bilinear(A, N, Y, bb)",
                  "F.bilinear(X, X.flip(0), Y.reshape(2, 3, 2)[:, :, :1].expand(2, 3, 3))",
                  "dgrad(F.bilinear(A, N, Y), A, bb.expand(2, 2))"],
    "pdist": ["F.pdist(C.reshape(8, 4))", "F.pdist(B, p=1)", "F.pdist(Y.reshape(4, 3), p=3)",
              "torch.pdist(A, 0.5)"],
    "channel_shuffle": ["F.channel_shuffle(W, 2)", "F.channel_shuffle(X.reshape(1, 4, 3), 2)",
                        "torch.nn.ChannelShuffle(2)(C)"],
    "adaptive_max_pool3d": ["F.adaptive_max_pool3d(C, (1, 2, 3))",
                            "F.adaptive_max_pool3d(C.unsqueeze(0), 2)"],
    "fractional_max_pool2d": [
        "F.fractional_max_pool2d(C, 2, 3, _random_samples=r[2:].expand(1, 2, 2))",
        "F.fractional_max_pool2d(C[0], (2, 1), (2, 3), _random_samples=r[1:].expand(1, 2, 2))"],
    "fractional_max_pool3d": [
        "F.fractional_max_pool3d(C.unsqueeze(0), (1, 2, 2), (1, 2, 2), "
        "_random_samples=r[2:].expand(1, 1, 3))"],
    "native_dropout": ["torch.native_dropout(A, 0.0, True)[0]",
                       "torch.native_dropout(X, 0.4, False)[0]",
                       "dgrad(torch.native_dropout(A, 0.0, True)[0], A, M)"],
    "conv_tbc": ["F.conv_tbc(X, B.unsqueeze(0), bb)", "torch.conv_tbc(X, Y, bb, 1)",
                 "F.conv_tbc(X.repeat(2, 1, 1), Y, bb, -1)"],
    "native_channel_shuffle": ["F.native_channel_shuffle(W, 2)",
                               "torch.native_channel_shuffle(C, 2)"],
    "max_unpool3d": ["F.max_unpool3d(*F.max_pool3d(C.unsqueeze(0), 2, return_indices=True), 2)",
                     "F.max_unpool3d(*F.max_pool3d(C, (1, 2, 2), return_indices=True), "
                     "(1, 2, 2))"],
    # -- torch.special's remaining functions (ops_special_more) ----------------------------------
    "special_ndtri": ["torch.special.ndtri(q)", "dgrad(torch.special.ndtri(q), q, p)"],
    "special_log_ndtr": ["torch.special.log_ndtr(a)", "torch.special.log_ndtr(A * 3)",
                         "dgrad(torch.special.log_ndtr(a), a, p)"],
    "special_erfcx": ["torch.special.erfcx(a)", "dgrad(torch.special.erfcx(a), a, p)"],
    "special_entr": ["torch.special.entr(p)", "dgrad(torch.special.entr(p), p, b)"],
    "special_i0e": ["torch.special.i0e(a)", "torch.special.i0e(A * 3)",
                    "dgrad(torch.special.i0e(a), a, p)", "dgrad(torch.special.i1e(a), a, p)"],
    "special_i1e": ["torch.special.i1e(a)", "dgrad(torch.special.i1e(a), a, p)",
                    "dgrad(torch.special.i0e(a), a, p)"],
    "special_xlog1py": ["torch.special.xlog1py(a, p)", "torch.special.xlog1py(c, p)",
                        "torch.special.xlog1py(A, q)",
                        "dgrad(torch.special.xlog1py(a, p), a, b)",
                        "dgrad(torch.special.xlog1py(a, p), p, b)"],
    "special_xlog1py_scalar": ["torch.special.xlog1py(a, 2.0)",
                               "dgrad(torch.special.xlog1py(a, 0.5), a, b)"],
    "special_xlog1py_of_scalar": ["torch.special.xlog1py(2.0, p)",
                                  "dgrad(torch.special.xlog1py(1.5, p), p, b)"],
    "special_zeta": ["torch.special.zeta(c.abs() + 2, p)",
                     "dgrad(torch.special.zeta(c.abs() + 2, p), p, b)"],
    "special_zeta_of_scalar": ["torch.special.zeta(2.5, p)",
                               "dgrad(torch.special.zeta(2.5, p), p, b)"],
    "special_zeta_scalar": ["torch.special.zeta(p + 1, 2.0)"],
    "round_decimals": ["torch.round(a, decimals=1)", "torch.special.round(A)",
                       "t = a.clone(); t.round_(decimals=2); t", "A.round(decimals=-1)"],
    "frexp": ["torch.frexp(a)[0]", "A.frexp().mantissa", "dgrad(torch.frexp(a)[0], a, p)"],
    "fill_out": ["torch.fill(a, 2.0)", "torch.fill(A, 1)"],
    "fill_out_tensor": ["torch.fill(a, s)", "torch.fill(c, s)", "torch.fill(A, torch.tensor(1.5))"],
    # -- the *_copy functions (engine/copies.py): a view op's twin, no view ------------------------
    "view:copy": ["torch.view_copy(A, (3, 2))", "torch.view_copy(a, (3, 1))"],
    "t:copy": ["torch.t_copy(A)", "torch.t_copy(a)"],
    "transpose:copy": ["torch.transpose_copy(A, 0, 1)", "torch.transpose_copy(X, -1, 0)"],
    "permute:copy": ["torch.permute_copy(X, (2, 0, 1))"],
    "expand:copy": ["torch.expand_copy(a, (2, 3))", "torch.expand_copy(U, (4, -1, 3))"],
    "squeeze:copy": ["torch.squeeze_copy(U)"],
    "squeeze_dim:copy": ["torch.squeeze_copy(U, 0)"],
    "unsqueeze:copy": ["torch.unsqueeze_copy(A, 1)", "torch.unsqueeze_copy(s, 0)"],
    "diagonal:copy": ["torch.diagonal_copy(X, 0, 1, 2)", "torch.diagonal_copy(A, 1)"],
    "select:copy": ["torch.select_copy(A, 0, 1)", "torch.select_copy(X, -1, 2)"],
    "slice:copy": ["torch.slice_copy(A, 1, 0, 2)", "torch.slice_copy(a)",
                   "torch.slice_copy(X, -1, 1, None, 2)"],
    "split:copy": ["torch.split_copy(A, 2, 1)[1]", "sum(torch.split_copy(a, 1))"],
    "split_with_sizes:copy": ["torch.split_with_sizes_copy(A, [1, 2], 1)[1]"],
    "unbind:copy": ["torch.unbind_copy(A)[0]", "torch.unbind_copy(X, 2)[1]"],
    "alias:copy": ["torch.alias_copy(A)"],
    "unfold:copy": ["torch.unfold_copy(a, 0, 2, 1)"],
    "as_strided_view:copy": ["torch.as_strided_copy(A, (2, 2), (1, 2))",
                             "torch.as_strided_copy(A, (2,), (2,), 1)"],
    "as_strided_inplace": ["t = A * 1; t.as_strided_((2, 2), (1, 2)); t",
                           "t = A * 1; t.as_strided_((2,), (2,), 1); t * t"],
    "histogramdd_counts:1": ["torch.histogramdd(A, bins=2).hist"],
    "histogramdd_counts:2": ["torch.histogramdd(Y, bins=[2, 3], weight=M).hist"],
    "histogramdd_edges:1:1": ["torch.histogramdd(B[:, :1], bins=3).bin_edges[0]"],
    "histogramdd_edges:1:2": ["torch.histogramdd(A, bins=[1, 2, 2]).bin_edges[2]"],
    "histogramdd_edges:2:1": ["torch.histogramdd(B[:, :1], bins=2, weight=a).bin_edges[0]"],
    "histogramdd_edges:2:2": ["torch.histogramdd(B, bins=2, weight=a).bin_edges[1]"],
    "angle": ["a.angle()", "torch.angle(A) * 2"],
    "conj_physical_": ["t = a * 1; t.conj_physical_(); t", "t = A * 1; torch.conj_physical_(t); t"],
    "detach_copy": ["torch.detach_copy(A)", "torch.detach_copy(a) * 2"],
    "as_strided_scatter": ["torch.as_strided_scatter(A * 1, N, (2, 2), (1, 2))",
                           "A.as_strided_scatter(a[:2], (2,), (2,), 1)",
                           "torch.as_strided_scatter(c.repeat(2), a, (3,), (2,))"],
    "index_reduce": ["A.index_reduce(1, torch.tensor([0, 2, 0]), M * 2, 'prod')",
                     "A.index_reduce(0, torch.tensor([1, 1]), M, 'mean', include_self=False)",
                     "A.index_reduce(1, torch.tensor([2, 2, 1]), M, 'amax')",
                     "a.index_reduce(0, torch.tensor([0, 0, 2]), b, 'amin', include_self=False)",
                     "t = A * 1; t.index_reduce_(1, torch.tensor([1, 0, 1]), M, 'mean'); t"],
    "rsub_tensor": ["torch.rsub(a, b)", "torch.rsub(A, a, alpha=2)", "torch.rsub(c, a)",
                    "dgrad(torch.rsub(a, b, alpha=3), a, p)"],
}

# Table keys no torch-API call reaches, with the reason.
INTERNAL_ONLY: dict[str, str] = {}

CASES = [pytest.param(key, code, id=f"{key}: {code}")
         for key, codes in EXAMPLES.items() for code in codes]

RTOL = ATOL = 1e-5


def upstream(shape: tuple[int, ...]) -> np.ndarray:
    """The fixed upstream gradient: 0.5, -0.75, 1.0, -1.25, ... in the output's shape."""
    k = np.arange(int(np.prod(shape)), dtype=np.float64)
    return ((-1.0) ** k * (0.5 + 0.25 * k)).reshape(shape)


def requiring_grad(inputs: dict[str, Any]) -> Iterator[tuple[str, Any]]:
    return ((name, t) for name, t in inputs.items() if INPUTS[name].requires_grad)


def _fmt(x: np.ndarray) -> str:
    return np.array2string(x, precision=6, separator=", ")


def _mismatch(what: str, expected: np.ndarray, got: np.ndarray) -> str | None:
    if expected.shape != got.shape:
        return f"{what}: shape {list(got.shape)}, torch {list(expected.shape)}"
    if np.allclose(got, expected, rtol=RTOL, atol=ATOL):
        return None
    return (f"{what}: max |diff| {np.max(np.abs(got - expected)):.3g}\n"
            f"    ours:  {_fmt(got)}\n    torch: {_fmt(expected)}")


# -- coverage -------------------------------------------------------------------------------------
def test_every_op_lists_its_saved_values_by_name() -> None:
    """A node's saved values in alphabetical order, as PyTorch's ``_saved_*`` attributes list
    (``dir()``), which is how the real-torch recorder reads them: so both recorders list a
    node's buffers, and a diagnosis names them, in one order."""
    unsorted = {key: names for key, op in TABLE.items()
                if (names := list(op.saved_names())) != sorted(names)}
    assert not unsorted, unsorted


def test_every_table_op_has_examples() -> None:
    keys = set(TABLE)
    missing = sorted(keys - set(EXAMPLES) - set(INTERNAL_ONLY))
    stale = sorted((set(EXAMPLES) | set(INTERNAL_ONLY)) - keys)
    both = sorted(set(EXAMPLES) & set(INTERNAL_ONLY))
    assert not missing, f"table ops without an example (add them to EXAMPLES): {missing}"
    assert not stale, f"EXAMPLES / INTERNAL_ONLY name ops the table no longer has: {stale}"
    assert not both, f"ops both in EXAMPLES and INTERNAL_ONLY: {both}"
    assert all(EXAMPLES[k] for k in EXAMPLES), "every EXAMPLES entry needs at least one snippet"


def _graph_nodes(root: Any) -> list[Any]:
    """The nodes of ``root``'s graph, each once, depth first along next_functions."""
    out, stack, seen = [], [root], set()
    while stack:
        fn = stack.pop()
        if fn is None or id(fn) in seen:
            continue
        seen.add(id(fn))
        out.append(fn)
        stack.extend(nxt for nxt, _ in reversed(fn.next_functions))
    return out


def _node_names(root: Any) -> set[str]:
    return {n.name() for n in _graph_nodes(root)}


@pytest.mark.parametrize("key", sorted(set(EXAMPLES) & set(TABLE)))
def test_examples_reach_their_op(key: str) -> None:
    """At least one example of ``key`` puts a node of that op into the graph."""
    name = TABLE[key].name
    found: dict[str, set[str]] = {}
    for code in EXAMPLES[key]:
        inputs = build_inputs(ours, input_names(code))
        out = run_snippet(ours, code, inputs)
        found[code] = _node_names(out.grad_fn) if out.grad_fn is not None else set()
        if name in found[code]:
            return
    listing = "\n".join(f"  {code!r}: {sorted(names)}" for code, names in found.items())
    pytest.fail(f"no example of {key!r} builds a {name} node; the graphs hold:\n{listing}")


# -- against real PyTorch -------------------------------------------------------------------------
HARNESS = load_harness()


def _both(code: str) -> tuple[tuple[dict[str, Any], Any], tuple[dict[str, Any], Any]]:
    """(inputs, output) of ``code`` in real torch, then in ours, from the same values."""
    import torch

    names = input_names(code)
    results = []
    for module in (torch, ours):
        inputs = build_inputs(module, names)
        results.append((inputs, run_snippet(module, code, inputs)))
    return results[0], results[1]


def _backward(module: Any, out: Any) -> None:
    g = upstream(tuple(out.shape))
    out.backward(module.tensor(g.tolist(), dtype=out.dtype))


def _grad_mismatches(t_in: dict[str, Any], o_in: dict[str, Any]) -> list[str]:
    problems = []
    for (name, t), (_, o) in zip(requiring_grad(t_in), requiring_grad(o_in)):
        if t.grad is None or o.grad is None:
            if (t.grad is None) != (o.grad is None):
                problems.append(f"{name}.grad: ours {'None' if o.grad is None else 'set'}, "
                                f"torch {'None' if t.grad is None else 'set'}")
            continue
        m = _mismatch(f"{name}.grad", to_array(t.grad), to_array(o.grad))
        if m:
            problems.append(m)
    return problems


@requires_torch
@pytest.mark.parametrize(("key", "code"), CASES)
def test_values_and_grads_match_torch(key: str, code: str) -> None:
    """Forward values, the output's dtype and flags, and every input's ``.grad`` after one
    backward with the fixed upstream gradient."""
    import torch

    (t_in, t_out), (o_in, o_out) = _both(code)
    problems = [m for m in [_mismatch("forward value", to_array(t_out), to_array(o_out))] if m]
    meta_t = (str(t_out.dtype), bool(t_out.requires_grad), bool(t_out.is_leaf))
    meta_o = (str(o_out.dtype), bool(o_out.requires_grad), bool(o_out.is_leaf))
    if meta_t != meta_o:
        problems.append(f"(dtype, requires_grad, is_leaf): ours {meta_o}, torch {meta_t}")
    if t_out.requires_grad and o_out.requires_grad:
        expected_error = _backward_error(torch, t_out)
        try:
            _backward(ours, o_out)
        except Exception as e:  # reported with the forward's differences
            if f"{type(e).__name__}: {e}" != expected_error:
                problems.append(f"our backward raised {type(e).__name__}: {e}; "
                                f"torch's: {expected_error}")
        else:
            if expected_error is not None:
                problems.append(f"our backward ran; torch's raised {expected_error}")
        problems += _grad_mismatches(t_in, o_in)
    assert not problems, f"{code!r} differs from PyTorch:\n" + "\n".join(problems)


def _backward_error(module: Any, out: Any) -> str | None:
    """The error a backward raises (an op PyTorch has no derivative for), or None."""
    try:
        _backward(module, out)
    except RuntimeError as e:        # NotImplementedError too (unique's backward, asinh_'s)
        return f"{type(e).__name__}: {e}"
    return None


@requires_torch
@pytest.mark.parametrize(("key", "code"), CASES)
def test_graph_matches_torch(key: str, code: str) -> None:
    """The canonical graph (names, next_functions, tensor-valued saved slots), before and
    after one backward (which frees every saved tensor)."""
    import torch

    if HARNESS is None:
        pytest.skip("shared/oracle/harness.py not found")
    (t_in, t_out), (o_in, o_out) = _both(code)
    problems: list[str] = []
    for stage in ("before backward", "after backward"):
        if stage == "after backward":
            if t_out.grad_fn is None:
                break
            expected_error = _backward_error(torch, t_out)
            try:
                _backward(ours, o_out)
            except Exception as e:  # the graph before it matched: report the error alone
                if f"{type(e).__name__}: {e}" != expected_error:
                    problems.append(f"our backward raised {type(e).__name__}: {e}")
                    break
        expected = HARNESS.canonical_graph(t_out.grad_fn, list(t_in.items()))
        got = HARNESS.canonical_graph(o_out.grad_fn, list(o_in.items()))
        diffs = HARNESS.diff(expected, got)
        if diffs:
            problems.append(f"{stage}:\n" + "\n".join(f"    {d}" for d in diffs)
                            + f"\n  ours:\n{compact_graph(got)}\n  torch:\n"
                            f"{compact_graph(expected)}")
            break
    assert not problems, f"the graph of {code!r} differs from PyTorch's, " + "\n".join(problems)


def _saved_attribute_names(root: Any) -> list[tuple[str, list[str]]]:
    """Per node of the graph (depth first along next_functions): its name and the
    ``_saved_*`` / ``_raw_saved_*`` attributes ``dir()`` lists."""
    return [(fn.name(), sorted(n for n in dir(fn) if n.startswith(("_saved_", "_raw_saved_"))))
            for fn in _graph_nodes(root)]


@requires_torch
@pytest.mark.parametrize(("key", "code"), CASES)
def test_saved_attribute_names_match_torch(key: str, code: str) -> None:
    """``dir(node)`` lists the ``_raw_saved_*`` attributes of PyTorch's node (saved tensors
    only), and no ``_saved_*`` attribute PyTorch's node lacks (PyTorch's metadata attributes,
    ``MmBackward0._saved_self_sym_strides`` and the like, the engine may lack)."""
    (_, t_out), (_, o_out) = _both(code)
    if t_out.grad_fn is None:
        pytest.skip("no graph")
    theirs, ours_ = _saved_attribute_names(t_out.grad_fn), _saved_attribute_names(o_out.grad_fn)
    assert [name for name, _ in ours_] == [name for name, _ in theirs]
    problems = []
    for (name, t_attrs), (_, o_attrs) in zip(theirs, ours_, strict=True):
        raw_t = [a for a in t_attrs if a.startswith("_raw_")]
        raw_o = [a for a in o_attrs if a.startswith("_raw_")]
        if raw_o != raw_t:
            problems.append(f"{name}: _raw_saved_ ours {raw_o}, torch {raw_t}")
        if extra := sorted(set(o_attrs) - set(t_attrs)):
            problems.append(f"{name}: ours has {extra}, torch does not")
    assert not problems, "\n".join(problems)


def _plain_saved_values(root: Any) -> list[tuple[str, dict[str, str]]]:
    """Per node (depth first): the ``_saved_*`` values that are not tensors (dims, flags,
    scalars), as text."""
    out = []
    for fn in _graph_nodes(root):
        values = {}
        for attr in dir(fn):
            if not attr.startswith("_saved_"):
                continue
            value = getattr(fn, attr)
            parts = value if isinstance(value, list | tuple) else [value]
            if value is not None and not any(hasattr(v, "grad_fn") for v in parts):
                values[attr] = str(value)
        out.append((fn.name(), values))
    return out


@requires_torch
@pytest.mark.parametrize(("key", "code"), CASES)
def test_saved_attribute_values_match_torch(key: str, code: str) -> None:
    """The non-tensor ``_saved_*`` values both nodes have read the same: dims as given (a
    negative one unsigned, as PyTorch shows int64s), Python ints as ints, floats as floats."""
    (_, t_out), (_, o_out) = _both(code)
    if t_out.grad_fn is None:
        pytest.skip("no graph")
    problems = []
    for (name, t_vals), (_, o_vals) in zip(_plain_saved_values(t_out.grad_fn),
                                          _plain_saved_values(o_out.grad_fn), strict=True):
        problems += [f"{name}.{a}: ours {o_vals[a]}, torch {t_vals[a]}"
                     for a in sorted(set(t_vals) & set(o_vals)) if t_vals[a] != o_vals[a]]
    assert not problems, "\n".join(problems)


def _saved_tensors(root: Any, storage: Any) -> list[tuple[str, dict[str, tuple[str, int]]]]:
    """Per node (depth first): each saved tensor's dtype and the bytes of the storage it
    keeps alive (``storage(node, attr, tensor)``)."""
    out = []
    for fn in _graph_nodes(root):
        found = {}
        for attr in dir(fn):
            if attr.startswith("_saved_"):
                try:
                    value = getattr(fn, attr)
                except RuntimeError:
                    continue
                if hasattr(value, "grad_fn"):
                    found[attr] = (str(value.dtype), storage(fn, attr, value))
        out.append((fn.name(), found))
    return out


@requires_torch
@pytest.mark.parametrize(("key", "code"), CASES)
def test_saved_tensors_keep_pytorchs_storage(key: str, code: str) -> None:
    """What a saved tensor keeps alive is its whole storage (a view's base), in PyTorch's
    dtype: the bytes a recording shows alive or freed are PyTorch's."""
    (_, t_out), (_, o_out) = _both(code)
    if t_out.grad_fn is None:
        pytest.skip("no graph")

    def ours_of(fn: Any, attr: str, value: Any) -> int:
        return int(fn._saved[attr[len("_saved_"):]].nbytes)

    theirs = _saved_tensors(t_out.grad_fn, lambda fn, a, v: int(v.untyped_storage().nbytes()))
    mine = _saved_tensors(o_out.grad_fn, ours_of)
    problems = [f"{name}.{a}: ours {m[a]}, torch {t[a]}"
                for (name, t), (_, m) in zip(theirs, mine, strict=True)
                for a in sorted(set(t) & set(m)) if t[a] != m[a]]
    assert not problems, "\n".join(problems)


# in-place forms whose PyTorch node raises NotImplementedError when a backward reaches it
INPLACE_NO_DERIVATIVE = {"asinh_", "acosh_", "atanh_"}

# NB: create_graph through the fused LSTM layer, group norm, ... raises
# NotImplementedError (the README's known differences; test_recurrent, test_norm check it)
NO_DOUBLE_BACKWARD = {"standard_gamma", "cholesky_inverse", "mkldnn_rnn_layer", "native_group_norm",
                      "linalg_householder_product",
                      "cdist",
                      "euclidean_dist", "linalg_svd", "linalg_eigh", "linalg_qr", "linalg_pinv",
                      "scatter_reduce", "embedding_bag", "max_pool3d_with_indices",
                      "avg_pool3d", "adaptive_avg_pool3d",
                      "ctc_loss", "grid_sampler_2d", "grid_sampler_3d", "pdist",
                      "adaptive_max_pool3d", "max_unpool3d", "fractional_max_pool2d",
                      "fractional_max_pool3d", "conv_tbc", "ormqr", "as_strided_scatter",
                      "index_reduce"}
# ops whose node's backward raises PyTorch's "the derivative for '...' is not implemented."
NO_DERIVATIVE = {"unique", "unique_dim", "unique_consecutive", "geqrf", "special_zeta_scalar"}
DOUBLE_CASES = [pytest.param(key, code, id=f"{key}: {code}") for key, codes in EXAMPLES.items()
                if key in TABLE and key not in NO_DOUBLE_BACKWARD for code in codes
                if "dgrad" not in code]


@requires_torch
@pytest.mark.parametrize(("key", "code"), DOUBLE_CASES)
def test_double_backward_graph_matches_torch(key: str, code: str) -> None:
    """``create_graph=True`` through the example (the gradient of its sum by its first input
    that requires grad): the gradient's graph is PyTorch's, node for node, or both have none."""
    import torch

    graphs = []
    wrt = next((n for n in input_names(code) if INPUTS[n].requires_grad), None)
    if wrt is None:
        pytest.skip("no input requires grad")
    for module in (torch, ours):
        inputs = build_inputs(module, input_names(code))
        out = run_snippet(module, code, inputs)
        if not out.requires_grad:
            pytest.skip("no graph")
        total = out.sum() if out.dim() else out
        try:
            g = module.autograd.grad(total, [inputs[wrt]], create_graph=True,
                                     allow_unused=True)[0]
        except RuntimeError as e:     # NB: an op with no derivative: the same error, no graph
            graphs.append(f"RuntimeError: {e}")
            continue
        graphs.append(None if g is None or g.grad_fn is None else
                      HARNESS.canonical_graph(g.grad_fn, list(inputs.items())))
    expected, got = graphs
    if expected is None or got is None or isinstance(expected, str) or isinstance(got, str):
        assert expected == got, f"torch: {expected}\nours: {got}"
        return
    diffs = HARNESS.diff(expected, got)
    assert not diffs, "\n".join(diffs) + f"\n  ours:\n{compact_graph(got)}\n  torch:\n" \
        f"{compact_graph(expected)}"


@requires_torch
@pytest.mark.parametrize(("key", "code"), [
    c for c in DOUBLE_CASES if TABLE[c.values[0]].name != "torch::autograd::NotImplemented"
    and c.values[0] not in NO_DERIVATIVE and c.values[0] not in INPLACE_NO_DERIVATIVE])
def test_double_backward_nodes_are_made_in_pytorchs_order(key: str, code: str) -> None:
    """``create_graph=True`` by every input that requires grad: the gradients' nodes are made
    in PyTorch's order (its generated code computes a two-input op's second gradient first,
    and its C++ formulas a product's right operand first). The order decides which node a
    backward through them runs first, so a backward's steps."""
    import torch

    orders = []
    wrts = [n for n in input_names(code) if INPUTS[n].requires_grad]
    for module in (torch, ours):
        inputs = build_inputs(module, input_names(code))
        out = run_snippet(module, code, inputs)
        if not out.requires_grad or not wrts:
            pytest.skip("no graph")
        total = out.sum() if out.dim() else out
        grads = module.autograd.grad(total, [inputs[w] for w in wrts], create_graph=True,
                                     allow_unused=True)
        nodes: list[Any] = []
        seen: set[int] = set()
        for g in grads:
            if g is not None and g.grad_fn is not None:
                for n in _graph_nodes(g.grad_fn):
                    if id(n) not in seen and not n.name().endswith("AccumulateGrad"):
                        seen.add(id(n))
                        nodes.append(n)
        # NB: each node by its place in the (identical) graphs, in the order it was made
        made = sorted(range(len(nodes)), key=lambda i: nodes[i]._sequence_nr())
        orders.append([(i, nodes[i].name()) for i in made])
    assert orders[0] == orders[1], f"torch: {orders[0]}\nours:  {orders[1]}"


# -- finite differences, float64, no PyTorch ------------------------------------------------------
EPS = 1e-6
GRAD_RTOL = GRAD_ATOL = 1e-5


def _weights(shape: tuple[int, ...]) -> np.ndarray:
    return np.random.default_rng(1234).uniform(-1.0, 1.0, size=shape)


def _objective(code: str, names: list[str], w: np.ndarray,
               overrides: dict[str, np.ndarray]) -> float:
    inputs = build_inputs(ours, names, np.float64, overrides)
    return float(np.sum(to_array(run_snippet(ours, code, inputs)) * w))


# NB: by design PyTorch's gradient here is not the derivative (the values the tests above
# compare with PyTorch's): the padding row of an embedding gets none, ``scale_grad_by_freq``
# divides each row's by how often its index occurs, and an in-place edit through an
# ``unsafe_split`` piece changes its input behind autograd's back; a normal sample's gradient
# with respect to its mean and std is zero (not the reparameterised one); a gamma sample's is an
# approximation of the implicit one, and its rejection sampler is not smooth in alpha
NOT_THE_DERIVATIVE = {"torch.manual_seed(0); torch._standard_gamma(p)",
                      "torch.manual_seed(1); torch._standard_gamma(A * A + 0.2)",
                      "torch.manual_seed(0); torch.normal(a, p)",
                      "torch.manual_seed(1); torch.normal(A, M * M + 0.5)",
                      "torch.manual_seed(0); torch.normal(a, 2.0)",
                      "torch.manual_seed(0); torch.normal(1.5, p)",
                      "F.embedding(tgt, B, padding_idx=0)", "F.embedding(I, B, padding_idx=-1)",
                      "F.embedding(I, B, scale_grad_by_freq=True)",
                      "F.embedding(I, B * 2, padding_idx=1, scale_grad_by_freq=True)",
                      "B2 = A * 1; u = B2.unsafe_chunk(3, 1); u[1].mul_(2); B2",
                      # NB: PyTorch 2.13 keeps self's gradient where src was written
                      "torch.as_strided_scatter(A * 1, N, (2, 2), (1, 2))",
                      "A.as_strided_scatter(a[:2], (2,), (2,), 1)"}


@pytest.mark.parametrize(("key", "code"),
                         [c for c in CASES if c.values[1] not in NOT_THE_DERIVATIVE])
def test_gradcheck(key: str, code: str) -> None:
    """The gradient of ``sum(out * w)`` against central differences, in float64."""
    names = input_names(code)
    inputs = build_inputs(ours, names, np.float64)
    out = run_snippet(ours, code, inputs)
    assert out.requires_grad, f"{code!r}: the output does not require grad"
    assert str(out.dtype) == "torch.float64", f"{code!r}: float64 inputs gave {out.dtype}"
    w = _weights(tuple(out.shape))
    if key in NO_DERIVATIVE:
        with pytest.raises(NotImplementedError,
                           match=r"the derivative for '\w+' is not implemented"):
            out.backward(ours.tensor(w.tolist(), dtype=ours.float64))
        return
    if TABLE[key].name == "torch::autograd::NotImplemented":
        # NB: an op PyTorch has no derivative for: its backward raises, as PyTorch's
        with pytest.raises(RuntimeError, match=r"derivative for aten::\w+ is not implemented"):
            out.backward(ours.tensor(w.tolist(), dtype=ours.float64))
        return
    if key in INPLACE_NO_DERIVATIVE:
        with pytest.raises(NotImplementedError, match=r"derivative for 'inplace version of"):
            out.backward(ours.tensor(w.tolist(), dtype=ours.float64))
        return
    out.backward(ours.tensor(w.tolist(), dtype=ours.float64))
    base = {n: INPUTS[n].array(np.float64) for n in names}
    problems = []
    for name, t in requiring_grad(inputs):
        analytic = to_array(t.grad) if t.grad is not None else np.zeros(base[name].shape)
        numeric = np.zeros(base[name].shape)
        for i in np.ndindex(base[name].shape):
            hi, lo = base[name].copy(), base[name].copy()
            hi[i] += EPS
            lo[i] -= EPS
            numeric[i] = (_objective(code, names, w, {name: hi})
                          - _objective(code, names, w, {name: lo})) / (2 * EPS)
        if not np.allclose(analytic, numeric, rtol=GRAD_RTOL, atol=GRAD_ATOL):
            problems.append(f"d/d{name}: max |diff| {np.max(np.abs(analytic - numeric)):.3g}\n"
                            f"    analytic: {_fmt(analytic)}\n    numeric:  {_fmt(numeric)}")
    assert not problems, (f"{code!r}: analytic gradient != finite differences\n"
                          + "\n".join(problems))


# -- ops the executor trusts ----------------------------------------------------------------------
EXACT = sorted(k for k in EXAMPLES if k in TABLE and TABLE[k].exact)


def test_some_ops_are_exact() -> None:
    assert {"mm", "tanh", "sigmoid", "relu", "exp"} <= set(EXACT)


@pytest.mark.parametrize("key", EXACT)
def test_exact_ops_need_no_validation(monkeypatch: pytest.MonkeyPatch, key: str) -> None:
    """An op marked ``exact`` skips the executor's check of its gradients: over its examples,
    in float32 and float64, its formula must give each input's gradient as an array of that
    input's shape and dtype already."""
    from graphviz_autograd.engine import executor
    from graphviz_autograd.engine.optable import NP

    op = TABLE[key]
    formula = op.backward
    checked: list[str] = []

    def described(grads: Any) -> list[str]:
        return [f"{type(x).__name__} {getattr(x, 'shape', '')} {getattr(x, 'dtype', '')}"
                for x in grads]

    def watched(c: Any, g: Any, D: Any) -> Any:
        raw = formula(c, g, D)
        if D is NP and c.node._meta[0][0]:
            fixed = executor._validate(c.node, raw, D)
            checked.append("ok" if fixed is raw else f"{described(raw)} -> {described(fixed)}")
        return raw

    monkeypatch.setattr(op, "backward", watched)
    problems = []
    runs = 0
    for code in EXAMPLES[key]:
        if code.startswith("dgrad"):
            continue
        for dtype in (np.float32, np.float64):
            checked.clear()
            inputs = build_inputs(ours, input_names(code), dtype)
            out = run_snippet(ours, code, inputs)
            out.backward(ours.tensor(upstream(tuple(out.shape)).tolist(), dtype=out.dtype))
            problems += [f"{code!r} ({np.dtype(dtype).name}): {c}" for c in checked if c != "ok"]
            runs += len(checked)
    assert runs, f"no example of {key!r} ran {op.name} on a non-0-d output"
    assert not problems, f"{op.name} gave gradients that need fixing:\n" + "\n".join(problems)


# the engine's refusals of create_graph through an in-place op on a view (README's known
# differences), where PyTorch builds CopySlices / AsStrided graphs
_INPLACE_VIEW_DOUBLE = {
    "RuntimeError: create_graph through an in-place op on a view is not supported by this engine",
    "RuntimeError: double backward through a view modified in place is not supported by this "
    "engine"}


def _weight_like(module: Any, out: Any) -> Any:
    """A leaf of ``out``'s shape and dtype that requires grad, with distinct values."""
    n = int(np.prod(out.shape))
    values = (np.cos(np.arange(n) * 1.3 + 0.2) * 0.9 + 0.05).reshape(tuple(out.shape))
    return module.tensor(values.tolist(), dtype=out.dtype, requires_grad=True)


@requires_torch
@pytest.mark.parametrize(("key", "code"), DOUBLE_CASES)
def test_double_backward_under_a_gradient_with_a_graph(key: str, code: str) -> None:
    """``create_graph=True`` through the example weighted by a leaf ``w`` (the gradient of
    ``(out * w).sum()`` by every input that requires grad): each backward formula then runs on
    a gradient that has a graph, so every node it makes shows (a constant gradient of ones
    hides the nodes made from it). The gradients' graphs are PyTorch's, node for node."""
    import torch

    graphs = []
    wrts = [n for n in input_names(code) if INPUTS[n].requires_grad]
    for module in (torch, ours):
        inputs = build_inputs(module, input_names(code))
        out = run_snippet(module, code, inputs)
        if not out.requires_grad or not wrts or not out.is_floating_point():
            pytest.skip("no graph")
        w = _weight_like(module, out)
        try:
            grads = module.autograd.grad((out * w).sum(), [inputs[n] for n in wrts],
                                         create_graph=True, allow_unused=True)
        except RuntimeError as e:     # NB: an op with no derivative: the same error, no graph
            graphs.append(f"RuntimeError: {e}")
            continue
        named = [*inputs.items(), ("w", w)]
        graphs.append([None if g is None or g.grad_fn is None else
                       HARNESS.canonical_graph(g.grad_fn, named) for g in grads])
    expected, got = graphs
    if isinstance(got, str) and got in _INPLACE_VIEW_DOUBLE and not isinstance(expected, str):
        return                        # NB: a known difference (README): refused, never wrong
    if isinstance(expected, str) or isinstance(got, str):
        assert expected == got, f"torch: {expected}\nours: {got}"
        return
    for name, e, g in zip(wrts, expected, got, strict=True):
        if e is None or g is None:
            assert e == g, f"d/d{name}: torch: {e}\nours: {g}"
            continue
        diffs = HARNESS.diff(e, g)
        assert not diffs, f"d/d{name}:\n" + "\n".join(diffs) + \
            f"\n  ours:\n{compact_graph(g)}\n  torch:\n{compact_graph(e)}"
