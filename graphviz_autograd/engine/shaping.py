"""The shape and selection functions PyTorch has beyond the basics: ``rot90``, ``fliplr``,
``diagflat``, ``ravel``, the scatters into a view (``select_scatter``, ...), ``index_put``,
``Tensor.unfold``, the in-place view methods (``t_``, ``squeeze_``, ``transpose_``, ...),
``as_strided``, ``fill_diagonal_``, ``block_diag``, ``cartesian_prod`` and ``combinations``,
decomposed as PyTorch decomposes them or recorded through the table (``ops_shaping``)."""

from __future__ import annotations

from typing import Any

import numpy as np

from . import dtypes as dt
from . import events
from . import functional as F
from . import messages as msg
from .autograd import apply, apply_inplace, check_inplace
from .grad_mode import state as grad_state
from .optable import TABLE
from .pre_write import WATCH as _WATCH
from .pre_write import before_write
from .tensor import LeafData, Tensor

__all__ = ["block_diag", "cartesian_prod", "combinations", "diagflat", "fliplr", "flipud",
           "ravel", "rot90", "select_scatter", "slice_scatter", "diagonal_scatter", "index_put",
           "unfold", "as_strided", "METHODS"]


def _name(d: dt.DType) -> str:
    return msg.SCALAR_NAME.get(d.name, d.name)


# -- combining -------------------------------------------------------------------------------------
def block_diag(*tensors: Tensor) -> Tensor:
    """The inputs (numbers, vectors as rows, matrices) along the diagonal of one matrix (one
    ``BlockDiagBackward0`` node)."""
    for i, t in enumerate(tensors):
        if t._data.ndim > 2:
            raise RuntimeError(f"torch.block_diag: Input tensors must have 2 or fewer "
                               f"dimensions. Input {i} has {t._data.ndim} dimensions")
    if not tensors:
        return Tensor._make(np.zeros((1, 0), np.float32), dt.float32)
    dtype = F.promote(*tensors)
    return apply(TABLE["block_diag"], tensors, dtype=dtype,
                 arrays=[t._data.astype(dtype.np, copy=False) for t in tensors])


def cartesian_prod(*tensors: Tensor) -> Tensor:
    """Every combination of one element of each input, as rows (PyTorch's meshgrid, flatten,
    stack)."""
    from .stacking import meshgrid
    for t in tensors:
        if t._data.ndim != 1:
            raise RuntimeError(f"Expect a 1D vector, but got shape "
                               f"[{', '.join(map(str, t._data.shape))}]")
    if len(tensors) == 1:
        return tensors[0]
    grids = meshgrid(*tensors, indexing="ij")
    return F.stack([F.flatten(g) for g in grids], 1)


def combinations(input: Tensor, r: int = 2, with_replacement: bool = False) -> Tensor:
    """The ``r``-element combinations of a vector's elements, as rows (PyTorch's meshgrid,
    masked_select by an upper-triangular mask, stack)."""
    from .selecting import masked_select
    from .stacking import meshgrid
    if input._data.ndim != 1:
        raise RuntimeError(f"Expect a 1D vector, but got shape "
                           f"[{', '.join(map(str, input._data.shape))}]")
    if r < 0:
        raise RuntimeError(f"Expect a non-negative number, but got {r}")
    if r == 0:
        return Tensor._make(np.zeros((0,), input._dtype.np), input._dtype)
    n = input._data.size
    grids = meshgrid(*([input] * r), indexing="ij")
    idx = np.indices((n,) * r)
    mask = np.ones((n,) * r, bool)
    for k in range(r - 1):
        mask &= (idx[k] <= idx[k + 1]) if with_replacement else (idx[k] < idx[k + 1])
    m = Tensor._make(mask, dt.bool_)
    return F.stack([masked_select(g, m) for g in grids], 1)


def diagflat(input: Tensor, offset: int = 0) -> Tensor:
    """A matrix with the flattened input on its ``offset`` diagonal."""
    from .ordering import diag_embed
    return diag_embed(ravel(input), offset)


def fliplr(input: Tensor) -> Tensor:
    if input._data.ndim < 2:
        raise RuntimeError("Input must be >= 2-d.")
    return input.flip(1)


def flipud(input: Tensor) -> Tensor:
    if input._data.ndim < 1:
        raise RuntimeError("Input must be >= 1-d.")
    return input.flip(0)


def ravel(input: Tensor) -> Tensor:
    """``contiguous().view(-1)``, as PyTorch (a copy first where the input is not
    contiguous)."""
    return F.view(F.contiguous(input), (-1,))


