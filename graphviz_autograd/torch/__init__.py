"""``graphviz_autograd.torch``: the engine behind PyTorch's names, so PyTorch snippets run.

>>> import graphviz_autograd.torch as torch
>>> x = torch.tensor(2.0, requires_grad=True)
>>> y = x * x
>>> y.backward(retain_graph=True)
>>> x.grad
tensor(4.)
"""

# ruff: noqa: F401 -- this module is a namespace: its imports are its API
from __future__ import annotations

import builtins
from typing import Any

import numpy as np

from ..engine import anomaly as _anomaly
from ..engine import conj_views as _conj_views
from ..engine import copies as _copies
from ..engine import device as _device
from ..engine import dtypes as _dt
from ..engine import functional as _F
from ..engine import mathfns as _mathfns
from ..engine import messages as _msg
from ..engine import misc_more as _misc_more
from ..engine import names_extra as _names_extra
from ..engine import predicates as _predicates
from ..engine import signatures as _sig
from ..engine import tensor_memory as _tensor_memory
from ..engine import tensor_methods as _tensor_methods
from ..engine.autograd import apply as _apply
from ..engine.einsum import einsum, tensordot
from ..engine.factories import (
    arange,
    as_tensor,
    empty,
    empty_like,
    eye,
    from_numpy,
    full,
    full_like,
    linspace,
    ones,
    ones_like,
    rand,
    rand_like,
    randint,
    randn,
    randn_like,
    randperm,
    tensor,
    zeros,
    zeros_like,
)
from ..engine.gamma_draws import binomial
from ..engine.gamma_draws import sample_dirichlet as _sample_dirichlet
from ..engine.gamma_draws import standard_gamma as _standard_gamma
from ..engine.grad_mode import (
    enable_grad,
    inference_mode,
    is_grad_enabled,
    no_grad,
    set_grad_enabled,
)
from ..engine.linalg import det, logdet, pinverse
from ..engine.linalg import inv as inverse
from ..engine.linalg import torch_cholesky as cholesky
from ..engine.linalg import torch_slogdet as slogdet
from ..engine.linalg import torch_svd as svd
from ..engine.linalg_more import (
    cholesky_solve,
    geqrf,
    lu_unpack,
    ormqr,
    triangular_solve,
)
from ..engine.linalg_more import torch_lstsq as lstsq
from ..engine.linalg_more import torch_lu as lu
from ..engine.linalg_more import torch_lu_solve as lu_solve
from ..engine.mathfns import (
    bincount,
    copysign,
    corrcoef,
    count_nonzero,
    cov,
    cumulative_trapezoid,
    deg2rad,
    float_power,
    fmax,
    fmin,
    gcd,
    i0,
    igamma,
    igammac,
    lcm,
    ldexp,
    mvlgamma,
    nanmean,
    nanmedian,
    nanquantile,
    nansum,
    nextafter,
    positive,
    quantile,
    rad2deg,
    renorm,
    signbit,
    std_mean,
    trapezoid,
    trapz,
    var_mean,
)
from ..engine.optable import TABLE as _TABLE
from ..engine.pointwise_extra import (
    addcdiv,
    addcmul,
    heaviside,
    hypot,
    lerp,
    logaddexp,
    logaddexp2,
    logical_and,
    logical_not,
    logical_or,
    logical_xor,
    nan_to_num,
    polygamma,
    xlogy,
)
from ..engine.predicates import allclose, equal, is_nonzero, isclose
from ..engine.printing import set_printoptions
from ..engine.products import (
    addbmm,
    addmv,
    addr,
    cdist,
    chain_matmul,
    cross,
    dist,
    inner,
    kron,
    matrix_power,
    vdot,
)
from ..engine.random import (
    Generator,
    default_generator,
    get_rng_state,
    initial_seed,
    manual_seed,
    seed,
    set_rng_state,
)
from ..engine.random_draws import bernoulli, normal
from ..engine.shaping import (
    as_strided,
    block_diag,
    cartesian_prod,
    combinations,
    diagflat,
    diagonal_scatter,
    fliplr,
    flipud,
    index_put,
    ravel,
    rot90,
    select_scatter,
    slice_scatter,
)
from ..engine.stacking import (
    atleast_1d,
    atleast_2d,
    atleast_3d,
    broadcast_tensors,
    column_stack,
    dstack,
    hstack,
    meshgrid,
    vstack,
)
from ..engine.tensor import Size, Tensor
from . import amp, autograd, backends, linalg, nn, optim, special, testing, utils
from . import amp as _amp_ns
from . import environment as _environment
from .amp import (
    autocast,
    clear_autocast_cache,
    get_autocast_cpu_dtype,
    get_autocast_dtype,
    is_autocast_cache_enabled,
    is_autocast_cpu_enabled,
    is_autocast_enabled,
    set_autocast_cache_enabled,
    set_autocast_dtype,
)
from .dtype_info import broadcast_shapes, can_cast, finfo, iinfo, promote_types, result_type
from .environment import (
    are_deterministic_algorithms_enabled,
    channels_last,
    channels_last_3d,
    compile,
    contiguous_format,
    get_default_device,
    get_float32_matmul_precision,
    get_num_interop_threads,
    get_num_threads,
    is_deterministic_algorithms_warn_only_enabled,
    is_storage,
    is_warn_always_enabled,
    layout,
    memory_format,
    preserve_format,
    set_default_device,
    set_float32_matmul_precision,
    set_num_interop_threads,
    set_num_threads,
    set_warn_always,
    sparse_coo,
    strided,
    typename,
    use_deterministic_algorithms,
)
from .serialization import load, save
from .torch_version import internal_version as _version
from .utilities import *  # noqa: F403 -- creation, search and predicate functions

