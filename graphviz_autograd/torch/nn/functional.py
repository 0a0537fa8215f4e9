"""``torch.nn.functional``: activations, dropout, linear and the losses, decomposed as PyTorch
decomposes them (``cross_entropy`` is ``log_softmax`` then ``nll_loss``)."""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np

from ...engine import dtypes as _dt
from ...engine import functional as _F
from ...engine import messages as _msg
from ...engine import random as rnd
from ...engine import selecting as _sel
from ...engine.autograd import apply as _apply
from ...engine.optable import TABLE as _T
from ...engine.tensor import Tensor

__all__ = ["hardtanh", "relu", "tanh", "sigmoid", "softmax", "log_softmax", "leaky_relu",
           "gelu", "silu", "elu", "softplus", "dropout", "linear", "mse_loss", "l1_loss",
           "smooth_l1_loss",
           "nll_loss", "cross_entropy", "binary_cross_entropy",
           "binary_cross_entropy_with_logits", "normalize", "one_hot", "relu_", "embedding"]

_REDUCTION = {"none": 0, "mean": 1, "sum": 2}


def legacy_reduction(size_average: Any, reduce: Any) -> str:
    """The reduction the pre-0.4 arguments ask for, with PyTorch's deprecation warning."""
    reduce = True if reduce is None else reduce
    size_average = True if size_average is None else size_average
    reduction = ("mean" if size_average else "sum") if reduce else "none"
    warnings.warn(f"size_average and reduce args will be deprecated, please use "
                  f"reduction='{reduction}' instead.", UserWarning, stacklevel=4)
    return reduction


def _reduction(reduction: str, size_average: Any = None, reduce: Any = None) -> int:
    if size_average is not None or reduce is not None:
        reduction = legacy_reduction(size_average, reduce)
    if reduction == "elementwise_mean":
        warnings.warn("reduction='elementwise_mean' is deprecated. Please use reduction='mean' "
                      "instead.", UserWarning, stacklevel=3)
        reduction = "mean"
    if reduction not in _REDUCTION:
        raise ValueError(f"{reduction} is not a valid value for reduction")
    return _REDUCTION[reduction]


def relu(input: Tensor, inplace: bool = False) -> Tensor:
    return input.relu_() if inplace else input.relu()


def relu_(input: Tensor) -> Tensor:
    return input.relu_()


def tanh(input: Tensor) -> Tensor:
    return input.tanh()


def sigmoid(input: Tensor) -> Tensor:
    return input.sigmoid()


def softmax(input: Tensor, dim: Any = None, _stacklevel: int = 3,
            dtype: Any = None) -> Tensor:
    return _F.softmax(input, _implicit_dim(input, dim), dtype)


def log_softmax(input: Tensor, dim: Any = None, _stacklevel: int = 3,
                dtype: Any = None) -> Tensor:
    return _F.log_softmax(input, _implicit_dim(input, dim), dtype)


def _implicit_dim(t: Tensor, dim: Any) -> int:
    if dim is not None:
        return int(dim)
    warnings.warn("Implicit dimension choice for softmax has been deprecated. Change the call to "
                  "include dim=X as an argument.", UserWarning, stacklevel=3)
    return 0 if t.dim() in (0, 1, 3) else 1


def _unary(key: str, t: Tensor, **kw: Any) -> Tensor:
    return _apply(_T[key], (t,), kw or None, dtype=t._dtype)


def leaky_relu(input: Tensor, negative_slope: float = 0.01,
               inplace: bool = False) -> Tensor:
    return _unary("leaky_relu", input, negative_slope=negative_slope)


def hardtanh(input: Tensor, min_val: float = -1.0, max_val: float = 1.0,
             inplace: bool = False) -> Tensor:
    return _unary("hardtanh", input, min_val=min_val, max_val=max_val)


def gelu(input: Tensor, approximate: str = "none") -> Tensor:
    if approximate not in ("none", "tanh"):
        raise RuntimeError("approximate argument must be either none or tanh.")
    return _unary("gelu", input, approximate=approximate)


