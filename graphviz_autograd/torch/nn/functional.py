"""``torch.nn.functional``: activations, dropout, linear and the losses, decomposed as PyTorch
decomposes them (``cross_entropy`` is ``log_softmax`` then ``nll_loss``)."""

from __future__ import annotations

import functools
import warnings
from typing import Any

import numpy as np

from ...engine import dtypes as _dt
from ...engine import functional as _F
from ...engine import messages as _msg
from ...engine import random as rnd
from ...engine import selecting as _sel
from ...engine import signatures as _signatures
from ...engine.autocast import fp32 as _amp_fp32
from ...engine.autocast import lower as _amp_lower
from ...engine.autocast import state as _amp
from ...engine.autograd import apply as _apply
from ...engine.optable import TABLE as _T
from ...engine.tensor import Tensor
from .activation_functional import (
    celu,
    celu_,
    elu,
    elu_,
    glu,
    hardshrink,
    hardsigmoid,
    hardswish,
    hardtanh,
    hardtanh_,
    leaky_relu,
    leaky_relu_,
    mish,
    prelu,
    relu6,
    rrelu,
    rrelu_,
    selu,
    selu_,
    silu,
    softmin,
    softshrink,
    softsign,
    tanhshrink,
    threshold,
    threshold_,
)
from .functional_losses import (
    cosine_embedding_loss,
    cosine_similarity,
    gaussian_nll_loss,
    hinge_embedding_loss,
    huber_loss,
    kl_div,
    logsigmoid,
    margin_ranking_loss,
    multi_margin_loss,
    multilabel_margin_loss,
    multilabel_soft_margin_loss,
    pairwise_distance,
    poisson_nll_loss,
    soft_margin_loss,
    triplet_margin_loss,
)
from .functional_losses import weighted_reduction as _weighted_reduction

__all__ = ["hardtanh", "relu", "tanh", "sigmoid", "softmax", "log_softmax", "leaky_relu",
           "gelu", "silu", "elu", "softplus", "dropout", "linear", "mse_loss", "l1_loss",
           "smooth_l1_loss",
           "nll_loss", "cross_entropy", "binary_cross_entropy",
           "binary_cross_entropy_with_logits", "normalize", "one_hot", "relu_", "embedding",
           "layer_norm", "batch_norm", "conv1d", "conv2d", "conv3d", "pad", "max_pool2d",
           "avg_pool2d", "adaptive_avg_pool2d",
           "huber_loss", "kl_div", "cosine_similarity", "pairwise_distance", "logsigmoid",
           "soft_margin_loss", "margin_ranking_loss", "hinge_embedding_loss",
           "cosine_embedding_loss", "triplet_margin_loss", "multilabel_soft_margin_loss",
           "poisson_nll_loss", "gaussian_nll_loss", "multi_margin_loss",
           "multilabel_margin_loss", "scaled_dot_product_attention",
           "multi_head_attention_forward",
           "elu_", "selu", "selu_", "celu", "celu_", "leaky_relu_", "hardtanh_", "relu6",
           "threshold", "threshold_", "hardswish", "hardsigmoid", "mish", "softsign", "softmin",
           "tanhshrink", "glu", "hardshrink", "softshrink", "prelu", "rrelu", "rrelu_"]

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


def _tensor_input(name: str, input: Any) -> None:
    """The TypeError of PyTorch's parser for a first argument that is not a tensor."""
    if not isinstance(input, Tensor):
        raise TypeError(f"{name}(): argument 'input' (position 1) must be Tensor, not "
                        f"{_signatures.type_name(input)}")


def relu(input: Tensor, inplace: bool = False) -> Tensor:
    if type(input) is not Tensor:
        _tensor_input("relu_" if inplace else "relu", input)
    return input.relu_() if inplace else input.relu()


def relu_(input: Tensor) -> Tensor:
    return input.relu_()


def tanh(input: Tensor) -> Tensor:
    return input.tanh()


def sigmoid(input: Tensor) -> Tensor:
    return input.sigmoid()


def softmax(input: Tensor, dim: Any = None, _stacklevel: int = 3,
            dtype: Any = None) -> Tensor:
    return _F.softmax(input, _implicit_dim("softmax", input, dim), dtype)


def log_softmax(input: Tensor, dim: Any = None, _stacklevel: int = 3,
                dtype: Any = None) -> Tensor:
    return _F.log_softmax(input, _implicit_dim("log_softmax", input, dim), dtype)


def _implicit_dim(name: str, t: Tensor, dim: Any) -> int:
    if dim is not None:
        return int(dim)
    warnings.warn(f"Implicit dimension choice for {name} has been deprecated. Change the call "
                  "to include dim=X as an argument.", UserWarning, stacklevel=3)
    return 0 if t.dim() in (0, 1, 3) else 1


def _unary(key: str, t: Tensor, **kw: Any) -> Tensor:
    return _apply(_T[key], (t,), kw or None, dtype=t._dtype)


