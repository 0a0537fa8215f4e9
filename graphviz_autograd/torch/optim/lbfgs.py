"""``torch.optim.LBFGS``: limited-memory BFGS over all parameters as one flat vector, with an
optional strong-Wolfe line search. The arithmetic is PyTorch's: its 0-d tensors are numpy
scalars of the parameters' dtype (NumPy's promotion of a Python float against one is
PyTorch's), and ``add_(..., alpha=...)`` is a fused multiply-add as on PyTorch's CPU."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

import numpy as np

from ...engine import events
from ...engine.grad_mode import enable_grad, no_grad
from ...engine.pre_write import WATCH as _WATCH
from ...engine.pre_write import before_write
from ...engine.tensor import Tensor
from . import Optimizer, _check, _tensor
from .more import _fma

__all__ = ["LBFGS"]

Num = Any           # a Python float or int, or a numpy scalar standing for a 0-d tensor


def _cubic_interpolate(x1: Num, f1: Num, g1: Num, x2: Num, f2: Num, g2: Num,
                       bounds: tuple[Num, Num] | None = None) -> Num:
    """The minimiser of the cubic through two points with their slopes, kept in ``bounds``
    (by default the interval between the points; its middle where the cubic has none)."""
    lo, hi = bounds if bounds is not None else ((x1, x2) if x1 <= x2 else (x2, x1))
    d1 = g1 + g2 - 3 * (f1 - f2) / (x1 - x2)
    d2_square = d1 ** 2 - g1 * g2
    if d2_square >= 0:
        d2 = np.sqrt(d2_square)
        if x1 <= x2:
            pos = x2 - (x2 - x1) * ((g2 + d2 - d1) / (g2 - g1 + 2 * d2))
        else:
            pos = x1 - (x1 - x2) * ((g1 + d2 - d1) / (g1 - g2 + 2 * d2))
        return min(max(pos, lo), hi)
    return (lo + hi) / 2.0


def _strong_wolfe(obj: Callable[[Num], tuple[float, np.ndarray]], t: Num, d: np.ndarray,
                  f: float, g: np.ndarray, gtd: Num, c1: float = 1e-4, c2: float = 0.9,
                  tolerance_change: float = 1e-9,
                  max_ls: int = 25) -> tuple[float, np.ndarray, Num, int]:
    """A step ``t`` along ``d`` meeting the strong Wolfe conditions: a bracketing phase, then
    zooming by cubic interpolation. Returns the loss and gradient there, ``t`` and the number
    of evaluations."""
    d_norm = np.abs(d).max()
    g = g.copy()
    f_new, g_new = obj(t)
    evals = 1
    gtd_new = g_new.dot(d)
    t_prev, f_prev, g_prev, gtd_prev = 0, f, g, gtd
    done = False
    ls_iter = 0
    bracket: list[Num] = []
    bracket_f: list[Num] = []
    bracket_g: list[np.ndarray] = []
    bracket_gtd: list[Num] = []
    while ls_iter < max_ls:
        if f_new > (f + c1 * t * gtd) or (ls_iter > 1 and f_new >= f_prev):
            bracket, bracket_f = [t_prev, t], [f_prev, f_new]
            bracket_g, bracket_gtd = [g_prev, g_new.copy()], [gtd_prev, gtd_new]
            break
        if abs(gtd_new) <= -c2 * gtd:
            bracket, bracket_f, bracket_g = [t], [f_new], [g_new]
            done = True
            break
        if gtd_new >= 0:
            bracket, bracket_f = [t_prev, t], [f_prev, f_new]
            bracket_g, bracket_gtd = [g_prev, g_new.copy()], [gtd_prev, gtd_new]
            break
        # extrapolate, at least 1% past t and at most ten times t
        lo, hi, t_old = t + 0.01 * (t - t_prev), t * 10, t
        t = _cubic_interpolate(t_prev, f_prev, gtd_prev, t, f_new, gtd_new, bounds=(lo, hi))
        t_prev, f_prev, g_prev, gtd_prev = t_old, f_new, g_new.copy(), gtd_new
        f_new, g_new = obj(t)
        evals += 1
        gtd_new = g_new.dot(d)
        ls_iter += 1
    if ls_iter == max_ls:
        bracket, bracket_f, bracket_g = [0, t], [f, f_new], [g, g_new]

    # zoom: shrink the bracket until a point meets the conditions
    insuf_progress = False
    low, high = (0, 1) if bracket_f[0] <= bracket_f[-1] else (1, 0)
    while not done and ls_iter < max_ls:
        if abs(bracket[1] - bracket[0]) * d_norm < tolerance_change:
            break
        t = _cubic_interpolate(bracket[0], bracket_f[0], bracket_gtd[0],
                               bracket[1], bracket_f[1], bracket_gtd[1])
        # NB: a point too near an end of the bracket is moved inwards, unless the last one
        # already made too little progress
        eps = 0.1 * (max(bracket) - min(bracket))
        if min(max(bracket) - t, t - min(bracket)) < eps:
            if insuf_progress or t >= max(bracket) or t <= min(bracket):
                if abs(t - max(bracket)) < abs(t - min(bracket)):
                    t = max(bracket) - eps
                else:
                    t = min(bracket) + eps
                insuf_progress = False
            else:
                insuf_progress = True
        else:
            insuf_progress = False
        f_new, g_new = obj(t)
        evals += 1
        gtd_new = g_new.dot(d)
        ls_iter += 1
        if f_new > (f + c1 * t * gtd) or f_new >= bracket_f[low]:
            bracket[high], bracket_f[high] = t, f_new
            bracket_g[high], bracket_gtd[high] = g_new.copy(), gtd_new
            low, high = (0, 1) if bracket_f[0] <= bracket_f[1] else (1, 0)
        else:
            if abs(gtd_new) <= -c2 * gtd:
                done = True
            elif gtd_new * (bracket[high] - bracket[low]) >= 0:
                bracket[high], bracket_f[high] = bracket[low], bracket_f[low]
                bracket_g[high], bracket_gtd[high] = bracket_g[low], bracket_gtd[low]
            bracket[low], bracket_f[low] = t, f_new
            bracket_g[low], bracket_gtd[low] = g_new.copy(), gtd_new
    return bracket_f[low], bracket_g[low], bracket[low], evals


def _wrap(value: Any) -> Any:
    """A working value as PyTorch keeps it in the state: arrays and numpy scalars as tensors."""
    if isinstance(value, (np.ndarray, np.generic)):
        return _tensor(np.array(value))
    if isinstance(value, list):
        return [_wrap(v) for v in value]
    return value


def _unwrap(value: Any) -> Any:
    if isinstance(value, Tensor):
        return value._data[()] if value.dim() == 0 else value._data.copy()
    if isinstance(value, list):
        return [_unwrap(v) for v in value]
    return value


class LBFGS(Optimizer):
    """Each ``step(closure)`` runs up to ``max_iter`` quasi-Newton iterations.

    >>> from graphviz_autograd import torch
    >>> x = torch.tensor([3.0, -2.0], requires_grad=True)
    >>> opt = LBFGS([x], line_search_fn="strong_wolfe")
    >>> def closure():
    ...     opt.zero_grad()
    ...     loss = ((x - 1) ** 2).sum()
    ...     loss.backward()
    ...     return loss
    >>> _ = opt.step(closure)
    >>> [round(v, 4) for v in x.tolist()]     # PyTorch: [1.0000004768371582, 1.0000003...]
    [1.0, 1.0]
    """

    def __init__(self, params: Iterable[Any], lr: float = 1, max_iter: int = 20,
                 max_eval: int | None = None, tolerance_grad: float = 1e-7,
                 tolerance_change: float = 1e-9, history_size: int = 100,
                 line_search_fn: str | None = None) -> None:
        _check(lr >= 0.0, f"Invalid learning rate: {lr}")
        if max_eval is None:
            max_eval = max_iter * 5 // 4
        super().__init__(params, {"lr": lr, "max_iter": max_iter, "max_eval": max_eval,
                                  "tolerance_grad": tolerance_grad,
                                  "tolerance_change": tolerance_change,
                                  "history_size": history_size,
                                  "line_search_fn": line_search_fn})
        if len(self.param_groups) != 1:
            raise ValueError("LBFGS doesn't support per-parameter options (parameter groups)")
        self._params: list[Tensor] = self.param_groups[0]["params"]
        self._numel_cache: int | None = None

    def _numel(self) -> int:
        if self._numel_cache is None:
            self._numel_cache = sum(p.numel() for p in self._params)
        return self._numel_cache

    def _gather_flat_grad(self) -> np.ndarray:
        return np.concatenate([
            np.zeros(p.numel(), p._data.dtype) if p._grad is None
            else p._grad._data.reshape(-1) for p in self._params])

    def _bump(self, p: Tensor) -> None:
        p._vc.v += 1
        if events.listeners and p._vc.saves:
            events.emit("tensor_modified", p, None)

    def _add_grad(self, step_size: Num, update: np.ndarray) -> None:
        offset = 0
        for p in self._params:
            n = p.numel()
            if _WATCH:
                before_write(p)
            p._data[...] = _fma(p._data, float(step_size),
                                update[offset:offset + n].reshape(p._data.shape))
            self._bump(p)
            offset += n

    def _set_param(self, saved: list[np.ndarray]) -> None:
        for p, data in zip(self._params, saved):
            if _WATCH:
                before_write(p)
            p._data[...] = data
            self._bump(p)

    def _directional_evaluate(self, closure: Callable[[], Any], x: list[np.ndarray], t: Num,
                              d: np.ndarray) -> tuple[float, np.ndarray]:
        self._add_grad(t, d)
        loss = float(closure())
        flat_grad = self._gather_flat_grad()
        self._set_param(x)
        return loss, flat_grad

    def step(self, closure: Callable[[], Any]) -> Any:  # type: ignore[override]
        with no_grad(), np.errstate(divide="ignore", invalid="ignore", over="ignore"):
            return self._step(closure)

    def _step(self, closure: Callable[[], Any]) -> Any:
        def evaluate() -> Any:
            with enable_grad():
                return closure()

        group = self.param_groups[0]
        lr, max_iter, max_eval = group["lr"], group["max_iter"], group["max_eval"]
        tol_grad, tol_change = group["tolerance_grad"], group["tolerance_change"]
        line_search, history = group["line_search_fn"], group["history_size"]

        state = self.state[self._params[0]]
        state.setdefault("func_evals", 0)
        state.setdefault("n_iter", 0)

        orig_loss = evaluate()
        loss = float(orig_loss)
        current_evals = 1
        state["func_evals"] += 1
        flat_grad = self._gather_flat_grad()
        if np.abs(flat_grad).max() <= tol_grad:
            return orig_loss

        d, t = _unwrap(state.get("d")), _unwrap(state.get("t"))
        old_dirs, old_stps = _unwrap(state.get("old_dirs")), _unwrap(state.get("old_stps"))
        ro, h_diag = _unwrap(state.get("ro")), _unwrap(state.get("H_diag"))
        prev_flat_grad, prev_loss = _unwrap(state.get("prev_flat_grad")), state.get("prev_loss")
        al = _unwrap(state.get("al"))

        n_iter = 0
        while n_iter < max_iter:
            n_iter += 1
            state["n_iter"] += 1
            if state["n_iter"] == 1:
                d = -flat_grad
                old_dirs, old_stps, ro, h_diag = [], [], [], 1
            else:
                # the curvature pair of the last step, kept if it is positive enough
                y = flat_grad - prev_flat_grad
                s = d * t
                ys = y.dot(s)
                if ys > 1e-10:
                    if len(old_dirs) == history:
                        old_dirs.pop(0)
                        old_stps.pop(0)
                        ro.pop(0)
                    old_dirs.append(y)
                    old_stps.append(s)
                    ro.append(1.0 / ys)
                    h_diag = ys / y.dot(y)
                # the two-loop recursion: d = -H g
                if al is None:
                    al = state["al"] = [None] * history
                q = -flat_grad
                for i in range(len(old_dirs) - 1, -1, -1):
                    al[i] = old_stps[i].dot(q) * ro[i]
                    q = _fma(q, float(-al[i]), old_dirs[i])
                d = r = q * h_diag
                for i in range(len(old_dirs)):
                    be_i = old_dirs[i].dot(r) * ro[i]
                    r[...] = _fma(r, float(al[i] - be_i), old_stps[i])
            if prev_flat_grad is None:
                prev_flat_grad = flat_grad.copy()
            else:
                prev_flat_grad[...] = flat_grad
            prev_loss = loss
            if state["n_iter"] == 1:
                t = min(1.0, 1.0 / np.abs(flat_grad).sum()) * lr
            else:
                t = lr
            gtd = flat_grad.dot(d)
            if gtd > -tol_change:
                break

            evals = 0
            if line_search is not None:
                if line_search != "strong_wolfe":
                    raise RuntimeError("only 'strong_wolfe' is supported")
                x_init = [p._data.copy() for p in self._params]

                def obj(step: Num, x: list[np.ndarray] = x_init,
                        direction: np.ndarray = d) -> tuple[float, np.ndarray]:
                    return self._directional_evaluate(evaluate, x, step, direction)

                loss, flat_grad, t, evals = _strong_wolfe(obj, t, d, loss, flat_grad, gtd,
                                                          max_ls=max_eval - current_evals)
                self._add_grad(t, d)
                opt_cond = np.abs(flat_grad).max() <= tol_grad
            else:
                self._add_grad(t, d)
                opt_cond = False
                if n_iter != max_iter:
                    loss = float(evaluate())
                    flat_grad = self._gather_flat_grad()
                    opt_cond = np.abs(flat_grad).max() <= tol_grad
                    evals = 1
            current_evals += evals
            state["func_evals"] += evals
            if (n_iter == max_iter or current_evals >= max_eval or opt_cond
                    or np.abs(d * t).max() <= tol_change or abs(loss - prev_loss) < tol_change):
                break

        state.update(d=_wrap(d), t=_wrap(t), old_dirs=_wrap(old_dirs),
                     old_stps=_wrap(old_stps), ro=_wrap(ro), H_diag=_wrap(h_diag),
                     prev_flat_grad=_wrap(prev_flat_grad), prev_loss=prev_loss)
        if al is not None:
            state["al"] = _wrap(al)
        return orig_loss