def silu(input: Tensor, inplace: bool = False) -> Tensor:
    return _unary("silu", input)


def elu(input: Tensor, alpha: float = 1.0, inplace: bool = False) -> Tensor:
    return _unary("elu", input, alpha=alpha)


def softplus(input: Tensor, beta: float = 1, threshold: float = 20) -> Tensor:
    return _unary("softplus", input, beta=beta, threshold=threshold)


def dropout(input: Tensor, p: float = 0.5, training: bool = True,
            inplace: bool = False) -> Tensor:
    """PyTorch's CPU dropout: ``input * (bernoulli(1 - p) / (1 - p))``, the same mask.

    NB: the mask is laid out as the input (``empty_like``), drawn in its memory order, one
    53-bit uniform an element; p == 1 multiplies by a zero scalar and draws nothing.
    """
    if p < 0 or p > 1:
        raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")
    if not training or p == 0 or input._data.size == 0:
        return input
    npd = input._dtype.np
    if p == 1:
        return _F.mul(input, Tensor._make(np.zeros((), npd), input._dtype))
    noise = np.empty_like(input._data)
    rnd.fill(noise, rnd.bernoulli(rnd.default_generator, noise.size, 1 - p))
    # NB: noise.div_(1 - p): the divisor in the tensor's dtype (float32 for half)
    wide = np.dtype(np.float32) if npd == np.float16 else npd
    noise = (noise.astype(wide) / np.asarray(1 - p, wide)).astype(npd)
    return _F.mul(input, Tensor._make(noise, input._dtype))


def linear(input: Tensor, weight: Tensor, bias: Tensor | None = None) -> Tensor:
    return _F.linear(input, weight, bias)


def _broadcast_pair(input: Tensor, target: Tensor) -> tuple[Tensor, Tensor]:
    if target._data.shape != input._data.shape:
        warnings.warn(f"Using a target size ({target.size()}) that is different to the input size "
                      f"({input.size()}). This will likely lead to incorrect results due to "
                      "broadcasting. Please ensure they have the same size.", UserWarning,
                      stacklevel=3)
        _F._check_broadcast(input, target)
        shape = np.broadcast_shapes(input._data.shape, target._data.shape)
        if input._data.shape != shape:
            input = _F.expand(input, shape)
        if target._data.shape != shape:
            target = _F.expand(target, shape)
    return input, target


def mse_loss(input: Tensor, target: Tensor, size_average: Any = None,
             reduce: Any = None, reduction: str = "mean", weight: Any = None) -> Tensor:
    red = _reduction(reduction, size_average, reduce)
    input, target = _broadcast_pair(input, target)
    dtype = _F.promote(input, target)
    if not dtype.is_floating_point:
        raise NotImplementedError(f'"mse_cpu" not implemented for '
                                  f"'{_msg.SCALAR_NAME.get(dtype.name, dtype.name)}'")
    return _apply(_T["mse_loss"], (input, target), {"reduction": red}, dtype=dtype)


def l1_loss(input: Tensor, target: Tensor, size_average: Any = None,
            reduce: Any = None, reduction: str = "mean") -> Tensor:
    red = _reduction(reduction, size_average, reduce)
    input, target = _broadcast_pair(input, target)
    diff = _F.sub(input, target).abs()
    return diff.mean() if red == 1 else diff.sum() if red == 2 else diff


def smooth_l1_loss(input: Tensor, target: Tensor, size_average: Any = None,
                   reduce: Any = None, reduction: str = "mean", beta: float = 1.0) -> Tensor:
    red = _reduction(reduction, size_average, reduce)
    if beta < 0:
        raise RuntimeError("smooth_l1_loss does not support negative values for beta.")
    if beta == 0.0:
        # NB: as PyTorch: an l1 loss then (its nodes, not SmoothL1LossBackward0)
        return l1_loss(input, target, reduction=_NAMES[red])
    input, target = _broadcast_pair(input, target)
    return _apply(_T["smooth_l1_loss"], (input, target), {"reduction": red, "beta": beta},
                  dtype=_F.promote(input, target))