def gelu(input: Tensor, approximate: str = "none") -> Tensor:
    if approximate not in ("none", "tanh"):
        raise RuntimeError("approximate argument must be either none or tanh.")
    return _unary("gelu", input, approximate=approximate)


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
    # NB: in place, PyTorch multiplies the input itself (mul_: its version bumps, its node is
    # MulBackward0, an expanded input is refused)
    mul = input.mul_ if inplace else functools.partial(_F.mul, input)
    if p == 1:
        return mul(Tensor._make(np.zeros((), npd), input._dtype))
    noise = np.empty_like(input._data)
    rnd.fill(noise, rnd.bernoulli(rnd.default_generator, noise.size, 1 - p))
    # NB: noise.div_(1 - p): the divisor in the tensor's dtype (float32 for half)
    wide = np.dtype(np.float32) if npd == np.float16 else npd
    noise = (noise.astype(wide) / np.asarray(1 - p, wide)).astype(npd)
    return mul(Tensor._make(noise, input._dtype))


def linear(input: Tensor, weight: Tensor, bias: Tensor | None = None) -> Tensor:
    if type(input) is not Tensor:
        _tensor_input("linear", input)
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


def _weighted(errors: Any, input: Tensor, target: Tensor, weight: Tensor, reduction: str,
              size_average: Any, reduce: Any) -> Tensor:
    """``mse_loss``/``l1_loss`` given ``weight``: PyTorch's composite, the errors times the
    weights, reduced (a mean is divided by the weights' sum)."""
    shape = input._data.shape
    expanded, target = _broadcast_pair(input, target)
    if size_average is not None or reduce is not None:
        reduction = _NAMES[_reduction(reduction, size_average, reduce)]
    if weight._data.shape != shape:
        raise ValueError("Weights and input must have the same size.")
    return _weighted_reduction(_F.mul(errors(_F.sub(expanded, target)), weight), weight,
                               reduction, by_weights=True)


def mse_loss(input: Tensor, target: Tensor, size_average: Any = None,
             reduce: Any = None, reduction: str = "mean", weight: Any = None) -> Tensor:
    if _amp.dtype is not None:
        return _amp_fp32(mse_loss, input, target, size_average, reduce, reduction, weight)
    if weight is not None:
        return _weighted(lambda d: _F.pow(d, 2), input, target, weight, reduction,
                         size_average, reduce)
    red = _reduction(reduction, size_average, reduce)
    input, target = _broadcast_pair(input, target)
    dtype = _F.promote(input, target)
    if not dtype.is_floating_point:
        raise NotImplementedError(f'"mse_cpu" not implemented for '
                                  f"'{_msg.SCALAR_NAME.get(dtype.name, dtype.name)}'")
    return _apply(_T["mse_loss"], (input, target), {"reduction": red}, dtype=dtype)


def l1_loss(input: Tensor, target: Tensor, size_average: Any = None,
            reduce: Any = None, reduction: str = "mean", weight: Any = None) -> Tensor:
    if _amp.dtype is not None:
        return _amp_fp32(l1_loss, input, target, size_average, reduce, reduction, weight)
    if weight is not None:
        return _weighted(lambda d: d.abs(), input, target, weight, reduction, size_average,
                         reduce)
    red = _reduction(reduction, size_average, reduce)
    input, target = _broadcast_pair(input, target)
    diff = _F.sub(input, target).abs()
    return diff.mean() if red == 1 else diff.sum() if red == 2 else diff


def smooth_l1_loss(input: Tensor, target: Tensor, size_average: Any = None,
                   reduce: Any = None, reduction: str = "mean", beta: float = 1.0) -> Tensor:
    if _amp.dtype is not None:
        return _amp_fp32(smooth_l1_loss, input, target, size_average, reduce, reduction, beta)
    red = _reduction(reduction, size_average, reduce)
    if beta < 0:
        raise RuntimeError("smooth_l1_loss does not support negative values for beta.")
    if beta == 0.0:
        # NB: as PyTorch: an l1 loss then (its nodes, not SmoothL1LossBackward0)
        return l1_loss(input, target, reduction=_NAMES[red])
    input, target = _broadcast_pair(input, target)
    return _apply(_T["smooth_l1_loss"], (input, target), {"reduction": red, "beta": beta},
                  dtype=_F.promote(input, target))


def _check_class_targets(input: Tensor, target: Tensor) -> None:
    """PyTorch's checks of class-index targets, in its order: the batch sizes, the dtype (Long
    or Byte), then an unbatched input's single target."""
    if input._data.ndim > 1 and target._data.shape[:1] != input._data.shape[:1]:
        raise ValueError(f"Expected input batch_size ({input._data.shape[0]}) to match target "
                         f"batch_size ({target._data.shape[0] if target._data.ndim else 0}).")
    if target._dtype not in (_dt.int64, _dt.uint8):
        raise RuntimeError("expected target dtype to be Long or Byte, but got "
                           f"{_msg.SCALAR_NAME.get(target._dtype.name, target._dtype.name)}")
    if input._data.ndim == 1 and target._data.ndim == 1 and target._data.shape[0] != 1:
        raise ValueError("For 1D input, 1D target must have size 1, but got target size: "
                         f"{target._data.shape[0]}")