def rot90(input: Tensor, k: int = 1, dims: Any = (0, 1)) -> Tensor:
    """A rotation by ``k`` quarter turns in the plane ``dims`` (one ``Rot90Backward0``)."""
    dims = tuple(dims)
    n = input._data.ndim
    if len(dims) != 2:
        raise RuntimeError(f"expected total rotation dims == 2, but got dims = {len(dims)}")
    if n < 2:
        raise RuntimeError(f"expected total dims >= 2, but got total dims = {n}")
    d0, d1 = F._dim(dims[0], n), F._dim(dims[1], n)
    if d0 == d1:
        raise RuntimeError(f"expected rotation dims to be different, but got dim0 = {d0} and "
                           f"dim1 = {d1}")
    return F.as_given(apply(TABLE["rot90"], (input,), {"k": k % 4, "dims": (d0, d1)},
                            dtype=input._dtype), k=k, dims=dims)


def _embedded_shape(what: str, expected: tuple[int, ...], src: Tensor) -> None:
    if tuple(src._data.shape) != expected:
        raise RuntimeError(f"expected src to have a size equal to the {what} of self. src "
                           f"size = [{', '.join(map(str, src._data.shape))}], {what} size = "
                           f"[{', '.join(map(str, expected))}]")


def select_scatter(input: Tensor, src: Tensor, dim: int, index: int) -> Tensor:
    """``input`` with ``src`` written into ``input.select(dim, index)``."""
    d = F._dim(dim, input._data.ndim)
    size = input._data.shape[d]
    if not -size <= index < size:
        raise IndexError(f"select(): index {index} out of range for tensor of size "
                         f"[{', '.join(map(str, input._data.shape))}] at dimension {d}")
    _embedded_shape("slice", input._data.shape[:d] + input._data.shape[d + 1:], src)
    return F.as_given(apply(TABLE["select_scatter"], (input, src), {"dim": d,
                                                                   "index": index % size},
                            dtype=input._dtype), dim=dim, index=index)


def slice_scatter(input: Tensor, src: Tensor, dim: int = 0, start: Any = None, end: Any = None,
                  step: int = 1) -> Tensor:
    """``input`` with ``src`` written into ``input[start:end:step]`` along ``dim``."""
    d = F._dim(dim, input._data.ndim)
    s, e, st = slice(start, end, step).indices(input._data.shape[d])
    e = max(e, s)
    shape = list(input._data.shape)
    shape[d] = len(range(s, e, st))
    _embedded_shape("slice", tuple(shape), src)
    return F.as_given(apply(TABLE["slice_scatter"], (input, src), {
        "dim": d, "start": s, "end": e, "step": st}, dtype=input._dtype),
        dim=dim, start=start, end=end)


def diagonal_scatter(input: Tensor, src: Tensor, offset: int = 0, dim1: int = 0,
                     dim2: int = 1) -> Tensor:
    """``input`` with ``src`` written into ``input.diagonal(offset, dim1, dim2)``."""
    n = input._data.ndim
    d1, d2 = F._dim(dim1, n), F._dim(dim2, n)
    _embedded_shape("slice", np.diagonal(input._data, offset, d1, d2).shape, src)
    return F.as_given(apply(TABLE["diagonal_scatter"], (input, src), {
        "offset": offset, "dim1": d1, "dim2": d2}, dtype=input._dtype), dim1=dim1, dim2=dim2)


def _index_put_args(self: Tensor, indices: Any, values: Tensor) -> tuple[Any, ...]:
    """PyTorch's checks of ``index_put``'s indices and values; the indices and the values
    broadcast to the part they are put into."""
    if not isinstance(indices, tuple | list):
        raise TypeError(f"index_put(): argument 'indices' (position 1) must be tuple of Tensors, "
                        f"not {type(indices).__name__}")
    for k, i in enumerate(indices):
        if not isinstance(i, Tensor):
            raise TypeError(f"expected Tensor as element {k} in argument 0, but got "
                            f"{type(i).__name__}")
        if i._dtype not in (dt.int64, dt.int32, dt.uint8, dt.bool_):
            raise IndexError("tensors used as indices must be long, int, byte or bool tensors")
    if values._dtype is not self._dtype:
        raise RuntimeError(f"Index put requires the source and destination dtypes match, got "
                           f"{_name(self._dtype)} for the destination and {_name(values._dtype)} "
                           "for the source.")
    shape = self._data.shape
    d = 0
    for i in indices:
        if i._dtype is not dt.bool_ and i._data.size:
            size = shape[d]
            hi, lo = int(i._data.max()), int(i._data.min())
            if hi >= size or lo < -size:
                raise IndexError(f"index {hi if hi >= size else lo} is out of bounds for "
                                 f"dimension {d} with size {size}")
        d += i._data.ndim if i._dtype is dt.bool_ else 1
    idx = tuple(indices)
    target = self._data[tuple(i._data for i in idx)].shape
    try:
        vals = values._data if values._data.shape == target else np.broadcast_to(values._data,
                                                                                 target)
    except ValueError:
        raise RuntimeError(f"shape mismatch: value tensor of shape "
                           f"[{', '.join(map(str, values._data.shape))}] cannot be broadcast to "
                           f"indexing result of shape [{', '.join(map(str, target))}]") from None
    return idx, vals