__version__ = _version        # NB: a str that compares as a version

float32 = float = _dt.float32
float64 = double = _dt.float64
int64 = long = _dt.int64
int32 = int = _dt.int32
int16 = short = _dt.int16
int8 = _dt.int8
uint8 = _dt.uint8
uint16, uint32, uint64 = _dt.uint16, _dt.uint32, _dt.uint64
bool = _dt.bool_
dtype = _dt.DType


class _LegacyTensorMeta(type):
    def __instancecheck__(cls, other: Any) -> builtins.bool:
        return isinstance(other, Tensor) and other.dtype is cls._dtype  # type: ignore[attr-defined]


class _LegacyTensor(metaclass=_LegacyTensorMeta):
    """``torch.FloatTensor(data)`` and friends: a tensor of that dtype."""

    _dtype = _dt.float32

    def __new__(cls, *args: Any) -> Tensor:  # type: ignore[misc]
        if len(args) == 1 and not isinstance(args[0], builtins.int):
            return tensor(args[0], dtype=cls._dtype)
        return zeros(*args, dtype=cls._dtype)


class FloatTensor(_LegacyTensor):
    _dtype = _dt.float32


class DoubleTensor(_LegacyTensor):
    _dtype = _dt.float64


class LongTensor(_LegacyTensor):
    _dtype = _dt.int64


class IntTensor(_LegacyTensor):
    _dtype = _dt.int32


class ByteTensor(_LegacyTensor):
    _dtype = _dt.uint8


class BoolTensor(_LegacyTensor):
    _dtype = _dt.bool_




device = _device.device


