"""``nn.ParameterList`` and ``nn.ParameterDict``: modules that hold parameters by index or key
(a plain tensor put in one becomes a Parameter)."""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Iterable, Iterator, Mapping
from typing import Any

from ...engine.tensor import Tensor
from .modules import Module
from .parameter import Parameter

__all__ = ["ParameterList", "ParameterDict"]


def _as_param(value: Any) -> Any:
    return Parameter(value) if isinstance(value, Tensor) and not isinstance(value, Parameter) \
        else value


def _line(key: Any, p: Any, dtype_text: str) -> str:
    if isinstance(p, Tensor):
        kind = "Parameter" if isinstance(p, Parameter) else "Tensor"
        size = "x".join(str(n) for n in p.shape)
        return f"  ({key}): {kind} containing: [{dtype_text} of size {size}]"
    return f"  ({key}): Object of type: {type(p).__name__}"


class ParameterList(Module):
    """Parameters by index, registered under the names ``"0"``, ``"1"``, ...

    >>> from graphviz_autograd import torch
    >>> pl = ParameterList([torch.ones(2)])
    >>> [n for n, _ in pl.named_parameters()], type(pl[0]).__name__
    (['0'], 'Parameter')
    """

    def __init__(self, values: Iterable[Any] | None = None) -> None:
        super().__init__()
        self._size = 0
        if values is not None:
            self += values

    def _index(self, idx: int) -> str:
        if not -len(self) <= idx < len(self):
            raise IndexError(f"index {idx} is out of range")
        return str(idx % len(self))

    def __getitem__(self, idx: Any) -> Any:
        if isinstance(idx, slice):
            return type(self)([self[i] for i in range(*idx.indices(len(self)))])
        return getattr(self, self._index(idx))

    def __setitem__(self, idx: int, value: Any) -> None:
        setattr(self, self._index(idx), _as_param(value))

    def __len__(self) -> int:
        return self._size

    def __iter__(self) -> Iterator[Any]:
        return iter([self[i] for i in range(len(self))])

    def __iadd__(self, values: Iterable[Any]) -> ParameterList:
        return self.extend(values)

    def append(self, value: Any) -> ParameterList:
        self._size += 1
        self[self._size - 1] = value
        return self

    def extend(self, values: Iterable[Any]) -> ParameterList:
        if not isinstance(values, Iterable) or isinstance(values, Tensor):
            raise TypeError("ParameterList.extend should be called with an iterable, but got "
                            + type(values).__name__)
        for v in values:
            self.append(v)
        return self

    def extra_repr(self) -> str:
        return "\n".join(_line(i, p, str(p.dtype) if isinstance(p, Tensor) else "")
                         for i, p in enumerate(self))

    def __call__(self, *args: Any, **kw: Any) -> Any:
        raise RuntimeError("ParameterList should not be called.")


class ParameterDict(Module):
    """Parameters by string key, in insertion order."""

    def __init__(self, parameters: Any = None) -> None:
        super().__init__()
        self._keys: dict[str, None] = {}
        if parameters is not None:
            self.update(parameters)

    def __getitem__(self, key: str) -> Any:
        return getattr(self, key)

    def __setitem__(self, key: str, value: Any) -> None:
        self._keys[key] = None
        setattr(self, key, _as_param(value))

    def __delitem__(self, key: str) -> None:
        del self._keys[key]
        delattr(self, key)

    def __len__(self) -> int:
        return len(self._keys)

    def __iter__(self) -> Iterator[str]:
        return iter(self._keys)

    def __contains__(self, key: object) -> bool:
        return key in self._keys

    def keys(self) -> Any:
        return self._keys.keys()

    def items(self) -> Iterable[tuple[str, Any]]:
        return [(k, self[k]) for k in self._keys]

    def values(self) -> Iterable[Any]:
        return [self[k] for k in self._keys]

    def get(self, key: str, default: Any = None) -> Any:
        return self[key] if key in self else default  # noqa: SIM401 -- self.get is this

    def setdefault(self, key: str, default: Any = None) -> Any:
        if key not in self:
            self[key] = default
        return self[key]

    def pop(self, key: str) -> Any:
        v = self[key]
        del self[key]
        return v

    def clear(self) -> None:
        for k in list(self._keys):
            del self[k]

    def copy(self) -> ParameterDict:
        return ParameterDict(dict(self.items()))

    def update(self, parameters: Any) -> None:
        if not isinstance(parameters, Iterable):
            raise TypeError("ParametersDict.update should be called with an iterable of "
                            "key/value pairs, but got " + type(parameters).__name__)
        if isinstance(parameters, (OrderedDict, ParameterDict)):
            pairs: Iterable[Any] = parameters.items()
        elif isinstance(parameters, Mapping):
            pairs = sorted(parameters.items())     # NB: PyTorch sorts a plain dict's keys
        else:
            pairs = parameters
        for j, pair in enumerate(pairs):
            if not isinstance(pair, Iterable):
                raise TypeError("ParameterDict update sequence element #" + str(j)
                                + " should be Iterable; is" + type(pair).__name__)
            pair = list(pair)
            if len(pair) != 2:
                raise ValueError("ParameterDict update sequence element #" + str(j)
                                 + " has length " + str(len(pair)) + "; 2 is required")
            self[pair[0]] = pair[1]

    def extra_repr(self) -> str:
        return "\n".join(_line(k, p, p._dtype.legacy if isinstance(p, Tensor) else "")
                         for k, p in self.items())

    def __call__(self, *args: Any, **kw: Any) -> Any:
        raise RuntimeError("ParameterDict should not be called.")
