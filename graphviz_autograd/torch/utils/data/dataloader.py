"""``DataLoader``: batches from a dataset, read in the process itself, and the default
collate functions (PyTorch's rules for tensors, numpy arrays, numbers, strings, mappings and
sequences)."""

from __future__ import annotations

import collections.abc
import copy
import re
import warnings
from collections.abc import Iterator
from typing import Any

import numpy as np

from ....engine import dtypes as dt
from ....engine import functional as _F
from ....engine.factories import as_tensor, tensor
from ....engine.tensor import Tensor
from .dataset import IterableDataset
from .sampler import BatchSampler, RandomSampler, Sampler, SequentialSampler, fresh_seed

__all__ = ["DataLoader", "default_collate", "default_convert", "get_worker_info"]

_STR_OBJ = re.compile(r"[SaUO]")       # numpy dtype codes of strings and objects
_COLLATE_ERR = ("default_collate: batch must contain tensors, numpy arrays, numbers, dicts or "
                "lists; found {}")


def get_worker_info() -> None:
    """None: data is always read in the main process here."""
    return None


def _numpy_kind(x: Any) -> bool:
    t = type(x)
    return t.__module__ == "numpy" and t.__name__ not in ("str_", "string_")


def default_convert(data: Any) -> Any:
    """Numpy arrays and scalars to tensors, within mappings and sequences; the rest as is.

    >>> default_convert([np.array([0, 1]), 2])
    [tensor([0, 1]), 2]
    """
    if isinstance(data, Tensor):
        return data
    if _numpy_kind(data):
        if isinstance(data, np.ndarray) and _STR_OBJ.search(data.dtype.str):
            return data
        return as_tensor(data)
    if isinstance(data, collections.abc.Mapping):
        return _rebuild_mapping(data, {k: default_convert(data[k]) for k in data})
    if isinstance(data, tuple) and hasattr(data, "_fields"):
        return type(data)(*(default_convert(d) for d in data))
    if isinstance(data, tuple):
        return [default_convert(d) for d in data]      # NB: PyTorch gives a list for a tuple
    if isinstance(data, collections.abc.Sequence) and not isinstance(data, (str, bytes)):
        return _rebuild_sequence(data, [default_convert(d) for d in data])
    return data


def _rebuild_mapping(like: Any, values: dict[Any, Any]) -> Any:
    """``values`` in a mapping of ``like``'s type where it can be built, else a dict."""
    try:
        if isinstance(like, collections.abc.MutableMapping):
            out = copy.copy(like)
            out.update(values)
            return out
        return type(like)(values)
    except TypeError:
        return values


def _rebuild_sequence(like: Any, values: list[Any]) -> Any:
    try:
        if isinstance(like, collections.abc.MutableSequence):
            out = copy.copy(like)
            for i, v in enumerate(values):
                out[i] = v
            return out
        return type(like)(values)
    except TypeError:
        return values


def default_collate(batch: Any) -> Any:
    """Stack a list of samples into a batch: tensors with ``torch.stack``, numpy arrays as
    tensors, floats as float64, ints as int64, strings left as a list; mappings, named tuples
    and sequences element by element (a tuple becomes a list).

    >>> default_collate([(1, 2.0), (3, 4.0)])
    [tensor([1, 3]), tensor([2., 4.], dtype=torch.float64)]
    """
    elem = batch[0]
    if isinstance(elem, Tensor):
        return _F.stack(list(batch), 0)
    if isinstance(elem, np.ndarray):
        if _STR_OBJ.search(elem.dtype.str):
            raise TypeError(_COLLATE_ERR.format(elem.dtype))
        return default_collate([as_tensor(b) for b in batch])
    if isinstance(elem, (np.bool_, np.number, np.object_)):
        return as_tensor(np.asarray(batch))
    if isinstance(elem, float):
        return tensor(batch, dtype=dt.float64)
    if isinstance(elem, int):
        return tensor(batch)
    if isinstance(elem, (str, bytes)):
        return batch
    if isinstance(elem, collections.abc.Mapping):
        return _rebuild_mapping(elem, {k: default_collate([d[k] for d in batch]) for k in elem})
    if isinstance(elem, tuple) and hasattr(elem, "_fields"):
        return type(elem)(*(default_collate(list(s)) for s in zip(*batch)))
    if isinstance(elem, collections.abc.Sequence):
        size = len(elem)
        if any(len(e) != size for e in batch):
            raise RuntimeError("each element in list of batch should be of equal size")
        columns = [default_collate(list(s)) for s in zip(*batch)]
        return columns if isinstance(elem, tuple) else _rebuild_sequence(elem, columns)
    raise TypeError(_COLLATE_ERR.format(type(elem)))