class _Cuda:
    """``torch.cuda`` as a CPU-only PyTorch build has it: no device, and PyTorch's error from
    what needs one."""

    amp = _amp_ns.cuda_amp
    synchronize = current_device = get_device_name = get_device_properties = set_device = (
        staticmethod(_environment._no_cuda))

    @staticmethod
    def device_count() -> builtins.int:
        return 0

    @staticmethod
    def is_initialized() -> builtins.bool:
        return False

    @staticmethod
    def is_bf16_supported(including_emulation: builtins.bool = True) -> builtins.bool:
        return False

    @staticmethod
    def empty_cache() -> None:
        pass

    @staticmethod
    def memory_allocated(device: Any = None) -> builtins.int:
        return 0

    max_memory_allocated = memory_reserved = max_memory_reserved = memory_allocated

    @staticmethod
    def is_available() -> builtins.bool:
        return False

    @staticmethod
    def manual_seed(s: Any) -> None:
        pass

    manual_seed_all = manual_seed


class OutOfMemoryError(RuntimeError):
    """``torch.OutOfMemoryError`` (also ``torch.cuda.OutOfMemoryError``)."""


class AcceleratorError(RuntimeError):
    """``torch.AcceleratorError``."""


class _CudaDevice:
    """``torch.cuda.device(i)``: a context PyTorch's CPU-only build cannot enter."""

    def __init__(self, device: Any) -> None:
        self.idx = device

    def __enter__(self) -> None:
        raise RuntimeError("PyTorch was compiled without CUDA support")

    def __exit__(self, *exc: Any) -> None:
        pass


def _nothing(*args: Any, **kw: Any) -> None:
    return None


# NB: as PyTorch's CPU-only build: seeding is a silent no-op, what needs a device fails
_Cuda.OutOfMemoryError = OutOfMemoryError  # type: ignore[attr-defined]
_Cuda.device = _CudaDevice  # type: ignore[attr-defined]
for _name in ("seed", "seed_all", "set_rng_state", "set_rng_state_all"):
    setattr(_Cuda, _name, staticmethod(_nothing))
for _name in ("initial_seed", "get_rng_state", "get_device_capability", "mem_get_info",
              "ipc_collect", "current_stream", "default_stream"):
    setattr(_Cuda, _name, staticmethod(_environment._no_cuda))
_Cuda.get_rng_state_all = _Cuda.get_arch_list = staticmethod(  # type: ignore[attr-defined]
    lambda: [])
cuda = _Cuda()


class _NoDevice:
    """``torch.xpu``, ``torch.mps``, ``torch.mtia``: a device kind this build lacks."""

    @staticmethod
    def is_available() -> builtins.bool:
        return False

    @staticmethod
    def device_count() -> builtins.int:
        return 0


xpu = mps = mtia = _NoDevice()


def get_device_module(device: Any = None) -> Any:
    """The module of a device kind (``torch.cuda`` for ``"cuda"``); with none given, the
    current accelerator's, which on this CPU-only engine is ``torch.cpu``."""
    kind = _msg.device_type(str(getattr(device, "type", device) or "cpu"))
    modules = {"cpu": cpu, "cuda": cuda, "xpu": xpu, "mps": mps, "mtia": mtia}
    if kind not in modules:
        raise RuntimeError(f"Device '{kind}' does not have a corresponding module registered as "
                           f"'torch.{kind}'.")
    return modules[kind]


class _Cpu:
    amp = _amp_ns.cpu_amp

    @staticmethod
    def is_available() -> builtins.bool:
        return True

    @staticmethod
    def device_count() -> builtins.int:
        return 1


cpu = _Cpu()


def is_anomaly_enabled() -> builtins.bool:
    return _anomaly.state.enabled


def is_anomaly_check_nan_enabled() -> builtins.bool:
    return _anomaly.state.check_nan


def set_anomaly_enabled(enabled: builtins.bool, check_nan: builtins.bool = True) -> None:
    _anomaly.set_enabled(enabled, check_nan)


def is_tensor(x: Any) -> builtins.bool:
    return isinstance(x, Tensor)


def numel(t: Tensor) -> Any:
    return t.numel()


def get_default_dtype() -> _dt.DType:
    return _dt.float32


def set_default_dtype(d: _dt.DType) -> None:
    if d is not _dt.float32:
        raise NotImplementedError("this engine's default dtype is float32")