def nll_loss(input: Tensor, target: Tensor, weight: Tensor | None = None,
             size_average: Any = None, ignore_index: int = -100, reduce: Any = None,
             reduction: str = "mean") -> Tensor:
    red = _reduction(reduction, size_average, reduce)
    if target._dtype.is_floating_point:
        raise RuntimeError(f"expected scalar type Long but found {target._dtype.name.capitalize()}"
                           .replace("Float32", "Float"))
    n_expected = input._data.shape[0] if input._data.ndim > 1 else None
    if n_expected is not None and target._data.shape[:1] != (n_expected,):
        raise ValueError(f"Expected input batch_size ({n_expected}) to match target batch_size "
                         f"({target._data.shape[0] if target._data.ndim else 0}).")
    classes = input._data.shape[1] if input._data.ndim > 1 else input._data.shape[0]
    if weight is not None and weight._data.size != classes:
        raise RuntimeError(f"weight tensor should be defined either for all {classes} classes or "
                           f"no classes but got weight tensor of shape: "
                           f"[{', '.join(map(str, weight._data.shape))}]")
    valid = target._data[target._data != ignore_index]
    if valid.size and (valid.max() >= classes or valid.min() < 0):
        raise IndexError(f"Target {int(valid.max() if valid.max() >= classes else valid.min())} "
                         f"is out of bounds.")
    return _apply(_T["nll_loss"], (input,), {"target": target, "weight": weight,
                                             "reduction": red, "ignore_index": ignore_index},
                  dtype=input._dtype)


def cross_entropy(input: Tensor, target: Tensor, weight: Tensor | None = None,
                  size_average: Any = None, ignore_index: int = -100, reduce: Any = None,
                  reduction: str = "mean", label_smoothing: float = 0.0) -> Tensor:
    """As at::cross_entropy_loss: class-probability targets (the input's shape), label
    smoothing over class indices, or log_softmax then nll_loss."""
    red = _reduction(reduction, size_average, reduce)
    if input._data.shape == target._data.shape:
        if not target._dtype.is_floating_point:
            raise RuntimeError(f"Expected floating point type for target with class "
                               f"probabilities, got {_msg.SCALAR_NAME.get(target._dtype.name)}")
        if ignore_index >= 0:
            raise RuntimeError("ignore_index is not supported for floating point target")
        return _ce_prob_target(input, target, weight, red, label_smoothing)
    if target._dtype.is_floating_point:
        raise RuntimeError(f"expected target dtype to be Long or Byte, but got "
                           f"{_msg.SCALAR_NAME.get(target._dtype.name, 'Float')}")
    if label_smoothing > 0.0:
        _check_smoothing(label_smoothing)
        return _ce_label_smoothing(input, target, weight, red, ignore_index, label_smoothing)
    logp = _F.log_softmax(input, 0 if input._data.ndim == 1 else 1)
    return nll_loss(logp, target, weight, ignore_index=ignore_index, reduction=_NAMES[red])


_NAMES = {v: k for k, v in _REDUCTION.items()}


def _check_smoothing(label_smoothing: float) -> None:
    if label_smoothing > 1.0:
        raise RuntimeError(f"label_smoothing must be between 0.0 and 1.0. Got: "
                           f"{label_smoothing:g}")           # NB: as C++ prints a double


def _scaled(t: Tensor, k: float) -> Tensor:
    """``t * k`` with a C++ double: MulBackward1."""
    return _apply(_T["mul_scalar"], (t,), {"other": k}, dtype=t._dtype)


def _class_weight(weight: Tensor, ndim: int, class_dim: int) -> Tensor:
    """The class weights viewed to broadcast against the input."""
    shape = [1] * ndim
    shape[class_dim] = weight._data.shape[0]
    return _F.view(weight, tuple(shape))


