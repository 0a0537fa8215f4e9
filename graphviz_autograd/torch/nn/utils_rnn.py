"""``torch.nn.utils.rnn``: padding a list of sequences into one batch, packing a padded batch
(``PackedSequence``) and unpacking it, each with PyTorch's nodes (CopySlices per sequence padded,
PackPaddedSequenceBackward0, IndexSelectBackward0 where the batch is reordered)."""

from __future__ import annotations

from collections import namedtuple
from collections.abc import Iterable
from itertools import pairwise
from typing import Any

from ...engine import dtypes as dt
from ...engine import functional as _F
from ...engine.autograd import apply as _apply
from ...engine.autograd import check_inplace
from ...engine.factories import arange, as_tensor, empty_like, full
from ...engine.optable import TABLE as _T
from ...engine.ordering import sort as _sort
from ...engine.tensor import Tensor

__all__ = ["PackedSequence", "invert_permutation", "pack_padded_sequence",
           "pad_packed_sequence", "pad_sequence", "unpad_sequence", "pack_sequence",
           "unpack_sequence"]

PackedSequence_ = namedtuple("PackedSequence_",
                             ["data", "batch_sizes", "sorted_indices", "unsorted_indices"])
PackedSequence_.__qualname__ = "PackedSequence_"


def invert_permutation(permutation: Tensor | None) -> Tensor | None:
    """The permutation that undoes ``permutation`` (None stays None).

    >>> from graphviz_autograd import torch
    >>> invert_permutation(torch.tensor([2, 0, 1]))
    tensor([1, 2, 0])
    """
    if permutation is None:
        return None
    out = empty_like(permutation)
    out.scatter_(0, permutation, arange(0, permutation.numel()))
    return out


def _init_args(data: Any, batch_sizes: Any = None, sorted_indices: Any = None,
               unsorted_indices: Any = None) -> tuple[Any, Any, Any, Any]:
    if unsorted_indices is None:
        unsorted_indices = invert_permutation(sorted_indices)
    if batch_sizes is not None:
        return data, batch_sizes, sorted_indices, unsorted_indices
    # NB: PyTorch also takes the pair (data, batch_sizes) as the first argument
    assert isinstance(data, (list, tuple)) and len(data) == 2
    return data[0], data[1], sorted_indices, unsorted_indices


class PackedSequence(PackedSequence_):
    """A batch of sequences of different lengths, packed step by step: ``data`` holds step 0 of
    every sequence, then step 1 of those that have one, ...; ``batch_sizes[t]`` counts the
    sequences at step ``t``; the indices reorder the batch by decreasing length and back."""

    def __new__(cls, data: Any, batch_sizes: Any = None, sorted_indices: Any = None,
                unsorted_indices: Any = None) -> PackedSequence:
        return super().__new__(cls, *_init_args(data, batch_sizes, sorted_indices,
                                                unsorted_indices))

    def to(self, *args: Any, **kwargs: Any) -> PackedSequence:
        data = self.data.to(*args, **kwargs)
        if data is self.data:
            return self
        kwargs = {k: v for k, v in kwargs.items() if k not in ("device", "dtype")}
        sorted_indices = None if self.sorted_indices is None \
            else self.sorted_indices.to(data.device, **kwargs)
        unsorted_indices = None if self.unsorted_indices is None \
            else self.unsorted_indices.to(data.device, **kwargs)
        return type(self)(data, self.batch_sizes, sorted_indices, unsorted_indices)

    def cpu(self, *args: Any, **kwargs: Any) -> PackedSequence:
        return self.to(*args, device="cpu", **kwargs)

    def double(self) -> PackedSequence:
        return self.to(dtype=dt.float64)

    def float(self) -> PackedSequence:
        return self.to(dtype=dt.float32)

    def half(self) -> PackedSequence:
        return self.to(dtype=dt.float16)

    def long(self) -> PackedSequence:
        return self.to(dtype=dt.int64)

    def int(self) -> PackedSequence:
        return self.to(dtype=dt.int32)

    def short(self) -> PackedSequence:
        return self.to(dtype=dt.int16)

    def char(self) -> PackedSequence:
        return self.to(dtype=dt.int8)

    def byte(self) -> PackedSequence:
        return self.to(dtype=dt.uint8)

    @property
    def is_cuda(self) -> bool:
        return False

    def is_pinned(self) -> bool:
        return False


