"""``torch.device``: a device's type and index, compared, hashed and printed as PyTorch's. The
engine computes on the CPU whatever the device; a device is checked and kept, not used."""

from __future__ import annotations

from typing import Any

from . import messages as msg

__all__ = ["device", "CPU"]

_SIGNATURES = (" * (torch.device device)\n", " * (str type, int index = -1)\n")


class device:  # noqa: N801 -- PyTorch's name
    """``torch.device("cpu")``, ``torch.device("cuda:0")``, ``torch.device("cpu", 0)``.

    >>> device("cpu", 0)
    device(type='cpu', index=0)
    >>> str(device("cpu"))
    'cpu'
    """

    __slots__ = ("type", "index")
    type: str
    index: int | None

    def __init__(self, type: Any = ..., index: Any = None) -> None:
        if isinstance(type, device) and index is None:
            self.type, self.index = type.type, type.index
            return
        if isinstance(type, int) and not isinstance(type, bool) and index is None:
            raise RuntimeError("Cannot access accelerator device when none is available.")
        if not isinstance(type, str):
            got = "" if type is ... else builtin_type(type).__name__
            raise TypeError("device() received an invalid combination of arguments - got "
                            f"({got}), but expected one of:\n" + _mismatch(got))
        if index is not None and (not isinstance(index, int) or isinstance(index, bool)):
            raise TypeError("device(): argument 'index' (position 2) must be int, not "
                            f"{builtin_type(index).__name__}")
        kind = msg.device_type(type)
        given = type[len(kind) + 1:] if ":" in type else None
        if index is not None:
            if given is not None:
                raise RuntimeError("type (string) must not include an index because index was "
                                   f"passed explicitly: {type}")
            if index < 0:
                raise RuntimeError("Device index must not be negative")
        self.type = kind
        self.index = int(given) if given is not None else index

    def __repr__(self) -> str:
        if self.index is None:
            return f"device(type='{self.type}')"
        return f"device(type='{self.type}', index={self.index})"

    def __str__(self) -> str:
        return self.type if self.index is None else f"{self.type}:{self.index}"

    def __format__(self, spec: str) -> str:
        return format(str(self), spec)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, device):
            return NotImplemented
        return self.type == other.type and self.index == other.index

    def __hash__(self) -> int:
        return hash((self.type, self.index))

    def __reduce__(self) -> tuple[Any, ...]:
        return (device, (str(self),))

    def __enter__(self) -> device:
        return self              # NB: the engine makes every tensor on the CPU

    def __exit__(self, *exc: Any) -> None:
        return None


builtin_type = type


def _mismatch(got: str) -> str:
    """PyTorch's list of the signatures, each with why it did not match."""
    if not got:
        return "".join(_SIGNATURES)
    return (_SIGNATURES[0] + f"      didn't match because some of the arguments have invalid "
            f"types: (!{got}!)\n" + _SIGNATURES[1])


CPU = device("cpu")
