"""``torch.func.vmap``: a function mapped over a dimension of its inputs, run once per sample on
the ``unbind`` slices and the results ``stack``-ed (PyTorch runs it once on batched tensors, so
its graph has the batched ops where this one has ``UnbindBackward0``, per-sample nodes and
``StackBackward0``; values and shapes are PyTorch's)."""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

from ...engine import functional as F
from ...engine import random as rnd
from ...engine.factories import zeros
from ...engine.tensor import Tensor
from .pytree import Spec, flatten, unflatten

__all__ = ["vmap"]

RANDOM_ERROR = ("vmap: called random operation while in randomness error mode. Please either use "
                "the 'same' or 'different' randomness flags on vmap or perform the randomness "
                "operation out of vmap")


def _name(func: Any) -> str:
    return getattr(func, "__name__", repr(func))


def _broadcast(dims: Any, spec: Spec) -> list[Any] | None:
    """``dims`` (a tree whose int/None leaves stand for whole subtrees) as one entry per leaf of
    ``spec``; None where the structures do not match."""
    if dims is None or isinstance(dims, int):
        return [dims] * _count(spec)
    if spec.kind is None or not isinstance(dims, tuple | list | dict):
        return None
    dleaves, dspec = (list(dims.values()), dict) if isinstance(dims, dict) else (list(dims), None)
    if len(dleaves) != len(spec.children) or (dspec is dict) != (spec.keys is not None) \
            or (isinstance(dims, dict) and list(dims) != spec.keys):
        return None
    out: list[Any] = []
    for d, c in zip(dleaves, spec.children, strict=True):
        sub = _broadcast(d, c) if isinstance(d, tuple | list | dict) or d is None \
            or isinstance(d, int) else [d] * _count(c)
        if sub is None:
            return None
        out.extend(sub)
    return out


def _count(spec: Spec) -> int:
    return 1 if spec.kind is None else sum(_count(c) for c in spec.children)


@contextmanager
def _randomness(mode: str) -> Iterator[Callable[[int], None]]:
    """Within the block, random draws raise (``'error'``), or each sample's draws repeat the
    first's (``'same'``: call the yielded function before each sample)."""
    cls = rnd.Generator
    if mode == "error":
        saved = cls.random

        def refuse(self: rnd.Generator, n: int) -> Any:
            raise RuntimeError(RANDOM_ERROR)
        cls.random = refuse  # type: ignore[method-assign]
        try:
            yield lambda i: None
        finally:
            cls.random = saved  # type: ignore[method-assign]
        return
    if mode == "same":
        gen = rnd.default_generator
        start = [gen.get_state()]

        def rewind(i: int) -> None:
            if i == 0:
                start[0] = gen.get_state()
            else:
                end = gen.get_state()
                gen.set_state(start[0])
                start.append(end)
        yield rewind
        return
    yield lambda i: None