def pad_sequence(sequences: Any, batch_first: bool = False, padding_value: float = 0.0,
                 padding_side: str = "right") -> Tensor:
    """The sequences in one padded tensor (``(max_len, batch, *)``, or batch first): a tensor
    full of ``padding_value``, each sequence copied into its slot (a CopySlices each).

    >>> from graphviz_autograd import torch
    >>> pad_sequence([torch.ones(2), torch.ones(1)], batch_first=True)
    tensor([[1., 1.],
            [1., 0.]])
    """
    if not isinstance(sequences, Iterable):
        raise RuntimeError("pad_sequence: Expected iterable for input sequences, but got arg of "
                           f"type: {type(sequences)}")
    seqs = tuple(sequences)
    if not seqs:
        raise RuntimeError("received an empty list of sequences")
    if padding_side not in ("left", "right"):
        raise RuntimeError("Expected padding_side to be one of left or right, but got "
                           f"{padding_side}.")
    if seqs[0].dim() == 0:
        raise RuntimeError("ArrayRef: invalid slice, N = 1; size = 0")
    max_len = max(s.size(0) for s in seqs)
    trailing = tuple(seqs[0].shape[1:])
    size = (len(seqs), max_len) if batch_first else (max_len, len(seqs))
    out = full(size + trailing, padding_value, dtype=seqs[0].dtype)
    for i, seq in enumerate(seqs):
        n = seq.size(0)
        start = max_len - n if padding_side == "left" else 0
        if batch_first:
            slot = _F.narrow(out.select(0, i), 0, start, n)
        else:
            slot = _F.narrow(out, 0, start, n).select(1, i)
        slot.copy_(seq)
    return out


def _lengths(lengths: Any) -> Tensor:
    if not isinstance(lengths, Tensor):
        return as_tensor(lengths, dtype=dt.int64)
    return lengths.to(dt.int64)


def pack_padded_sequence(input: Tensor, lengths: Any, batch_first: bool = False,
                         enforce_sorted: bool = True) -> PackedSequence:
    """Pack a padded batch (one PackPaddedSequenceBackward0; with ``enforce_sorted=False`` the
    batch is first reordered by decreasing length, an IndexSelectBackward0)."""
    lengths = _lengths(lengths)
    sorted_indices = None
    if not enforce_sorted:
        lengths, sorted_indices = _sort(lengths, descending=True)
        input = input.index_select(0 if batch_first else 1, sorted_indices)
    if lengths.dim() != 1:
        raise RuntimeError("'lengths' argument should be a 1D CPU int64 tensor, but got "
                           f"{lengths.dim()}D cpu Long tensor")
    batch = input.size(0 if batch_first else 1)
    if input.numel() == 0:
        raise RuntimeError("Cannot pack empty tensors.")
    ls = [int(v) for v in lengths._data]
    if len(ls) != batch:
        raise RuntimeError(f"Expected `len(lengths)` to be equal to batch_size, but got "
                           f"{len(ls)} (batch_size={batch})")
    if ls[-1] <= 0:
        raise RuntimeError("Length of all samples has to be greater than 0, but found an "
                           "element in 'lengths' that is <= 0")
    if any(a < b for a, b in pairwise(ls)):
        raise RuntimeError("`lengths` array must be sorted in decreasing order when "
                           "`enforce_sorted` is True. You can pass `enforce_sorted=False` to "
                           "pack_padded_sequence and/or pack_sequence to sidestep this "
                           "requirement if you do not need ONNX exportability.")
    batch_sizes = tuple(sum(1 for n in ls if n > t) for t in range(ls[0]))
    data = _apply(_T["pack_padded_sequence"], (input,),
                  {"batch_sizes": batch_sizes, "batch_first": bool(batch_first),
                   "input_sym_sizes": tuple(input.shape)})
    return PackedSequence(data, as_tensor(batch_sizes, dtype=dt.int64), sorted_indices, None)