def _ce_label_smoothing(input: Tensor, target: Tensor, weight: Tensor | None, red: int,
                        ignore_index: int, label_smoothing: float) -> Tensor:
    class_dim = 0 if input._data.ndim == 1 else 1
    logp = _F.log_softmax(input, class_dim)
    nll = nll_loss(logp, target, weight, ignore_index=ignore_index, reduction=_NAMES[red])
    n_classes = logp._data.shape[class_dim]
    if weight is not None:
        smooth = _F.neg(_F.sum(_F.mul(logp, _class_weight(weight, logp._data.ndim, class_dim)),
                               class_dim))
    else:
        smooth = _F.neg(_F.sum(logp, class_dim))
    ignore_mask = _F.compare(np.equal, target, ignore_index)
    smooth.masked_fill_(ignore_mask, 0.0)
    if red == 1:
        true_mask = _F.wrap(np.logical_not(ignore_mask._data))
        if weight is not None:
            picked = _sel.masked_select(target, true_mask).flatten()
            ret = _F.div(_F.sum(smooth), _F.sum(weight.gather(0, picked)))
        else:
            ret = _F.div(_F.sum(smooth), _F.sum(true_mask))
    elif red == 2:
        ret = _F.sum(smooth)
    else:
        ret = smooth
    return _F.add(_scaled(nll, 1 - label_smoothing), _scaled(ret, label_smoothing / n_classes))


def _ce_prob_target(input: Tensor, target: Tensor, weight: Tensor | None, red: int,
                    label_smoothing: float) -> Tensor:
    class_dim = 0 if input._data.ndim == 1 else 1
    n_classes = input._data.shape[class_dim]
    if weight is not None and (weight._data.ndim != 1 or weight._data.size != n_classes):
        raise RuntimeError(f"cross_entropy: weight tensor should be defined either for all "
                           f"{n_classes} classes or no classes but got weight tensor of shape: "
                           f"[{', '.join(map(str, weight._data.shape))}]")
    logp = _F.log_softmax(input, class_dim)
    if label_smoothing > 0.0:
        _check_smoothing(label_smoothing)
        smoothed = _scaled(target, 1 - label_smoothing)
        target = _apply(_T["add_scalar"], (smoothed,), {"other": label_smoothing / n_classes},
                        dtype=smoothed._dtype)
    prod = _F.mul(logp, target)
    if weight is not None:
        prod = _F.mul(prod, _class_weight(weight, logp._data.ndim, class_dim)
                      if logp._data.ndim > 1 else weight)
    if red == 0:
        return _F.neg(_F.sum(prod, class_dim))
    total = _F.sum(prod)
    if red == 2:
        return _F.neg(total)
    if logp._data.size == 0:
        return _F.neg(total.fill_(float("nan")))
    k = logp._data.size // n_classes
    neg = _F.neg(total)
    return _apply(_T["div_scalar"], (neg,), {"other": k}, dtype=neg._dtype)


def binary_cross_entropy(input: Tensor, target: Tensor, weight: Tensor | None = None,
                         size_average: Any = None, reduce: Any = None,
                         reduction: str = "mean") -> Tensor:
    red = _reduction(reduction, size_average, reduce)
    if target._data.shape != input._data.shape:
        raise ValueError(f"Using a target size ({target.size()}) that is different to the input "
                         f"size ({input.size()}) is deprecated. Please ensure they have the same "
                         "size.")
    if target._dtype is not input._dtype:
        raise RuntimeError(f"Found dtype {_msg.SCALAR_NAME[target._dtype.name]} but expected "
                           f"{_msg.SCALAR_NAME[input._dtype.name]}")
    for name, v in (("input", input), ("target", target)):
        x = v._data
        if not np.all((x >= 0) & (x <= 1)):       # NB: nan is outside too
            raise RuntimeError(f"all elements of {name} should be between 0 and 1")
    if weight is not None and weight._data.shape != target._data.shape:
        _check_weight_shape(weight._data.shape, target._data.shape)
    return _apply(_T["binary_cross_entropy"], (input, target), {"weight": weight,
                                                               "reduction": red},
                  dtype=input._dtype)