def index_put(input: Tensor, indices: Any, values: Tensor, accumulate: bool = False) -> Tensor:
    """``input`` with ``values`` put at ``indices`` (one ``IndexPutBackward0``)."""
    idx, vals = _index_put_args(input, indices, values)
    return apply(TABLE["index_put"], (input, values), {"indices": idx, "accumulate": accumulate},
                 (input._data, vals), dtype=input._dtype)


def _index_put_(self: Tensor, indices: Any, values: Tensor, accumulate: bool = False) -> Tensor:
    idx, vals = _index_put_args(self, indices, values)
    return apply_inplace(TABLE["index_put"], self, (values,),
                         {"indices": idx, "accumulate": accumulate}, arrays=(self._data, vals))


def unfold(self: Tensor, dimension: int, size: int, step: int) -> Tensor:
    """The sliding windows of ``size`` every ``step`` along ``dimension``, as a new last dim (a
    view: ``UnfoldBackward0``)."""
    shape = self._data.shape
    d = F._dim(dimension, len(shape))
    n = shape[d] if shape else 1
    if size > n:
        raise RuntimeError(f"maximum size for tensor at dimension {d} is {n} but size is {size}")
    if step <= 0:
        raise RuntimeError(f"step is {step} but must be > 0")
    if size < 0:
        raise RuntimeError(f"size is {size} but must be >= 0")
    return F.as_given(apply(TABLE["unfold"], (self,), {"dimension": d, "size": size,
                                                        "step": step}, dtype=self._dtype),
                      dimension=dimension)


# -- in-place views ------------------------------------------------------------------------------
def _view_inplace(t: Tensor, key: str, kw: dict[str, Any] | None = None, **given: Any) -> Tensor:
    """``t`` itself made the view ``key`` of what it was (its data, grad_fn and version
    changed), as PyTorch's in-place view ops (``t_``, ``squeeze_``, ``transpose_``) do."""
    check_inplace(t)
    out = F.as_given(apply(TABLE[key], (t,), kw, dtype=t._dtype), **given)
    if _WATCH:
        before_write(t)
    shape = t._data.shape
    t._data = out._data
    # NB: with grad mode off, no node is made and the tensor keeps its history (a view's is
    # made afresh, an AsStridedBackward0, when next read), as PyTorch's
    recorded = grad_state.enabled
    if recorded:
        t._grad_fn, t._output_nr = out._grad_fn, out._output_nr
    elif t._grad_fn is not None and out._data.shape != shape:
        # NB: its grad_fn expects its old shape: from now on every gradient is checked
        LeafData.changed = True
    if grad_state.dual and t._fw_grad is not None:
        from .forward_ad import set_tangent, tangent_of
        set_tangent(t, tangent_of(out))     # NB: its tangent is made the same view of itself
    if t._base is not None:
        t._view_fn = out._view_fn
    t._vc.v += 1
    if t._base is not None and recorded:
        t._view_version = t._vc.v
    if events.listeners and t._vc.saves:
        events.emit("tensor_modified", t, None)
    return t


def _t_(self: Tensor) -> Tensor:
    if self._data.ndim > 2:
        raise RuntimeError(f"t_() expects a tensor with <= 2 dimensions, but self is "
                           f"{self._data.ndim}D")
    return _view_inplace(self, "t_inplace")


def _transpose_(self: Tensor, dim0: int, dim1: int) -> Tensor:
    n = self._data.ndim
    return _view_inplace(self, "transpose_inplace", {"dim0": F._dim(dim0, n),
                                                     "dim1": F._dim(dim1, n)},
                         dim0=dim0, dim1=dim1)


def _unsqueeze_(self: Tensor, dim: int) -> Tensor:
    return _view_inplace(self, "unsqueeze_inplace", {"dim": F._dim(dim, self._data.ndim + 1)},
                         dim=dim)


def _squeeze_(self: Tensor, dim: Any = None) -> Tensor:
    n = self._data.ndim
    if dim is None:
        return _view_inplace(self, "squeeze_inplace")
    if isinstance(dim, tuple | list):
        dims = tuple(F._dim(d, n) for d in dim)
        return _view_inplace(self, "squeeze_inplace_dims", {"dim": dims}, dim=tuple(dim))
    return _view_inplace(self, "squeeze_dims", {"dim": F._dim(dim, n)}, dim=dim)