def _fn(name: str) -> Any:
    method = _tensor_methods.IMPLEMENTATIONS.get(name) or getattr(Tensor, name)

    def impl(input: Tensor, *args: Any, **kw: Any) -> Any:
        return method(_F.as_tensor_arg(input) if not isinstance(input, Tensor) else input,
                      *args, **kw)

    limit = [-1.0]          # the most positional arguments, known from the first call on

    def f(*args: Any, **kw: Any) -> Any:
        if len(args) > limit[0]:
            if limit[0] < 0:
                limit[0] = _sig.max_positional(name, method=False)
            if len(args) > limit[0]:        # NB: one too many, where the method would take it
                _sig.fail(name, args, kw, method=False)
        if not args or not isinstance(args[0], Tensor):
            # NB: the input by keyword, or not a tensor (PyTorch refuses a number): checked
            _sig.fail(name, args, kw, method=False)
        for a in args:
            if type(a) is np.ndarray:       # NB: PyTorch's functions take no numpy array
                _sig.fail(name, args, kw, method=False)
        try:
            return impl(*args, **kw)
        except Exception as e:      # NB: PyTorch reads its arguments before any other check
            return _sig.recover(impl, name, args, kw, False, e)
    f.__name__ = name
    _CHECKED.add(name)
    return f


_CHECKED: set[str] = set()      # the functions that check their own arguments


for _name in ("add", "sub", "subtract", "mul", "multiply", "div", "divide", "true_divide",
              "exp", "log", "sin", "cos", "tan", "tanh", "sigmoid", "relu", "abs", "sqrt",
              "rsqrt", "reciprocal", "neg", "sign", "sgn", "log1p", "expm1", "log2", "floor",
              "ceil", "round", "trunc", "square", "matmul", "mm", "mv", "dot", "bmm", "sum",
              "mean", "max", "min", "amax", "argmax", "argmin", "prod", "var", "std", "norm",
              "logsumexp", "cumsum", "softmax", "log_softmax", "clamp", "clip", "reshape",
              "flatten", "transpose", "swapaxes", "t", "permute", "unsqueeze", "squeeze",
              "select", "narrow", "split", "chunk", "unbind", "flip", "gather", "masked_fill",
              "clone", "isnan", "isinf", "isfinite", "all", "any", "eq", "ne", "lt", "le", "gt",
              "ge", "clamp_min", "clamp_max", "detach", "index_select", "masked_select", "take",
              "roll", "index_add", "masked_scatter", "put", "log10", "exp2", "sinh", "cosh",
              "atan", "asin", "acos", "asinh", "acosh", "atanh", "atan2", "median", "logit",
              # ordering, cumulative ops, triangles and diagonals (engine/ordering.py)
              "sort", "argsort", "msort", "topk", "kthvalue", "mode", "amin", "cumprod",
              "cummax", "cummin", "logcumsumexp", "diff", "triu", "tril", "diagonal", "diag",
              "diag_embed", "trace", "index_fill", "scatter", "scatter_add", "index_copy",
              "take_along_dim", "movedim", "moveaxis", "swapdims", "broadcast_to",
              "unflatten", "tile", "tensor_split", "hsplit", "vsplit", "dsplit",
              # special functions and in-place forms (engine/pointwise_extra.py)
              "erf", "erfc", "erfinv", "lgamma", "digamma", "sinc", "frac", "relu_", "sigmoid_",
              "tanh_", "square_", "logit_", "xlogy_", "erf_", "erfc_", "erfinv_", "lgamma_",
              "digamma_", "sinc_", "frac_", "nan_to_num_", "hardshrink",
              # engine/reducing_extra.py
              "aminmax", "narrow_copy", "scatter_reduce",
              # engine/sampling.py
              "multinomial"):
    globals()[_name] = _fn(_name)