def _pad_packed(data: Tensor, batch_sizes: Tensor, batch_first: bool, padding_value: float,
                total_length: int) -> tuple[Tensor, Tensor]:
    """PyTorch's ``_pad_packed_sequence``: each run of steps with the same batch size copied
    into the padded output at once (a slice of ``data`` viewed as steps x batch)."""
    sizes = [int(v) for v in batch_sizes._data]
    max_batch, real_steps = sizes[0], len(sizes)
    output = full((max(total_length, real_steps), max_batch, *data.shape[1:]), padding_value,
                  dtype=data.dtype)
    lengths = [0] * max_batch
    offset, prev_batch, prev_i = 0, max_batch, 0
    for i in range(real_steps + 1):
        batch = sizes[i] if i != real_steps else 0
        if batch != prev_batch:
            n = prev_batch * (i - prev_i)
            chunk = _F.slice_(data, 0, offset, offset + n).view(
                i - prev_i, prev_batch, *data.shape[1:])
            _F.slice_(_F.slice_(output, 0, prev_i, i), 1, 0, prev_batch).copy_(chunk)
            offset += n
            prev_i = i
        for j in range(prev_batch - batch):
            lengths[prev_batch - j - 1] = i
        prev_batch = batch
    if batch_first:
        output = output.transpose(0, 1)
    return output, as_tensor(lengths, dtype=dt.int64)


def pad_packed_sequence(sequence: PackedSequence, batch_first: bool = False,
                        padding_value: float = 0.0, total_length: int | None = None
                        ) -> tuple[Tensor, Tensor]:
    """Undo ``pack_padded_sequence``: the padded batch, in the original order, and the
    lengths."""
    steps = sequence.batch_sizes.size(0)
    if total_length is not None:
        if total_length < steps:
            raise ValueError("Expected total_length to be at least the length of the longest "
                             f"sequence in input, but got total_length={total_length} and max "
                             f"sequence length being {steps}")
        steps = total_length
    padded, lengths = _pad_packed(sequence.data, sequence.batch_sizes, batch_first,
                                  padding_value, steps)
    unsorted = sequence.unsorted_indices
    if unsorted is not None:
        return padded.index_select(0 if batch_first else 1, unsorted), lengths[unsorted]
    return padded, lengths


def pack_sequence(sequences: list[Tensor], enforce_sorted: bool = True) -> PackedSequence:
    lengths = as_tensor([v.size(0) for v in sequences])
    return pack_padded_sequence(pad_sequence(sequences), lengths, enforce_sorted=enforce_sorted)


def unpad_sequence(padded_sequences: Tensor, lengths: Tensor, batch_first: bool = False
                   ) -> list[Tensor]:
    if not batch_first:
        # NB: PyTorch transposes the caller's tensor in place here (TransposeBackward1, its
        # version bumped, a leaf requiring grad refused); the caller's tensor keeps its shape
        check_inplace(padded_sequences)
        padded_sequences = _F.transpose_inplace(padded_sequences, 0, 1)
    idx = arange(padded_sequences.shape[1])
    seqs: list[Tensor] = list(padded_sequences)
    return [seq[idx.lt(length)] for seq, length in zip(seqs, lengths, strict=False)]


def unpack_sequence(packed_sequences: PackedSequence) -> list[Tensor]:
    padded, lengths = pad_packed_sequence(packed_sequences, batch_first=True)
    return unpad_sequence(padded, lengths, batch_first=True)