def _check_weight_shape(weight: tuple[int, ...], target: tuple[int, ...]) -> None:
    """The weight of a binary cross-entropy broadcasts to the target's shape."""
    for i in range(1, len(weight) + 1):
        n = weight[-i]
        if n != 1 and (i > len(target) or n != target[-i]):
            raise RuntimeError(f"Attempting to broadcast a dimension of length {n} at {-i}! "
                               f"Mismatching argument at index 1 had torch.Size("
                               f"[{', '.join(map(str, weight))}]); but expected shape should be "
                               f"broadcastable to [{', '.join(map(str, target))}]")


def binary_cross_entropy_with_logits(input: Tensor, target: Tensor,
                                     weight: Tensor | None = None, size_average: Any = None,
                                     reduce: Any = None, reduction: str = "mean",
                                     pos_weight: Tensor | None = None) -> Tensor:
    red = _reduction(reduction, size_average, reduce)
    if target._data.shape != input._data.shape:
        raise ValueError(f"Target size ({target.size()}) must be the same as input size "
                         f"({input.size()})")
    for extra in (pos_weight, weight):
        if extra is not None and extra._data.shape != input._data.shape:
            text = _msg.size_mismatch(extra._data.shape, input._data.shape)
            if text is not None:
                raise RuntimeError(text)
    if target._dtype is _dt.bool_:
        _F.no_bool_sub(True, target)             # NB: PyTorch's ``1 - target`` refuses it
    if not target._dtype.is_floating_point:
        raise RuntimeError(f"result type {_msg.SCALAR_NAME[input._dtype.name]} can't be cast "
                           f"to the desired output type {_msg.SCALAR_NAME[target._dtype.name]}")
    return _apply(_T["binary_cross_entropy_with_logits"], (input, target),
                  {"weight": weight, "pos_weight": pos_weight, "reduction": red},
                  dtype=target._dtype)     # NB: PyTorch's loss is (1 - target).mul_(input)...


def normalize(input: Tensor, p: float = 2.0, dim: int = 1, eps: float = 1e-12) -> Tensor:
    norm = input.norm(p, dim, keepdim=True).clamp_min(eps)
    return _F.div(input, norm.expand_as(input))


def embedding(input: Tensor, weight: Tensor, padding_idx: int | None = None,
              max_norm: float | None = None, norm_type: float = 2.0,
              scale_grad_by_freq: bool = False, sparse: bool = False) -> Tensor:
    """The rows of ``weight`` at the indices ``input`` (EmbeddingBackward0)."""
    n = weight._data.shape[0]
    padding_idx = padding_index(padding_idx, n)
    if padding_idx is None:
        padding_idx = -1
    if input._dtype not in (_dt.int64, _dt.int32):
        raise RuntimeError(f"Expected tensor for argument #1 'indices' to have one of the "
                           f"following scalar types: Long, Int; but got torch."
                           f"{_msg.SCALAR_NAME[input._dtype.name]}Tensor instead (while checking "
                           f"arguments for embedding)")
    idx = input._data
    if idx.size and (idx.min() < 0 or idx.max() >= n):
        raise IndexError("index out of range in self")
    if sparse:
        raise NotImplementedError("sparse gradients are not supported by this engine")
    if max_norm is not None:
        _embedding_renorm_(weight, idx, float(max_norm), float(norm_type))
    return _apply(_T["embedding"], (weight,),
                  {"indices": input, "padding_idx": padding_idx,
                   "scale_grad_by_freq": bool(scale_grad_by_freq), "sparse": False,
                   "weight_sym_argsize_0": n}, dtype=weight._dtype)