def nll_loss(input: Tensor, target: Tensor, weight: Tensor | None = None,
             size_average: Any = None, ignore_index: int = -100, reduce: Any = None,
             reduction: str = "mean") -> Tensor:
    if _amp.dtype is not None:
        return _amp_fp32(nll_loss, input, target, weight, size_average, ignore_index, reduce,
                         reduction)
    red = _reduction(reduction, size_average, reduce)
    _check_class_targets(input, target)
    classes = input._data.shape[1] if input._data.ndim > 1 else input._data.shape[0]
    if weight is not None and weight._data.size != classes:
        raise RuntimeError(f"weight tensor should be defined either for all {classes} classes or "
                           f"no classes but got weight tensor of shape: "
                           f"[{', '.join(map(str, weight._data.shape))}]")
    valid = target._data[target._data != ignore_index]
    if valid.size and (valid.max() >= classes or valid.min() < 0):
        raise IndexError(f"Target {int(valid.max() if valid.max() >= classes else valid.min())} "
                         f"is out of bounds.")
    kw = {"weight": weight, "reduction": red, "ignore_index": ignore_index}
    ndim = input._data.ndim
    if ndim <= 2:
        return _apply(_T["nll_loss"], (input,), {"target": target, **kw}, dtype=input._dtype)
    if ndim == 4:
        return _apply(_T["nll_loss2d"], (input,), {"target": target, **kw}, dtype=input._dtype)
    # NB: as PyTorch: other ranks are viewed as (N, C, 1, -1) for the 2-d kernel, and an
    # unreduced loss viewed back
    n, c = input._data.shape[:2]
    flat = _F.view(_F.contiguous(input) if input._data.size else input, (n, c, 1, -1))
    out = _apply(_T["nll_loss2d"], (flat,),
                 {"target": _F.view(_F.contiguous(target), (n, 1, -1)), **kw},
                 dtype=input._dtype)
    return _F.view(out, (n, *input._data.shape[2:])) if red == 0 else out


def cross_entropy(input: Tensor, target: Tensor, weight: Tensor | None = None,
                  size_average: Any = None, ignore_index: int = -100, reduce: Any = None,
                  reduction: str = "mean", label_smoothing: float = 0.0) -> Tensor:
    """As at::cross_entropy_loss: class-probability targets (the input's shape), label
    smoothing over class indices, or log_softmax then nll_loss."""
    if _amp.dtype is not None:
        return _amp_fp32(cross_entropy, input, target, weight, size_average, ignore_index, reduce,
                         reduction, label_smoothing)
    red = _reduction(reduction, size_average, reduce)
    if input._data.shape == target._data.shape:
        if not target._dtype.is_floating_point:
            raise RuntimeError(f"Expected floating point type for target with class "
                               f"probabilities, got {_msg.SCALAR_NAME.get(target._dtype.name)}")
        if ignore_index >= 0:
            raise RuntimeError("ignore_index is not supported for floating point target")
        return _ce_prob_target(input, target, weight, red, label_smoothing)
    _check_class_targets(input, target)
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
    if _amp.dtype is not None:
        return _amp_fp32(binary_cross_entropy, input, target, weight, size_average, reduce,
                         reduction)
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
    if _amp.dtype is not None:
        return _amp_fp32(binary_cross_entropy_with_logits, input, target, weight, size_average,
                         reduce, reduction, pos_weight)
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


def _sizes(shape: Any) -> str:
    return f"[{', '.join(map(str, shape))}]"


def _check_norm_dtypes(input: Tensor, params: tuple[Tensor | None, ...]) -> None:
    """PyTorch's CPU check of a normalization's parameters against its input's dtype."""
    if not input._dtype.is_floating_point:
        kernel = "LayerNormKernelImpl" if len(params) == 2 else "batch_norm"
        raise NotImplementedError(f'"{kernel}" not implemented for '
                                  f"'{_msg.SCALAR_NAME.get(input._dtype.name, input._dtype.name)}'")
    for p in params:
        if p is not None and p._dtype is not input._dtype:
            # NB: a float32 input names the dtype its parameters need; any other just differs
            if input._dtype is _dt.float32:
                raise RuntimeError("mixed dtype (CPU): expect parameter to have scalar type of "
                                   "Float")
            raise RuntimeError("mixed dtype (CPU): all inputs must share same datatype.")


