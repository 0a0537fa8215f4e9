"""Table entries: layer, batch and group normalization (``native_layer_norm``,
``native_batch_norm``, ``native_group_norm``), each one fused node as PyTorch's CPU kernels make
it."""

from __future__ import annotations

from typing import Any

import numpy as np

from .optable import Op, Save, no_double_backward, register


def _normalized_grad(g_hat: np.ndarray, x_hat: np.ndarray, scale: np.ndarray,
                     axes: tuple[int, ...]) -> np.ndarray:
    """The input's gradient of ``x_hat = (x - mean(x)) * scale`` over ``axes`` (the statistics
    taken from the batch), given the gradient of ``x_hat``."""
    return scale * (g_hat - g_hat.mean(axis=axes, keepdims=True)
                    - x_hat * (g_hat * x_hat).mean(axis=axes, keepdims=True))


# -- layer norm ------------------------------------------------------------------------------------
def _layer_norm_fwd(x: np.ndarray, weight: Any, bias: Any, *,
                    normalized_shape: tuple[int, ...], eps: float
                    ) -> list[np.ndarray]:
    axes = tuple(range(x.ndim - len(normalized_shape), x.ndim))
    # NB: the statistics in float64, rounded once (PyTorch's kernel accumulates in a wider type)
    wide = x.astype(np.float64)
    # NB: sums over a count of at least 1: an empty input's statistics are 0, not a warning
    count = max(int(np.prod(normalized_shape)), 1)
    mean = wide.sum(axis=axes, keepdims=True) / count
    centered = wide - mean
    rstd = 1 / np.sqrt((centered * centered).sum(axis=axes, keepdims=True) / count + eps)
    out = centered * rstd
    if weight is not None:
        out = out * weight
    if bias is not None:
        out = out + bias
    return [out.astype(x.dtype), mean.astype(x.dtype), rstd.astype(x.dtype)]


def _layer_norm_bw(c: Any, grads: list[Any], D: Any) -> tuple[Any, ...]:
    weight = c.weight if c.node._in_meta[1] is not None else None
    shape = c.attrs["normalized_shape"]
    if D.tensor_mode:
        # NB: one NativeLayerNormBackwardBackward0 node gives the three gradients, as PyTorch's
        bias = c.bias if c.node._in_meta[2] is not None else None
        outs = D.native_layer_norm_backward(grads[0], c.input, D.nondiff(c.result1),
                                            D.nondiff(c.result2), weight,
                                            bias, normalized_shape=shape, output_mask=c.needs)
        return tuple(o if n else None for o, n in zip(outs, c.needs, strict=True))
    return layer_norm_grads(grads[0], c.input, c.result1, c.result2, weight, shape, c.needs)


def layer_norm_grads(g: np.ndarray, x: np.ndarray, mean: np.ndarray, rstd: np.ndarray,
                     weight: Any, normalized_shape: tuple[int, ...], need: tuple[bool, ...]
                     ) -> tuple[Any, ...]:
    n_norm = len(normalized_shape)
    axes = tuple(range(x.ndim - n_norm, x.ndim))
    batch_axes = tuple(range(x.ndim - n_norm))
    x_hat = (x - mean) * rstd
    g_hat = g * weight if weight is not None else g
    return (_normalized_grad(g_hat, x_hat, rstd, axes) if need[0] else None,
            (g * x_hat).sum(axis=batch_axes) if need[1] else None,
            g.sum(axis=batch_axes) if need[2] else None)


# -- batch norm ------------------------------------------------------------------------------------
def _channel_shape(x: np.ndarray) -> tuple[int, ...]:
    """A per-channel vector's shape broadcast against ``x`` (channels on dim 1)."""
    return (1, -1) + (1,) * (x.ndim - 2)


def _batch_axes(x: np.ndarray) -> tuple[int, ...]:
    return (0, *range(2, x.ndim))