class _InfiniteConstantSampler(Sampler):
    """The keys of an iterable dataset: None, for ever."""

    def __iter__(self) -> Iterator[None]:
        while True:
            yield None


_FROZEN = ("batch_size", "batch_sampler", "sampler", "drop_last", "dataset",
           "persistent_workers")


class DataLoader:
    """Batches of a dataset, in the sampler's order (PyTorch's, seed for seed: each pass
    draws one seed from ``generator`` or the default generator when it starts, and a shuffling
    sampler draws its own when its first batch is read, as PyTorch's do).

    Data is read in this process: ``num_workers`` > 0 reads the same batches in the same
    order, without worker processes.

    >>> from graphviz_autograd import torch
    >>> from graphviz_autograd.torch.utils.data import TensorDataset
    >>> [b for b in DataLoader(TensorDataset(torch.arange(5)), batch_size=2)]
    [[tensor([0, 1])], [tensor([2, 3])], [tensor([4])]]
    """

    def __init__(self, dataset: Any, batch_size: int | None = 1, shuffle: bool | None = None,
                 sampler: Any = None, batch_sampler: Any = None, num_workers: int = 0,
                 collate_fn: Any = None, pin_memory: bool = False, drop_last: bool = False,
                 timeout: float = 0, worker_init_fn: Any = None,
                 multiprocessing_context: Any = None, generator: Any = None, *,
                 prefetch_factor: int | None = None, persistent_workers: bool = False,
                 pin_memory_device: str = "", in_order: bool = True) -> None:
        if num_workers < 0:
            raise ValueError("num_workers option should be non-negative; use num_workers=0 "
                             "to disable multiprocessing.")
        if timeout < 0:
            raise ValueError("timeout option should be non-negative")
        if num_workers == 0 and prefetch_factor is not None:
            raise ValueError("prefetch_factor option could only be specified in "
                             "multiprocessing.let num_workers > 0 to enable multiprocessing, "
                             "otherwise set prefetch_factor to None.")
        if persistent_workers and num_workers == 0:
            raise ValueError("persistent_workers option needs num_workers > 0")
        self.dataset = dataset
        self.num_workers = num_workers
        self.prefetch_factor = prefetch_factor
        self.pin_memory = pin_memory
        self.pin_memory_device = pin_memory_device
        self.timeout = timeout
        self.worker_init_fn = worker_init_fn
        self.multiprocessing_context = multiprocessing_context
        self.in_order = in_order
        self._iterable = isinstance(dataset, IterableDataset)
        if self._iterable:
            if shuffle not in (False, None):
                raise ValueError("DataLoader with IterableDataset: expected unspecified shuffle "
                                 f"option, but got shuffle={shuffle}")
            if sampler is not None:
                raise ValueError("DataLoader with IterableDataset: expected unspecified sampler "
                                 f"option, but got sampler={sampler}")
            if batch_sampler is not None:
                raise ValueError("DataLoader with IterableDataset: expected unspecified "
                                 f"batch_sampler option, but got batch_sampler={batch_sampler}")
        else:
            shuffle = bool(shuffle)
        if sampler is not None and shuffle:
            raise ValueError("sampler option is mutually exclusive with shuffle")
        if batch_sampler is not None:
            if batch_size != 1 or shuffle or sampler is not None or drop_last:
                raise ValueError("batch_sampler option is mutually exclusive with batch_size, "
                                 "shuffle, sampler, and drop_last")
            batch_size, drop_last = None, False
        elif batch_size is None and drop_last:
            raise ValueError("batch_size=None option disables auto-batching and is mutually "
                             "exclusive with drop_last")
        if sampler is None:
            if self._iterable:
                sampler = _InfiniteConstantSampler()
            elif shuffle:
                sampler = RandomSampler(dataset, generator=generator)
            else:
                sampler = SequentialSampler(dataset)
        if batch_size is not None and batch_sampler is None:
            batch_sampler = BatchSampler(sampler, batch_size, drop_last)
        self.batch_size = batch_size
        self.drop_last = drop_last
        self.sampler = sampler
        self.batch_sampler = batch_sampler
        self.generator = generator
        if collate_fn is None:
            collate_fn = default_collate if batch_sampler is not None else default_convert
        self.collate_fn = collate_fn
        self.persistent_workers = persistent_workers
        self._IterableDataset_len_called: int | None = None
        self._initialized = True

    def __setattr__(self, attr: str, val: Any) -> None:
        if self.__dict__.get("_initialized") and attr in _FROZEN:
            raise ValueError(f"{attr} attribute should not be set after "
                             f"{type(self).__name__} is initialized")
        object.__setattr__(self, attr, val)

    @property
    def _auto_collation(self) -> bool:
        return self.batch_sampler is not None

    @property
    def _index_sampler(self) -> Any:
        return self.batch_sampler if self._auto_collation else self.sampler

    def __iter__(self) -> Iterator[Any]:
        return _LoaderIter(self)

    def __len__(self) -> int:
        if self._iterable:
            n = self._IterableDataset_len_called = len(self.dataset)
            if self.batch_size is not None:
                n = n // self.batch_size if self.drop_last else -(-n // self.batch_size)
            return n
        return len(self._index_sampler)