def layer_norm(input: Tensor, normalized_shape: Any, weight: Tensor | None = None,
               bias: Tensor | None = None, eps: float = 1e-5) -> Tensor:
    """Normalization over the last ``len(normalized_shape)`` dims (NativeLayerNormBackward0)."""
    if not isinstance(normalized_shape, tuple | list):
        raise TypeError(f"layer_norm(): argument 'normalized_shape' (position 2) must be tuple "
                        f"of ints, not {type(normalized_shape).__name__}")
    shape = tuple(int(n) for n in normalized_shape)
    if not shape:
        raise RuntimeError("Expected normalized_shape to be at least 1-dimensional, i.e., "
                           "containing at least one element, but got normalized_shape = []")
    for what, p in (("weight", weight), ("bias", bias)):
        if p is not None and p._data.shape != shape:
            raise RuntimeError(f"Expected {what} to be of same shape as normalized_shape, but got "
                               f"{what} of shape {_sizes(p._data.shape)} and "
                               f"normalized_shape = {_sizes(shape)}")
    x_shape = input._data.shape
    if x_shape[len(x_shape) - len(shape):] != shape or len(x_shape) < len(shape):
        raise RuntimeError(f"Given normalized_shape={_sizes(shape)}, expected input with "
                           f"shape [*, {_sizes(shape)[1:]}, but got input of size"
                           f"{_sizes(x_shape)}")
    _check_norm_dtypes(input, (weight, bias))
    out = _apply(_T["native_layer_norm"], (input, weight, bias),
                 {"normalized_shape": shape, "eps": eps}, dtype=input._dtype)
    return out[0]


def _verify_batch_size(size: Any) -> None:
    values = int(np.prod(size[2:], dtype=np.int64)) * size[0]
    if values == 1:
        raise ValueError(f"Expected more than 1 value per channel when training, got input size "
                         f"{size}")


def batch_norm(input: Tensor, running_mean: Tensor | None, running_var: Tensor | None,
               weight: Tensor | None = None, bias: Tensor | None = None,
               training: bool = False, momentum: float = 0.1, eps: float = 1e-5) -> Tensor:
    """Normalization per channel (dim 1) over the batch (NativeBatchNormBackward0); in training
    the running statistics are updated in place, their versions unchanged, as PyTorch's."""
    if training:
        _verify_batch_size(input.size())
    if (running_mean is None) != (running_var is None):
        raise ValueError("running_mean and running_var must either both be None or neither be "
                         "None")
    if not training and running_mean is None:
        raise RuntimeError("running_mean must be defined in evaluation mode")
    channels = input.size(1)
    for what, t in (("running_mean", running_mean), ("running_var", running_var),
                    ("weight", weight), ("bias", bias)):
        if t is not None and t._data.size != channels:
            raise RuntimeError(f"{what} should contain {channels} elements not {t._data.size}")
    _check_norm_dtypes(input, (weight, bias, running_mean, running_var))
    out = _apply(_T["native_batch_norm"], (input, weight, bias),
                 {"running_mean": running_mean, "running_var": running_var,
                  "training": bool(training), "momentum": momentum, "eps": eps},
                 dtype=input._dtype)
    return out[0]


# -- convolution and pooling ----------------------------------------------------------------------
def _ints(value: Any, n: int) -> tuple[int, ...]:
    """An int or a sequence of ints as a tuple of ``n`` (an int repeated), as PyTorch's
    ``_pair``; a sequence of another length is kept (its length checked later)."""
    if isinstance(value, tuple | list):
        return tuple(int(v) for v in value)
    return (int(value),) * n


def _expand_param(name: str, value: tuple[int, ...], dim: int) -> tuple[int, ...]:
    if len(value) == 1:
        return value * dim
    if len(value) != dim:
        raise RuntimeError(f"expected {name} to be a single integer value or a list of {dim} "
                           f"values to match the convolution dimensions, but got "
                           f"{name}={_sizes(value)}")
    return value


def _check_conv_params(x: tuple[int, ...], w: tuple[int, ...], stride: tuple[int, ...],
                       padding: tuple[int, ...], dilation: tuple[int, ...],
                       output_padding: tuple[int, ...] = ()) -> None:
    """The checks a convolution and a transposed one share, in PyTorch's order: the numbers,
    then input and weight of as many dims."""
    if any(p < 0 for p in padding):
        raise RuntimeError("negative padding is not supported")
    if any(p < 0 for p in output_padding):
        raise RuntimeError("negative output_padding is not supported")
    if any(s <= 0 for s in stride):
        raise RuntimeError("non-positive stride is not supported")
    if any(d <= 0 for d in dilation):
        raise RuntimeError("dilation should be greater than zero")
    if len(w) != len(x):
        raise RuntimeError(f"Expected {len(w)}-dimensional input for {len(w)}-dimensional weight "
                           f"{_sizes(w)}, but got {len(x)}-dimensional input of size "
                           f"{_sizes(x)} instead")


