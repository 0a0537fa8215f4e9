"""Table entry: the connectionist temporal classification loss (ctc_loss: CtcLossBackward0),
with its forward variables ``log_alpha`` saved as ``result1``, as PyTorch's CPU kernel."""

from __future__ import annotations

from typing import Any

import numpy as np

from .optable import Op, Save, no_double_backward, register

NEG_INF = -np.inf


def _lse(*xs: float) -> float:
    m = max(xs)
    if m == NEG_INF:
        return NEG_INF
    return float(np.log(sum(np.exp(x - m) for x in xs)) + m)


def _target(targets: np.ndarray, lengths: tuple[int, ...], b: int) -> np.ndarray:
    if targets.ndim == 2:
        return targets[b, :lengths[b]]
    start = int(sum(lengths[:b]))
    return targets[start:start + lengths[b]]


def _prime(tg: np.ndarray, s: int, blank: int) -> int:
    return blank if s % 2 == 0 else int(tg[s // 2])


def _ctc_fwd(lp: np.ndarray, targets: np.ndarray, *, input_lengths: tuple[int, ...],
             target_lengths: tuple[int, ...], blank: int = 0, zero_infinity: bool = False
             ) -> tuple[np.ndarray, dict[str, Any]]:
    steps, batch, _ = lp.shape
    longest = targets.shape[1] if targets.ndim == 2 else max(target_lengths, default=0)
    # NB: PyTorch leaves the entries past an input's or target's length unwritten; -inf here
    alpha = np.full((batch, steps, 2 * longest + 1), NEG_INF)
    nll = np.empty(batch)
    x = lp.astype(np.float64)
    for b in range(batch):
        n_in, n_tg = input_lengths[b], target_lengths[b]
        tg = _target(targets, target_lengths, b)
        a = alpha[b]
        a[0, 0] = x[0, b, blank]
        if n_tg > 0:
            a[0, 1] = x[0, b, tg[0]]
        for t in range(1, n_in):
            for s in range(2 * n_tg + 1):
                cur = _prime(tg, s, blank)
                la1 = a[t - 1, s]
                la2 = a[t - 1, s - 1] if s > 0 else NEG_INF
                la3 = a[t - 1, s - 2] if s > 1 and _prime(tg, s - 2, blank) != cur else NEG_INF
                a[t, s] = _lse(la1, la2, la3) + x[t, b, cur]
        if n_tg == 0:
            nll[b] = -a[n_in - 1, 0]
        else:
            nll[b] = -_lse(a[n_in - 1, 2 * n_tg], a[n_in - 1, 2 * n_tg - 1])
    return nll.astype(lp.dtype), {"result1": alpha.astype(lp.dtype)}


def _ctc_bw(c: Any, g: Any, D: Any) -> tuple[Any, ...]:
    if D.tensor_mode:
        raise no_double_backward("CtcLossBackward0")
    a = c.attrs
    blank, lengths_in, lengths_tg = a["blank"], a["input_lengths"], a["target_lengths"]
    x = np.asarray(c.log_probs).astype(np.float64)
    alpha = np.asarray(c.result1).astype(np.float64)
    nll = np.asarray(c.result0).astype(np.float64)
    targets = np.asarray(c.targets)
    steps, batch, classes = x.shape
    grad = np.zeros_like(x)
    g = np.asarray(g, dtype=np.float64).reshape(batch)
    for b in range(batch):
        n_in, n_tg = lengths_in[b], lengths_tg[b]
        tg = _target(targets, lengths_tg, b)
        if a.get("zero_infinity", False) and nll[b] == np.inf:
            continue
        beta = np.full((steps, 2 * n_tg + 1), NEG_INF)
        beta[n_in - 1, 2 * n_tg] = x[n_in - 1, b, blank]
        if n_tg > 0:
            beta[n_in - 1, 2 * n_tg - 1] = x[n_in - 1, b, tg[n_tg - 1]]
        for t in range(n_in - 2, -1, -1):
            for s in range(2 * n_tg + 1):
                cur = _prime(tg, s, blank)
                lb1 = beta[t + 1, s]
                lb2 = beta[t + 1, s + 1] if s < 2 * n_tg else NEG_INF
                lb3 = beta[t + 1, s + 2] if s < 2 * n_tg - 1 and \
                    _prime(tg, s + 2, blank) != cur else NEG_INF
                beta[t, s] = _lse(lb1, lb2, lb3) + x[t, b, cur]
        for t in range(n_in):
            lcab = np.full(classes, NEG_INF)
            for s in range(2 * n_tg + 1):
                cur = _prime(tg, s, blank)
                lcab[cur] = _lse(lcab[cur], alpha[b, t, s] + beta[t, s])
            lp = x[t, b]
            grad[t, b] = (np.exp(lp) - np.exp(lcab + nll[b] - lp)) * g[b]
    return (grad.astype(np.asarray(c.log_probs).dtype),)


register(
    Op("ctc_loss", "CtcLossBackward0", ("log_probs",), _ctc_fwd, _ctc_bw,
       (Save("log_probs"), Save("result0", output=0), Save("result1"), Save("targets")),
       ("blank", "input_lengths", "target_lengths", "zero_infinity"), extras=("result1",)),
)