negative = globals()["neg"]
absolute = globals()["abs"]
# NB: PyTorch's aliases (arccos, fix, ...) and its in-place functions (torch.exp_(t), ...)
for _name in ("arccos", "arcsin", "arctan", "arctan2", "arccosh", "arcsinh", "arctanh", "fix",
              "split_with_sizes", "index_put_", *_mathfns.INPLACE_FUNCTIONS):
    globals()[_name] = _fn(_name)


def pow(input: Any, exponent: Any) -> Tensor:
    return _F.pow(input, exponent)


def maximum(input: Tensor, other: Tensor) -> Tensor:
    return _F.binary("maximum", input, other)


def minimum(input: Tensor, other: Tensor) -> Tensor:
    return _F.binary("minimum", input, other)


def where(condition: Tensor, input: Any = None, other: Any = None) -> Any:
    if input is None and other is None:
        return _F.nonzero(condition, as_tuple=True)
    return _F.where(condition, input, other)


row_stack = vstack


def repeat_interleave(input: Tensor, repeats: Any = None, dim: Any = None, *,
                      output_size: Any = None) -> Tensor:
    from ..engine.scattering import repeat_interleave as _ri
    return _ri(input, repeats, dim, output_size=output_size)


def cat(tensors: Any, dim: Any = 0) -> Tensor:
    return _F.cat(tensors, dim)


concat = concatenate = cat


def stack(tensors: Any, dim: Any = 0) -> Tensor:
    return _F.stack(tensors, dim)


def addmm(input: Tensor, mat1: Tensor, mat2: Tensor, *, beta: Any = 1,
          alpha: Any = 1) -> Tensor:
    return _F.addmm(input, mat1, mat2, beta, alpha)


def baddbmm(input: Tensor, batch1: Tensor, batch2: Tensor, *, beta: Any = 1,
            alpha: Any = 1) -> Tensor:
    from .nn.functional_attention import baddbmm as _baddbmm
    return _baddbmm(input, batch1, batch2, beta=beta, alpha=alpha)


def _safe_softmax(input: Tensor, dim: Any) -> Tensor:
    from .nn.functional_attention import safe_softmax
    return safe_softmax(input, dim)


def cholesky_inverse(input: Tensor, upper: builtins.bool = False) -> Tensor:
    """The inverse of ``L L^T`` (``U^T U`` for ``upper``) from its Cholesky factor."""
    if input.dim() < 2:
        raise RuntimeError("cholesky_inverse: The input tensor A must have at least 2 "
                           "dimensions.")
    return _apply(_TABLE["cholesky_inverse"], (input,), {"upper": upper})


def outer(a: Tensor, b: Tensor) -> Tensor:
    for name, v in (("self", a), ("vec2", b)):
        if v._data.ndim != 1:
            raise RuntimeError(f"outer: Expected 1-D argument {name}, but got {v._data.ndim}-D")
    return _F.mul(_F.view(a, (-1, 1)) if a._data.flags.c_contiguous else _F.reshape(a, (-1, 1)),
                  b)


ger = outer
nonzero, argwhere = _F.nonzero, _F.argwhere
remainder = _F.remainder
fmod = _F.fmod
floor_divide = _F.floor_divide
unsafe_chunk = _F.unsafe_chunk
unsafe_split = _F.unsafe_split
bitwise_not = _predicates.METHODS["bitwise_not"]


def _activation(name: str) -> Any:
    def f(*args: Any, **kw: Any) -> Any:
        return getattr(nn.functional, name)(*args, **kw)
    f.__name__ = name
    return f


# NB: the activations PyTorch also exposes as torch.*
selu, selu_, celu, celu_, threshold, threshold_, prelu = (
    _activation(n) for n in ("selu", "selu_", "celu", "celu_", "threshold", "threshold_",
                             "prelu"))


def _recurrent() -> Any:
    from .nn import recurrent
    return recurrent