def _batch_norm_fwd(x: np.ndarray, weight: Any, bias: Any, *, running_mean: Any,
                    running_var: Any, training: bool, momentum: float, eps: float
                    ) -> list[np.ndarray]:
    axes, shape = _batch_axes(x), _channel_shape(x)
    wide = x.astype(np.float64)
    if training:
        n = max(x.size // max(x.shape[1], 1), 1)
        # NB: as PyTorch's kernel: the mean and the sum of squared deviations in the input's
        # dtype, the variances from them in float64
        mean = x.sum(axis=axes) / x.dtype.type(n)
        centered = x - mean.reshape(shape)
        var_sum = (centered * centered).sum(axis=axes).astype(np.float64)
        invstd = 1 / np.sqrt(var_sum / n + eps)
        # NB: PyTorch's kernel writes the running statistics in place without bumping their
        # version (the buffers' arrays are passed here as they are); the variance unbiased
        if running_mean is not None:
            running_mean[...] = (1 - momentum) * running_mean + momentum * mean.astype(np.float64)
        if running_var is not None:
            unbiased = var_sum / (n - 1) if n > 1 else np.full_like(var_sum, np.nan)
            running_var[...] = (1 - momentum) * running_var + momentum * unbiased
        saved_mean, saved_invstd = mean, invstd.astype(x.dtype)
    else:
        mean = running_mean.astype(np.float64)
        invstd = 1 / np.sqrt(running_var.astype(np.float64) + eps)
        # NB: in evaluation PyTorch's kernel gives (and the node saves) empty statistics
        saved_mean = saved_invstd = np.empty(0, x.dtype)
    out = (wide - mean.reshape(shape)) * invstd.reshape(shape)
    if weight is not None:
        out = out * weight.reshape(shape)
    if bias is not None:
        out = out + bias.reshape(shape)
    return [out.astype(x.dtype), saved_mean, saved_invstd]


def _batch_norm_bw(c: Any, grads: list[Any], D: Any) -> tuple[Any, ...]:
    weight = c.weight if c.node._in_meta[1] is not None else None
    training, eps = c.attrs["training"], c.attrs["eps"]
    if D.tensor_mode:
        # NB: one NativeBatchNormBackwardBackward0 node gives the three gradients, as PyTorch's
        outs = D.native_batch_norm_backward(
            grads[0], c.input, weight, D.nondiff(c.result1), D.nondiff(c.result2),
            running_mean=_optional(c, "running_mean"), running_var=_optional(c, "running_var"),
            train=training, eps=eps, output_mask=c.needs)
        return tuple(o if n else None for o, n in zip(outs, c.needs, strict=True))
    if training:
        mean, invstd = c.result1, c.result2
    else:
        mean, invstd = c.running_mean, c.running_var
    return batch_norm_grads(grads[0], c.input, weight, mean, invstd, training, eps, c.needs)


def _optional(c: Any, name: str) -> Any:
    return getattr(c, name) if (c.node._saved or {}).get(name) is not None else None


def batch_norm_grads(g: np.ndarray, x: np.ndarray, weight: Any, mean: np.ndarray,
                     invstd: np.ndarray, training: bool, eps: float, need: tuple[bool, ...]
                     ) -> tuple[Any, ...]:
    """Batch norm's gradients; in evaluation ``mean``, ``invstd`` are the running mean and
    variance (as the node reads them now)."""
    axes, shape = _batch_axes(x), _channel_shape(x)
    if not training:
        invstd = (1 / np.sqrt(invstd.astype(np.float64) + eps)).astype(x.dtype)
    mean, invstd = mean.reshape(shape), invstd.reshape(shape)
    x_hat = (x - mean) * invstd
    g_hat = g * weight.reshape(shape) if weight is not None else g
    gx = None
    if need[0]:
        gx = _normalized_grad(g_hat, x_hat, invstd, axes) if training else g_hat * invstd
    return (gx,
            (g * x_hat).sum(axis=axes) if need[1] else None,
            g.sum(axis=axes) if need[2] else None)


# -- group norm ------------------------------------------------------------------------------------
def _grouped(x: np.ndarray, group: int) -> np.ndarray:
    """``x`` (N, C, *) as (N, group, C / group * prod(*)): each group's values in one row."""
    return x.reshape(x.shape[0], group, -1)


def _group_norm_fwd(x: np.ndarray, weight: Any, bias: Any, *, N: int, C: int, HxW: int,
                    group: int, eps: float) -> list[np.ndarray]:
    rows = _grouped(x.astype(np.float64), group)
    count = max(rows.shape[-1], 1)
    mean = rows.sum(axis=-1) / count
    centered = rows - mean[..., None]
    rstd = 1 / np.sqrt((centered * centered).sum(axis=-1) / count + eps)
    out = (centered * rstd[..., None]).reshape(x.shape)
    shape = _channel_shape(x)
    if weight is not None:
        out = out * weight.reshape(shape)
    if bias is not None:
        out = out + bias.reshape(shape)
    return [out.astype(x.dtype), mean.astype(x.dtype), rstd.astype(x.dtype)]


def _group_norm_bw(c: Any, grads: list[Any], D: Any) -> tuple[Any, ...]:
    if D.tensor_mode:
        raise no_double_backward("NativeGroupNormBackward0")
    g = grads[0]
    x, mean, rstd = c.input, c.result1, c.result2
    group = c.attrs["group"]
    saved = c.node._saved
    weight = c.weight if saved.get("weight") is not None else None
    if weight is None and c.need(2):
        # NB: PyTorch's CPU kernel fails so for a bias's gradient without a weight
        raise RuntimeError("tensor does not have a device")
    shape = _channel_shape(x)
    x_hat = ((_grouped(x, group) - mean[..., None]) * rstd[..., None]).reshape(x.shape)
    g_hat = g * weight.reshape(shape) if weight is not None else g
    axes = _batch_axes(x)
    gx = None
    if c.need(0):
        gx = _normalized_grad(_grouped(g_hat, group), _grouped(x_hat, group),
                              rstd[..., None], (-1,)).reshape(x.shape)
    return (gx,
            (g * x_hat).sum(axis=axes) if c.need(1) else None,
            g.sum(axis=axes) if c.need(2) else None)


register(
    Op("native_layer_norm", "NativeLayerNormBackward0", ("input", "weight", "bias"),
       _layer_norm_fwd, _layer_norm_bw,
       (Save("bias"), Save("input"), Save("result1"), Save("result2"), Save("weight")),
       ("normalized_shape",), n_outputs=3, nondiff=(1, 2)),
    Op("native_batch_norm", "NativeBatchNormBackward0", ("input", "weight", "bias"),
       _batch_norm_fwd, _batch_norm_bw,
       (Save("input"), Save("result1"), Save("result2"), Save("running_mean"),
        Save("running_var"), Save("weight")),
       ("eps", "training"), n_outputs=3, nondiff=(1, 2)),
    Op("native_group_norm", "NativeGroupNormBackward0", ("input", "weight", "bias"),
       _group_norm_fwd, _group_norm_bw,
       (Save("input"), Save("result1"), Save("result2"), Save("weight")),
       ("C", "HxW", "N", "eps", "group"), n_outputs=3),
)