def _check_conv(input: Tensor, weight: Tensor, bias: Tensor | None, stride: tuple[int, ...],
                padding: tuple[int, ...], dilation: tuple[int, ...], groups: int) -> None:
    """PyTorch's checks of at::_convolution and check_shape_forward, in their order."""
    w = weight._data.shape
    x = input._data.shape
    dim = len(w) - 2
    if dim <= 0:
        raise RuntimeError("weight should have at least three dimensions")
    if groups <= 0:
        raise RuntimeError("non-positive groups is not supported")
    stride, padding, dilation = (_expand_param(n, v, dim) for n, v in
                                 (("stride", stride), ("padding", padding),
                                  ("dilation", dilation)))
    _check_conv_params(x, w, stride, padding, dilation)
    if w[0] < groups:
        raise RuntimeError(f"Given groups={groups}, expected weight to be at least {groups} at "
                           f"dimension 0, but got weight of size {_sizes(w)} instead")
    if w[0] % groups:
        # NB: PyTorch's message has the sizes in two pairs of brackets
        raise RuntimeError(f"Given groups={groups}, expected weight to be divisible by {groups} "
                           f"at dimension 0, but got weight of size [{_sizes(w)}] instead")
    if x[1] != w[1] * groups:
        raise RuntimeError(f"Given groups={groups}, weight of size {_sizes(w)}, expected "
                           f"input{_sizes(x)} to have {w[1] * groups} channels, but got {x[1]} "
                           f"channels instead")
    if bias is not None and bias._data.shape != (w[0],):
        raise RuntimeError(f"Given weight of size {_sizes(w)}, expected bias to be "
                           f"1-dimensional with {w[0]} elements, but got bias of size "
                           f"{_sizes(bias._data.shape)} instead")
    padded = [n + 2 * p for n, p in zip(x[2:], padding, strict=True)]
    spans = [d * (k - 1) + 1 for k, d in zip(w[2:], dilation, strict=True)]
    if any(n < k for n, k in zip(padded, spans, strict=True)):
        raise RuntimeError(f"Calculated padded input size per channel: "
                           f"({' x '.join(map(str, padded))}). Kernel size: "
                           f"({' x '.join(map(str, spans))}). Kernel size can't be greater than "
                           f"actual input size")
    for what, t in (("weight", weight), ("bias", bias)):
        if t is not None and t._dtype is not input._dtype:
            raise RuntimeError(f"Input type ({input._dtype.legacy}) and {what} type "
                               f"({t._dtype.legacy}) should be the same or input should be a "
                               f"MKLDNN tensor and weight is a dense tensor")


