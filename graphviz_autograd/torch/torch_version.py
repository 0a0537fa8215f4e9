"""``torch.torch_version.TorchVersion``: the version string that compares as a version
(``torch.__version__ >= "2.10"`` holds for 2.13, which a plain string comparison gets wrong)."""

from __future__ import annotations

import re
from typing import Any

__all__ = ["TorchVersion", "internal_version"]

_PARTS = re.compile(r"^v?(\d+(?:\.\d+)*)(?:(a|b|rc)(\d+))?(?:\.post(\d+))?(?:\.dev(\d+))?"
                    r"(?:\+([a-z0-9.]+))?$", re.IGNORECASE)
_PRE = {"a": 0, "b": 1, "rc": 2}


def _key(text: str) -> tuple[Any, ...]:
    m = _PARTS.match(text.strip())
    if m is None:
        raise ValueError(f"Invalid version: '{text}'")
    release = [int(p) for p in m.group(1).split(".")]
    while len(release) > 1 and release[-1] == 0:
        release.pop()
    pre = (_PRE[m.group(2).lower()], int(m.group(3))) if m.group(2) else (3, 0)
    if m.group(5) is not None and not m.group(2) and m.group(4) is None:
        pre = (-1, 0)                   # NB: a bare dev release comes before its pre-releases
    post = int(m.group(4)) if m.group(4) is not None else -1
    dev = int(m.group(5)) if m.group(5) is not None else float("inf")
    local = tuple(m.group(6).split(".")) if m.group(6) else ()
    return (tuple(release), pre, post, dev, local)


class TorchVersion(str):
    """A ``str`` whose comparisons (with a string or a tuple of numbers) are by version.

    >>> v = TorchVersion("2.13.0+numpy")
    >>> v > "2.9", v < (2, 14), v.startswith("2.13")
    (True, True, True)
    """

    def _other(self, other: Any) -> tuple[Any, ...]:
        if isinstance(other, tuple | list):
            other = ".".join(str(p) for p in other)
        return _key(str(other))

    def __lt__(self, other: Any) -> bool:
        return _key(self) < self._other(other)

    def __le__(self, other: Any) -> bool:
        return _key(self) <= self._other(other)

    def __gt__(self, other: Any) -> bool:
        return _key(self) > self._other(other)

    def __ge__(self, other: Any) -> bool:
        return _key(self) >= self._other(other)

    def __eq__(self, other: Any) -> bool:
        try:
            return _key(self) == self._other(other)
        except ValueError:
            return str.__eq__(self, other)

    def __ne__(self, other: Any) -> bool:
        return not self.__eq__(other)

    __hash__ = str.__hash__


internal_version = TorchVersion("2.13.0+numpy")