# NB: PyTorch's recurrent functions (``torch.lstm``, ``torch.gru_cell``), as nn's layers call them
def lstm(*args: Any) -> Any:
    return _recurrent().lstm(*args)


def gru(*args: Any) -> Any:
    return _recurrent().gru(*args)


def rnn_tanh(*args: Any) -> Any:
    return _recurrent().rnn_tanh(*args)


def rnn_relu(*args: Any) -> Any:
    return _recurrent().rnn_relu(*args)


def rnn_tanh_cell(input: Tensor, hx: Tensor, w_ih: Tensor, w_hh: Tensor,
                  b_ih: Tensor | None = None, b_hh: Tensor | None = None) -> Tensor:
    return _recurrent().rnn_cell(input, hx, w_ih, w_hh, b_ih, b_hh, "tanh")


def rnn_relu_cell(input: Tensor, hx: Tensor, w_ih: Tensor, w_hh: Tensor,
                  b_ih: Tensor | None = None, b_hh: Tensor | None = None) -> Tensor:
    return _recurrent().rnn_cell(input, hx, w_ih, w_hh, b_ih, b_hh, "relu")


def lstm_cell(input: Tensor, hx: Any, w_ih: Tensor, w_hh: Tensor, b_ih: Tensor | None = None,
              b_hh: Tensor | None = None) -> Any:
    return _recurrent().lstm_cell(input, tuple(hx), w_ih, w_hh, b_ih, b_hh)


def gru_cell(input: Tensor, hx: Tensor, w_ih: Tensor, w_hh: Tensor, b_ih: Tensor | None = None,
             b_hh: Tensor | None = None) -> Tensor:
    return _recurrent().gru_cell(input, hx, w_ih, w_hh, b_ih, b_hh)


def cosine_similarity(x1: Tensor, x2: Tensor, dim: Any = 1, eps: Any = 1e-8) -> Tensor:
    return nn.functional.cosine_similarity(x1, x2, dim, eps)


def pairwise_distance(x1: Tensor, x2: Tensor, p: Any = 2.0, eps: Any = 1e-6,
                      keepdim: Any = False) -> Tensor:
    return nn.functional.pairwise_distance(x1, x2, p, eps, keepdim)


_ = (_apply, _TABLE)


from . import distributions, func  # noqa: E402 -- they build on the names above
from .func import vmap  # noqa: E402
from .layer_aliases import (  # noqa: E402 -- they build on nn.functional
    adaptive_avg_pool1d,
    adaptive_max_pool1d,
    affine_grid_generator,
    alpha_dropout,
    alpha_dropout_,
    avg_pool1d,
    batch_norm,
    bilinear,
    binary_cross_entropy_with_logits,
    channel_shuffle,
    constant_pad_nd,
    conv1d,
    conv2d,
    conv3d,
    conv_tbc,
    conv_transpose1d,
    conv_transpose2d,
    conv_transpose3d,
    convolution,
    cosine_embedding_loss,
    ctc_loss,
    dropout,
    dropout_,
    embedding,
    embedding_bag,
    feature_alpha_dropout,
    feature_alpha_dropout_,
    feature_dropout,
    feature_dropout_,
    grid_sampler,
    grid_sampler_2d,
    grid_sampler_3d,
    group_norm,
    hinge_embedding_loss,
    instance_norm,
    kl_div,
    layer_norm,
    margin_ranking_loss,
    max_pool1d,
    max_pool1d_with_indices,
    max_pool2d,
    max_pool3d,
    native_batch_norm,
    native_channel_shuffle,
    native_dropout,
    native_group_norm,
    native_layer_norm,
    pdist,
    pixel_shuffle,
    pixel_unshuffle,
    poisson_nll_loss,
    rms_norm,
    rrelu,
    rrelu_,
    triplet_margin_loss,
)
from .matrix_exp import matrix_exp, orgqr  # noqa: E402
from .nn.utils_spectral import (  # noqa: E402
    _weight_norm,
    _weight_norm_interface,
    norm_except_dim,
)