def _same_padding(weight: Tensor, dilation: tuple[int, ...], stride: tuple[int, ...]
                  ) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """padding='same': the symmetric part, and the extra padding the right side needs."""
    if any(s != 1 for s in stride):
        raise RuntimeError("padding='same' is not supported for strided convolutions")
    total = [d * (k - 1) for k, d in zip(weight._data.shape[2:], dilation, strict=False)]
    if any(t % 2 for t in total):
        # NB: once per process, as PyTorch's
        _msg.warn_user_once("Using padding='same' with even kernel lengths and odd dilation may "
                       "require a zero-padded copy of the input be created")
    return tuple(t // 2 for t in total), tuple(t % 2 for t in total)


def _convolution(input: Tensor, weight: Tensor, bias: Tensor | None, stride: Any,
                 padding: Any, dilation: Any, groups: int, dim: int) -> Tensor:
    """F.conv1d / F.conv2d: an unbatched input is unsqueezed and the output squeezed (as
    PyTorch's nodes show), a string padding resolved, then one ConvolutionBackward0."""
    name = f"conv{dim}d"
    if input._data.ndim not in (dim + 1, dim + 2):
        raise RuntimeError(f"Expected {dim + 1}D (unbatched) or {dim + 2}D (batched) input to "
                           f"{name}, but got input of size: {_sizes(input._data.shape)}")
    unbatched = input._data.ndim == dim + 1
    if unbatched:
        input = _F.unsqueeze(input, 0)
    stride, dilation = _ints(stride, dim), _ints(dilation, dim)
    if isinstance(padding, str):
        if padding == "valid":
            pad: tuple[int, ...] = (0,)     # NB: PyTorch keeps 'valid' as a padding of one 0
        elif padding == "same":
            pad, extra = _same_padding(weight, _expand_param("dilation", dilation, dim), stride)
            if any(extra):
                # NB: as PyTorch: the odd remainder padded after, in a node of its own
                right = tuple(p for e in reversed(extra) for p in (0, e))
                input = _apply(_T["constant_pad_nd"], (input,), {"pad": right, "value": 0.0},
                               dtype=input._dtype)
        else:
            raise RuntimeError(f"Invalid padding string: '{padding}'")
    else:
        pad = _ints(padding, dim)
    _check_conv(input, weight, bias, stride, pad, dilation, groups)
    n = weight._data.ndim - 2
    # NB: 'valid' padding stays one 0, and output_padding as long as the padding
    pads = pad if pad == (0,) else _expand_param("padding", pad, n)
    kw = {"stride": _expand_param("stride", stride, n), "padding": pads,
          "dilation": _expand_param("dilation", dilation, n), "transposed": False,
          "output_padding": (0,) * len(pads), "groups": groups,
          "bias_sym_sizes_opt": (weight._data.shape[0],) if bias is not None else (0,)}
    out = _apply(_T["convolution"], (input, weight, bias), kw, dtype=input._dtype)
    return _F.squeeze(out, 0) if unbatched else out


def conv1d(input: Tensor, weight: Tensor, bias: Tensor | None = None, stride: Any = 1,
           padding: Any = 0, dilation: Any = 1, groups: int = 1) -> Tensor:
    if _amp.dtype is not None:
        return _amp_lower(conv1d, input, weight, bias, stride, padding, dilation, groups)
    return _convolution(input, weight, bias, stride, padding, dilation, groups, 1)


def conv2d(input: Tensor, weight: Tensor, bias: Tensor | None = None, stride: Any = 1,
           padding: Any = 0, dilation: Any = 1, groups: int = 1) -> Tensor:
    if _amp.dtype is not None:
        return _amp_lower(conv2d, input, weight, bias, stride, padding, dilation, groups)
    return _convolution(input, weight, bias, stride, padding, dilation, groups, 2)


def conv3d(input: Tensor, weight: Tensor, bias: Tensor | None = None, stride: Any = 1,
           padding: Any = 0, dilation: Any = 1, groups: int = 1) -> Tensor:
    if _amp.dtype is not None:
        return _amp_lower(conv3d, input, weight, bias, stride, padding, dilation, groups)
    return _convolution(input, weight, bias, stride, padding, dilation, groups, 3)


def _pool_pair(name: str, what: str, value: Any, default: tuple[int, ...] | None = None
               ) -> tuple[int, ...]:
    if value is None or (isinstance(value, tuple | list) and not value and default is not None):
        return default or ()
    out = _ints(value, 2)
    if len(out) == 1:
        out = out * 2
    if len(out) != 2:
        omitted = "omitted, " if what == "stride" else ""
        raise RuntimeError(f"{name}: {what} must either be {omitted}a single int, or a tuple of "
                           f"two ints")
    return out


def _check_half_kernel(kernel: tuple[int, ...], padding: tuple[int, ...],
                       dilation: tuple[int, ...]) -> None:
    for k, p, d in zip(kernel, padding, dilation, strict=True):
        if p > (d * (k - 1) + 1) // 2:
            raise RuntimeError(f"pad should be at most half of effective kernel size, but got "
                               f"pad={p}, kernel_size={k} and dilation={d}")


def _check_positive(kernel: tuple[int, ...], stride: tuple[int, ...],
                    dilation: tuple[int, ...], axes: tuple[str, ...]) -> None:
    """PyTorch's pooling shape checks of the kernel, stride and dilation, in its order."""
    for values, what, prefix in ((kernel, "kernel size", "k"), (stride, "stride", "d"),
                                 (dilation, "dilation", "dilation")):
        if any(v <= 0 for v in values):
            got = " ".join(f"{prefix}{a}: {v}" for a, v in zip(axes, values, strict=True))
            raise RuntimeError(f"{what} should be greater than zero, but got {got}")


def _check_pool(name: str, input: Tensor, kernel: tuple[int, ...], stride: tuple[int, ...],
                padding: tuple[int, ...], dilation: tuple[int, ...], ceil_mode: bool,
                average: bool = False) -> None:
    """PyTorch's checks of a 2-d pool's arguments, in its order (an average pool checks its
    padding before the shapes)."""
    from ...engine.ops_conv import pool_out
    shape = input._data.shape
    if any(s == 0 for s in stride or kernel):
        raise RuntimeError("stride should not be zero")
    if average:
        _check_half_kernel(kernel, padding, dilation)
    _check_positive(kernel, stride or kernel, dilation, ("H", "W"))
    if input._data.ndim not in (3, 4) or 0 in shape[-3:]:
        raise RuntimeError("non-empty 3D or 4D (batch mode) tensor expected for input")
    _check_half_kernel(kernel, padding, dilation)
    out = [pool_out(n, k, s, p, d, ceil_mode) for n, k, s, p, d in
           zip(shape[-2:], kernel, stride or kernel, padding, dilation, strict=True)]
    if any(o < 1 for o in out):
        c = shape[-3]
        raise RuntimeError(f"Given input size: ({c}x{shape[-2]}x{shape[-1]}). Calculated output "
                           f"size: ({c}x{out[0]}x{out[1]}). Output size is too small")


def max_pool2d(input: Tensor, kernel_size: Any, stride: Any = None, padding: Any = 0,
               dilation: Any = 1, ceil_mode: bool = False, return_indices: bool = False) -> Any:
    name = "max_pool2d"
    kernel = _pool_pair(name, "kernel_size", kernel_size)
    strides = _pool_pair(name, "stride", stride, ())
    pads = _pool_pair(name, "padding", padding)
    dil = _pool_pair(name, "dilation", dilation)
    _check_pool(name, input, kernel, strides, pads, dil, ceil_mode)
    kw = {"kernel_size": kernel, "stride": strides, "padding": pads, "dilation": dil,
          "ceil_mode": bool(ceil_mode)}
    return _max_pool_with_indices("max_pool2d_with_indices", input, kw, return_indices)


def _max_pool_with_indices(key: str, input: Tensor, kw: dict[str, Any], return_indices: bool
                          ) -> Any:
    """A max pool's output, and its indices when asked: the node's saved result1 (not
    differentiable), or the forward's where no node was made."""
    op = _T[key]
    out = _apply(op, (input,), kw, dtype=input._dtype)
    if not return_indices:
        return out
    fn = out._grad_fn
    # NB: no node, or a saved-tensor hook keeps the indices: computed again
    idx = fn._saved["result1"].tensor if fn is not None else None
    if idx is None:
        idx = Tensor._make(op.forward(input._data, **kw)[1]["result1"], _dt.int64)
    return out, idx


def avg_pool2d(input: Tensor, kernel_size: Any, stride: Any = None, padding: Any = 0,
               ceil_mode: bool = False, count_include_pad: bool = True,
               divisor_override: int | None = None) -> Tensor:
    name = "avg_pool2d"
    kernel = _pool_pair(name, "kernel_size", kernel_size)
    strides = _pool_pair(name, "stride", stride, ())
    pads = _pool_pair(name, "padding", padding)
    if input._data.ndim < 3:
        _F._dim(-3, input._data.ndim)      # NB: PyTorch reads the channels first: IndexError
    if divisor_override is not None and divisor_override == 0:
        raise RuntimeError("divisor must be not zero")
    _check_pool(name, input, kernel, strides, pads, (1, 1), ceil_mode, average=True)
    return _apply(_T["avg_pool2d"], (input,),
                  {"kernel_size": kernel, "stride": strides, "padding": pads,
                   "ceil_mode": bool(ceil_mode), "count_include_pad": bool(count_include_pad),
                   "divisor_override": divisor_override}, dtype=input._dtype)


def adaptive_avg_pool2d(input: Tensor, output_size: Any) -> Tensor:
    shape = input._data.shape
    if input._data.ndim not in (3, 4):
        raise RuntimeError(f"adaptive_avg_pool2d(): Expected 3D or 4D tensor, but got "
                           f"{_sizes(shape)}")
    given = list(output_size) if isinstance(output_size, tuple | list) else [output_size] * 2
    size = tuple(int(shape[-2 + i] if s is None else s) for i, s in enumerate(given))
    if size == (1, 1):
        # NB: PyTorch takes a global average as a mean over the last two dims
        return _F.mean(input, (-1, -2), keepdim=True)
    return _apply(_T["adaptive_avg_pool2d"], (input,), {"output_size": size},
                  dtype=input._dtype)


def pad(input: Tensor, pad: Any, mode: str = "constant", value: float | None = None) -> Tensor:
    """F.pad: constant (ConstantPadNdBackward0), reflect and replicate of the last one, two or
    three dims (ReflectionPad{1,2,3}DBackward0, ReplicationPad{1,2,3}DBackward0)."""
    pads = tuple(int(p) for p in pad)
    ndim = input._data.ndim
    if len(pads) % 2:
        raise RuntimeError("Padding length must be divisible by 2")
    if len(pads) // 2 > ndim:
        raise RuntimeError(f"Padding length should be less than or equal to two times the input "
                           f"dimension but got padding length {len(pads)} and input of dimension "
                           f"{ndim}")
    if mode == "constant":
        return _apply(_T["constant_pad_nd"], (input,),
                      {"pad": pads, "value": 0.0 if value is None else value},
                      dtype=input._dtype)
    if mode not in ("reflect", "replicate", "circular"):
        raise NotImplementedError(f"Unrecognised padding mode {mode}")
    if len(pads) not in (2, 4, 6) or ndim not in (len(pads) // 2 + 1, len(pads) // 2 + 2):
        raise NotImplementedError(
            f"Padding size {len(pads)} is not supported for {ndim}D input tensor.\nSupported "
            "combinations for non-constant padding:\n  - 2D or 3D input: padding size = 2 (pads "
            "last dimension)\n  - 3D or 4D input: padding size = 4 (pads last 2 dimensions)\n"
            "  - 4D or 5D input: padding size = 6 (pads last 3 dimensions)")
    if mode == "circular":
        from .functional_rare import pad_circular
        return pad_circular(input, pads)
    nd = len(pads) // 2
    shape = input._data.shape
    if mode == "reflect":
        for i in range(nd):
            dim = input._data.ndim - 1 - i
            before, after = pads[2 * i], pads[2 * i + 1]
            if before >= shape[dim] or after >= shape[dim]:
                raise RuntimeError(f"Argument #{4 + 2 * i}: Padding size should be less than the "
                                   f"corresponding input dimension, but got: padding "
                                   f"({before}, {after}) at dimension {dim} of input "
                                   f"{_sizes(shape)}")
    key = f"{'reflection' if mode == 'reflect' else 'replication'}_pad{nd}d"
    if _amp.dtype is not None and key != "reflection_pad3d":    # NB: autocast's float32 list
        input = _amp_fp32(lambda t: t, input)
    return _apply(_T[key], (input,), {"padding": pads}, dtype=input._dtype)


from .functional_attention import (  # noqa: E402, F401 -- they build on the functions above
    _canonical_mask,
    _in_projection_packed,
    _mha_shape_check,
    _none_or_dtype,
    multi_head_attention_forward,
    scaled_dot_product_attention,
)
from .functional_extra import (  # noqa: E402
    adaptive_avg_pool3d,
    avg_pool3d,
    ctc_loss,
    embedding_bag,
    max_pool3d,
    triplet_margin_with_distance_loss,
)

# NB: the later families live in modules of their own, re-exported here as PyTorch's one namespace
from .functional_layers import (  # noqa: E402
    adaptive_avg_pool1d,
    adaptive_max_pool1d,
    adaptive_max_pool2d,
    avg_pool1d,
    conv_transpose1d,
    conv_transpose2d,
    dropout1d,
    dropout2d,
    dropout3d,
    fold,
    interpolate,
    max_pool1d,
    max_unpool1d,
    max_unpool2d,
    pixel_shuffle,
    pixel_unshuffle,
    unfold,
    upsample,
    upsample_bilinear,
    upsample_nearest,
)
from .functional_more import (  # noqa: E402
    adaptive_max_pool1d_with_indices,
    adaptive_max_pool2d_with_indices,
    adaptive_max_pool3d,
    adaptive_max_pool3d_with_indices,
    alpha_dropout,
    bilinear,
    channel_shuffle,
    conv_transpose3d,
    feature_alpha_dropout,
    gumbel_softmax,
    local_response_norm,
    lp_pool1d,
    lp_pool2d,
    lp_pool3d,
    max_pool1d_with_indices,
    max_pool2d_with_indices,
    max_pool3d_with_indices,
    max_unpool3d,
    native_channel_shuffle,
    pdist,
)
from .functional_norm import group_norm, instance_norm, rms_norm  # noqa: E402
from .functional_rare import (  # noqa: E402
    conv_tbc,
    fractional_max_pool2d,
    fractional_max_pool2d_with_indices,
    fractional_max_pool3d,
    fractional_max_pool3d_with_indices,
    linear_cross_entropy,
)
from .functional_sampling import (  # noqa: E402
    GRID_SAMPLE_INTERPOLATION_MODES,
    GRID_SAMPLE_PADDING_MODES,
    affine_grid,
    grid_sample,
)

__all__ += ["group_norm", "instance_norm", "rms_norm", "conv_transpose1d", "conv_transpose2d",
            "max_pool1d", "avg_pool1d", "adaptive_avg_pool1d", "adaptive_max_pool1d",
            "adaptive_max_pool2d", "interpolate", "upsample", "pixel_shuffle", "pixel_unshuffle",
            "dropout1d", "dropout2d", "dropout3d", "unfold", "fold", "max_unpool1d",
            "max_unpool2d", "upsample_nearest", "upsample_bilinear", "embedding_bag",
            "max_pool3d", "avg_pool3d", "adaptive_avg_pool3d",
            "triplet_margin_with_distance_loss", "ctc_loss", "affine_grid", "grid_sample",
            "adaptive_max_pool1d_with_indices", "adaptive_max_pool2d_with_indices",
            "adaptive_max_pool3d", "adaptive_max_pool3d_with_indices", "alpha_dropout",
            "bilinear", "channel_shuffle", "conv_transpose3d", "feature_alpha_dropout",
            "gumbel_softmax", "local_response_norm", "lp_pool1d", "lp_pool2d", "lp_pool3d",
            "max_pool1d_with_indices", "max_pool2d_with_indices", "max_pool3d_with_indices",
            "max_unpool3d", "pdist", "fractional_max_pool2d", "fractional_max_pool3d",
            "fractional_max_pool2d_with_indices", "fractional_max_pool3d_with_indices",
            "linear_cross_entropy", "conv_tbc", "native_channel_shuffle",
            "GRID_SAMPLE_INTERPOLATION_MODES", "GRID_SAMPLE_PADDING_MODES"]