class _LoaderIter:
    """One pass over a DataLoader."""

    def __init__(self, loader: DataLoader) -> None:
        if loader.pin_memory:
            # NB: what PyTorch says on a machine without an accelerator, once per pass
            warnings.warn("'pin_memory' argument is set as true but no accelerator is found, "
                          "then device pinned memory won't be used.", UserWarning, stacklevel=3)
        self._loader = loader
        self._auto = loader._auto_collation
        self._collate = loader.collate_fn
        self._sampler_iter = iter(loader._index_sampler)
        # NB: drawn even though no worker uses it: it moves the generator as PyTorch's does
        self._base_seed = fresh_seed(loader.generator)
        self._dataset_iter = iter(loader.dataset) if loader._iterable else None
        self._ended = False
        self._num_yielded = 0

    def __iter__(self) -> _LoaderIter:
        return self

    def __len__(self) -> int:
        return len(self._loader)

    def __next__(self) -> Any:
        index = next(self._sampler_iter)
        data = self._fetch_iterable(index) if self._dataset_iter is not None \
            else self._fetch(index)
        self._num_yielded += 1
        called = self._loader._IterableDataset_len_called
        if self._dataset_iter is not None and called is not None \
                and self._num_yielded > called:
            warnings.warn(f"Length of IterableDataset {self._loader.dataset} was reported to be "
                          f"{called}(when accessing len(dataloader)), but {self._num_yielded} "
                          "samples have been fetched. ", UserWarning, stacklevel=2)
        return data

    def _fetch(self, index: Any) -> Any:
        ds = self._loader.dataset
        if not self._auto:
            return self._collate(ds[index])
        many = getattr(ds, "__getitems__", None)
        data = many(index) if many else [ds[i] for i in index]
        return self._collate(data)

    def _fetch_iterable(self, index: Any) -> Any:
        assert self._dataset_iter is not None
        if self._ended:
            raise StopIteration
        if not self._auto:
            return self._collate(next(self._dataset_iter))
        data = []
        for _ in index:
            try:
                data.append(next(self._dataset_iter))
            except StopIteration:
                self._ended = True
                break
        if not data or (self._loader.drop_last and len(data) < len(index)):
            raise StopIteration
        return self._collate(data)