# the remaining gaps of ordinary scripts (engine/misc_more.py): windows, rsub, fill, frexp, ...
globals().update(_misc_more.FUNCTIONS)
globals().update(_copies.FUNCTIONS)
globals().update(_tensor_memory.FUNCTIONS)
globals().update(_conj_views.FUNCTIONS)
globals().update(_names_extra.FUNCTIONS)


def resize_as_(input: Tensor, the_template: Tensor, **kw: Any) -> Tensor:
    return input.resize_as_(the_template, **kw)


def as_strided_(input: Tensor, size: Any, stride: Any, storage_offset: Any = None) -> Tensor:
    return input.as_strided_(size, stride, storage_offset)


def embedding_renorm_(input: Tensor, indices: Tensor, max_norm: builtins.float,
                      norm_type: builtins.float) -> Tensor:
    """The rows of ``input`` that ``indices`` name, scaled in place to norms of at most
    ``max_norm`` (what ``nn.Embedding(max_norm=...)`` does before each lookup)."""
    from ..engine.autograd import check_inplace
    from .nn.functional import _embedding_renorm_
    check_inplace(input)
    _embedding_renorm_(input, indices._data, builtins.float(max_norm),
                       builtins.float(norm_type))
    return input


def _cholesky_inverse_method(self: Tensor, upper: builtins.bool = False) -> Tensor:
    return cholesky_inverse(self, upper)


Tensor.cholesky_inverse = _cholesky_inverse_method  # type: ignore[attr-defined]

from ..engine.histogram_dd import histogramdd  # noqa: E402
from . import (  # noqa: E402
    accelerator,
    compiler,
    distributed,
    jit,
    overrides,
    profiler,
    random,
    signal,
    storages,
    torch_version,
    version,
)
from .build_info import (  # noqa: E402
    compiled_with_cxx11_abi,
    get_deterministic_debug_mode,
    has_lapack,
    has_mkl,
    has_openmp,
    has_spectral,
    init_num_threads,
    legacy_contiguous_format,
    set_deterministic_debug_mode,
)
from .lowrank import pca_lowrank, svd_lowrank  # noqa: E402
from .storages import (  # noqa: E402 -- the legacy typed storages (Tensor.storage_type())
    BoolStorage,
    ByteStorage,
    CharStorage,
    DoubleStorage,
    FloatStorage,
    HalfStorage,
    IntStorage,
    LongStorage,
    ShortStorage,
    Storage,
)


def set_flush_denormal(mode: builtins.bool) -> builtins.bool:
    """``False``: the engine's numpy arithmetic cannot flush denormals to zero, which is what
    PyTorch answers on a CPU without that support (nothing changes)."""
    return False


from .deprecated_fns import (  # noqa: E402
    frobenius_norm,
    nuclear_norm,
    set_default_tensor_type,
)


def _prelu_method(self: Tensor, weight: Tensor) -> Tensor:
    return prelu(self, weight)


Tensor.prelu = _sig.guard(_prelu_method, "prelu", method=True)  # type: ignore[attr-defined]


def _check_arguments() -> None:
    """Every function of PyTorch's table checks its arguments against PyTorch's signature once
    a call has failed (engine/signatures.py)."""
    import inspect
    space = globals()
    for name in _sig.names(method=False) - _CHECKED:
        fn = space.get(name)
        if inspect.isfunction(fn):
            space[name] = _sig.guard(fn, name, method=False)


_check_arguments()


_HALF_PRECISION = {"bfloat16": _dt.bfloat16, "float16": _dt.float16, "half": _dt.float16}


def __getattr__(name: str) -> Any:
    # NB: the half-precision kernels (float32 computation, one rounding) are installed when a
    # program first names one of these dtypes
    d = _HALF_PRECISION.get(name)
    if d is not None:
        from ..engine.bfloat16 import install
        install()
        globals()[name] = d
        return d
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