def _strided(shape: tuple[int, ...], strides: tuple[int, ...], offset: int) -> Any:
    """The view function of ``as_strided`` on a C-contiguous array (strides in elements)."""
    def fn(arr: np.ndarray) -> np.ndarray:
        flat = arr.reshape(-1)[offset:]
        return np.lib.stride_tricks.as_strided(flat, shape, tuple(s * arr.itemsize
                                                                  for s in strides),
                                               writeable=arr.flags.writeable)
    return fn


def _storage_offset(t: Tensor) -> int:
    """Where ``t``'s first element lies in its base's memory, in elements."""
    if t._base is None:
        return 0
    start = t._data.__array_interface__["data"][0]
    return (start - t._base._data.__array_interface__["data"][0]) // t._data.itemsize


def as_strided(input: Tensor, size: Any, stride: Any, storage_offset: Any = None) -> Tensor:
    """A view of the tensor's memory with the given sizes and strides (in elements), from
    ``storage_offset`` in its base's memory (by default where the tensor starts)."""
    size, stride = tuple(size), tuple(stride)
    own = _storage_offset(input)
    offset = own if storage_offset is None else int(storage_offset)
    if len(size) != len(stride):
        raise RuntimeError("mismatch in length of strides and shape")
    storage = input._base._data if input._base is not None else input._data
    need = offset + 1 + sum((n - 1) * s for n, s in zip(size, stride, strict=True)) \
        if all(size) else 0
    if need > storage.size:
        raise RuntimeError(f"setStorage: sizes [{', '.join(map(str, size))}], strides "
                           f"[{', '.join(map(str, stride))}], storage offset {offset}, and "
                           f"itemsize {input._data.itemsize} requiring a storage size of "
                           f"{need * input._data.itemsize} are out of bounds for storage of "
                           f"size {storage.nbytes}")
    if not input._data.flags.c_contiguous or offset < own or need > own + input._data.size:
        raise NotImplementedError("as_strided of a non-contiguous tensor, or reaching memory "
                                  "outside the tensor's own elements, is not supported by "
                                  "graphviz_autograd")
    return apply(TABLE["as_strided_view"], (input,), {
        "view_fn": _strided(size, stride, offset - own), "size": size, "stride": stride,
        "storage_offset": storage_offset}, dtype=input._dtype)


def _fill_diagonal_(self: Tensor, fill_value: Any, wrap: bool = False) -> Tensor:
    """The main diagonal (all dims equal; a tall matrix wraps every ``cols + 1`` rows with
    ``wrap``) filled in place: a fill through a view of it, as PyTorch."""
    shape = self._data.shape
    if len(shape) < 2:
        raise RuntimeError("dimensions must larger than 1")
    if len(shape) > 2 and len(set(shape)) != 1:
        raise RuntimeError("all dimensions of input must be of equal length")
    n = min(shape)
    step = sum(self._data.strides) // self._data.itemsize
    if len(shape) == 2 and wrap and shape[0] > shape[1] + 1 and self._data.flags.c_contiguous:
        n = -(-self._data.size // step)
    if len(shape) == 2 and n == min(shape):
        from .ordering import diagonal
        view = diagonal(self)
    elif self._base is None and self._data.flags.c_contiguous:
        view = apply(TABLE["as_strided_view"], (self,), {
            "view_fn": _strided((n,), (step,), 0), "size": (n,), "stride": (step,),
            "storage_offset": 0}, dtype=self._dtype)
    else:
        raise NotImplementedError("fill_diagonal_ of a view is not supported by "
                                  "graphviz_autograd")
    view.fill_(fill_value)
    return self


def _split_with_sizes(self: Tensor, split_sizes: Any, dim: int = 0) -> Any:
    return F.split(self, list(split_sizes), dim)


METHODS: dict[str, Any] = {
    "diagflat": diagflat, "fliplr": fliplr, "flipud": flipud, "ravel": ravel, "rot90": rot90,
    "select_scatter": select_scatter, "slice_scatter": slice_scatter,
    "diagonal_scatter": diagonal_scatter, "index_put": index_put, "index_put_": _index_put_,
    "split_with_sizes": _split_with_sizes, "unfold": unfold, "t_": _t_,
    "transpose_": _transpose_, "swapaxes_": _transpose_, "swapdims_": _transpose_,
    "unsqueeze_": _unsqueeze_, "squeeze_": _squeeze_, "as_strided": as_strided,
    "fill_diagonal_": _fill_diagonal_,
}