def padding_index(padding_idx: int | None, num_embeddings: int) -> int | None:
    """A padding index checked against the number of rows, a negative one counted from the
    end."""
    if padding_idx is not None:
        if padding_idx > 0:
            assert padding_idx < num_embeddings, "Padding_idx must be within num_embeddings"
        elif padding_idx < 0:
            assert padding_idx >= -num_embeddings, "Padding_idx must be within num_embeddings"
            padding_idx = num_embeddings + padding_idx
    return padding_idx


def _embedding_renorm_(weight: Tensor, idx: np.ndarray, max_norm: float, norm_type: float
                       ) -> None:
    """PyTorch's embedding_renorm_ (under no_grad): each row used whose norm exceeds
    ``max_norm`` is scaled down to it, in place."""
    from ...engine.grad_mode import no_grad
    rows = np.unique(idx.reshape(-1))
    norms = np.linalg.norm(weight._data[rows].astype(np.float64), ord=norm_type, axis=1)
    scale = np.where(norms > max_norm, max_norm / (norms + 1e-7), 1.0)
    with no_grad():
        data = weight._data.copy()
        data[rows] = (data[rows] * scale[:, None]).astype(data.dtype)
        weight.copy_(_F.wrap(data))


# -- recurrent cells, op by op as PyTorch's C++ (RNN.cpp) computes them ----------------------------
def rnn_cell(input: Tensor, hx: Tensor, w_ih: Tensor, w_hh: Tensor, b_ih: Tensor | None,
             b_hh: Tensor | None, nonlinearity: str = "tanh") -> Tensor:
    """``nonlinearity(linear(hx, w_hh, b_hh).add_(linear(input, w_ih, b_ih)))``: the hidden
    product first (C++ evaluates the object of ``.add_`` before its argument)."""
    gates = _F.linear(hx, w_hh, b_hh)
    gates.add_(_F.linear(input, w_ih, b_ih))
    return gates.tanh() if nonlinearity == "tanh" else gates.relu()


def lstm_cell(input: Tensor, hx: tuple[Tensor, Tensor], w_ih: Tensor, w_hh: Tensor,
              b_ih: Tensor | None, b_hh: Tensor | None) -> tuple[Tensor, Tensor]:
    h, c = hx
    gates = _F.linear(h, w_hh, b_hh)
    gates.add_(_F.linear(input, w_ih, b_ih))
    i, f, g, o = _F.unsafe_chunk(gates, 4, 1)
    i, f, g, o = i.sigmoid_(), f.sigmoid_(), g.tanh_(), o.sigmoid_()
    cy = f * c
    cy.add_(i * g)
    t = cy.tanh()                     # NB: outgate * cy.tanh(): the right operand first
    return o * t, cy


def gru_cell(input: Tensor, hx: Tensor, w_ih: Tensor, w_hh: Tensor, b_ih: Tensor | None,
             b_hh: Tensor | None) -> Tensor:
    ig = _F.unsafe_chunk(_F.linear(input, w_ih, b_ih), 3, 1)
    hg = _F.unsafe_chunk(_F.linear(hx, w_hh, b_hh), 3, 1)
    reset = hg[0].add_(ig[0]).sigmoid_()
    update = hg[1].add_(ig[1]).sigmoid_()
    new = ig[2].add(hg[2].mul_(reset)).tanh_()
    return (hx - new).mul_(update).add_(new)


def one_hot(tensor: Tensor, num_classes: int = -1) -> Tensor:
    x = tensor._data
    if tensor._dtype is not _dt.int64:
        raise RuntimeError("one_hot is only applicable to index tensor of type LongTensor.")
    if num_classes == -1 and x.size == 0:
        raise RuntimeError("Can not infer total number of classes from empty tensor.")
    if x.size and int(x.min()) < 0:
        raise RuntimeError("Class values must be non-negative.")
    n = int(x.max()) + 1 if num_classes == -1 else num_classes
    if x.size and int(x.max()) >= n:
        raise RuntimeError("Class values must be smaller than num_classes.")
    out = np.eye(n, dtype=np.int64)[x]
    return Tensor._make(out, tensor._dtype)