def vmap(func: Callable[..., Any], in_dims: Any = 0, out_dims: Any = 0,
         randomness: str = "error", *, chunk_size: int | None = None) -> Callable[..., Any]:
    """``torch.func.vmap``: ``func`` mapped over dimension ``in_dims`` of its inputs.

    >>> import graphviz_autograd.torch as torch
    >>> vmap(lambda r: r.sum())(torch.tensor([[1.0, 2.0], [3.0, 4.0]]))
    tensor([3., 7.])
    """
    if randomness not in ("error", "different", "same"):
        raise RuntimeError("Only allowed values for randomness are 'error', 'different', or "
                           f"'same'. Got {randomness}")
    if chunk_size is not None and not (isinstance(chunk_size, int) and chunk_size > 0):
        raise ValueError(f"vmap: chunk_size should be None or greater than 0. (got {chunk_size})")

    @functools.wraps(func)
    def wrapped(*args: Any, **kwargs: Any) -> Any:
        name = _name(func)
        where = f"vmap({name}, in_dims={in_dims}, ...)(<inputs>)"
        if not args:
            raise ValueError(f"vmap({name})(<inputs>): got no inputs. Maybe you forgot to add "
                             "inputs, or you are trying to vmap over a function with no inputs. "
                             "The latter is unsupported.")
        if not isinstance(in_dims, int | tuple):
            raise ValueError(f"{where}: expected `in_dims` to be int or a (potentially nested) "
                             "tuple matching the structure of inputs, got: "
                             f"{type(in_dims)}.")
        leaves, spec = flatten(args)
        dims = _broadcast(in_dims, spec)
        if dims is None:
            raise ValueError(f"{where}: in_dims is not compatible with the structure of "
                             f"`inputs`. in_dims has structure {flatten(in_dims)[1]} but inputs "
                             f"has structure {spec}.")
        size = _batch_size(where, leaves, dims)
        if size == 0:          # NB: one run on zeros gives the outputs' shapes
            slices: list[Any] = [None if d is None else [v.select(d, 0) if v.shape[d] else
                                 _zero_slice(v, d)] for v, d in zip(leaves, dims, strict=True)]
        else:
            slices = [None if d is None else v.unbind(d)
                      for v, d in zip(leaves, dims, strict=True)]
        samples = []
        with _randomness(randomness) as before:
            for i in range(max(size, 1)):
                before(i)
                one = [v if s is None else s[i] for v, s in zip(leaves, slices, strict=True)]
                samples.append(func(*unflatten(one, spec), **kwargs))
        return _stack_outputs(name, samples, out_dims, empty=size == 0)
    return wrapped


def _batch_size(where: str, leaves: list[Any], dims: list[Any]) -> int:
    sizes = []
    for v, d in zip(leaves, dims, strict=True):
        if d is None:
            continue
        if not isinstance(d, int) or isinstance(d, bool):
            raise ValueError(f"{where}: Got in_dim={d} for an input but in_dim must be either an "
                             "integer dimension or None.")
        if not isinstance(v, Tensor):
            raise ValueError(f"{where}: Got in_dim={d} for an input but the input is of type "
                             f"{type(v)}. We cannot vmap over non-Tensor arguments, please use "
                             "None as the respective in_dim")
        n = v.dim()
        if not -n <= d < n:
            raise ValueError(f"{where}: Got in_dim={d} for some input, but that input is a "
                             f"Tensor of dimensionality {n} so expected in_dim to satisfy "
                             f"-{n} <= in_dim < {n}.")
        sizes.append(v.shape[d])
    if not sizes:
        raise ValueError("vmap: Expected at least one Tensor to vmap over")
    if len(set(sizes)) > 1:
        raise ValueError("vmap: Expected all tensors to have the same size in the mapped "
                         f"dimension, got sizes {sizes} for the mapped dimension")
    return sizes[0]


def _zero_slice(v: Tensor, d: int) -> Tensor:
    shape = [n for k, n in enumerate(v.shape) if k != d % v.dim()]
    return zeros(shape, dtype=v.dtype)


def _stack_outputs(name: str, samples: list[Any], out_dims: Any, empty: bool = False) -> Any:
    flat = [flatten(s) for s in samples]
    spec = flat[0][1]
    dims = _broadcast(out_dims, spec)
    if dims is None:
        raise ValueError(f"vmap({name}, ..., out_dims={out_dims})(<inputs>): out_dims is not "
                         f"compatible with the structure of `outputs`. out_dims has structure "
                         f"{flatten(out_dims)[1]} but outputs has structure {spec}.")
    out = []
    for j, d in enumerate(dims):
        vals = [leaves[j] for leaves, _ in flat]
        if d is None:
            first = vals[0]
            if isinstance(first, Tensor) and not all(
                    v is first or bool((v == first).all()) for v in vals[1:]):
                raise ValueError(f"vmap({name}, ...): `{name}` can not return a BatchedTensor "
                                 "when out_dim is None")
            out.append(first)
            continue
        for v in vals:
            if not isinstance(v, Tensor):
                raise ValueError(f"vmap({name}, ...): `{name}` must only return Tensors, got "
                                 f"type {type(v)}. Did you mean to set out_dims= to None for "
                                 "output?")
        stacked = F.stack(vals, d)
        out.append(stacked.narrow(d, 0, 0) if empty else stacked)
    return unflatten(out, spec)
