"""Which engine a recording listens to: the native engine, and real PyTorch too when it is
imported. ``Both`` is one adapter over the two, choosing by the kind of object it is given."""

from __future__ import annotations

import sys
import weakref
from collections.abc import Callable
from typing import Any

from .native import NativeEngine

__all__ = ["default_engine", "engine_named", "Both"]

# NB: real torch's ids start far above the native engine's, so the two never meet
TORCH_UID_BASE = 1 << 40


def _real_torch_imported() -> bool:
    mod = sys.modules.get("torch")
    return mod is not None and getattr(mod, "__name__", "") == "torch"


def default_engine() -> Any:
    """The native engine; with real PyTorch too when the program has imported it (importing
    torch here would cost seconds for programs that never use it)."""
    native = NativeEngine()
    if not _real_torch_imported():
        return native
    from .torch_engine import TorchEngine
    return Both(native, TorchEngine(uid_base=TORCH_UID_BASE))


def engine_named(name: str | None) -> Any:
    """The engine ``record(engine=...)`` names: None (the default: the native engine, and real
    PyTorch too once imported), ``"native"`` or ``"torch"`` (real PyTorch only)."""
    if name is None:
        return default_engine()
    if name == "native":
        return NativeEngine()
    if name == "torch":
        try:
            from .torch_engine import TorchEngine
        except ImportError as e:
            raise ImportError("record(engine='torch') needs PyTorch: pip install "
                              "'graphviz-autograd[torch]' (or torch==2.13.0)") from e
        return TorchEngine()
    raise ValueError(f"record(engine={name!r}): the engine is 'native', 'torch', None (both, "
                     "once torch is imported) or an engine object")


class Both:
    """The native engine and real PyTorch as one adapter."""

    name = "native+torch"

    def __init__(self, native: Any, torch: Any) -> None:
        self.native, self.torch = native, torch
        self.tensor_types = (*native.tensor_types, *torch.tensor_types)
        self._native_types = native.tensor_types

    def _of(self, x: Any) -> Any:
        if isinstance(x, self._native_types) or self.native.is_node(x) or \
                self.native.is_module(x):
            return self.native
        return self.torch

    def subscribe(self, fn: Callable[..., None]) -> None:
        self.native.subscribe(fn)
        self.torch.subscribe(fn)

    def unsubscribe(self, fn: Callable[..., None]) -> None:
        self.torch.unsubscribe(fn)
        self.native.unsubscribe(fn)

    def open_trace(self) -> tuple[list[tuple[Any, ...]], bool]:
        """One trace for both: the native engine's list, which real torch's hooks add to."""
        trace, new = self.native.open_trace()
        self.torch.use_trace(trace)
        return trace, new

    def close_trace(self) -> None:
        self.native.close_trace()
        self.torch.close_trace()

    def is_tensor(self, x: Any) -> bool:
        return bool(self.native.is_tensor(x) or self.torch.is_tensor(x))

    def is_module(self, x: Any) -> bool:
        return bool(self.native.is_module(x) or self.torch.is_module(x))

    def is_node(self, x: Any) -> bool:
        return bool(self.native.is_node(x) or self.torch.is_node(x))

    def node_ref(self, node: Any, tensor: Any) -> Callable[[], Any]:
        if self.native.is_node(node):
            # NB: as the native recorder's own: through its tensor (``node_of_ref``)
            return weakref.ref(tensor if tensor is not None else node)
        return self.torch.node_ref(node, tensor)

    def walk(self, starts: list[Any], static: dict[int, Any], metas: dict[int, Any]
             ) -> tuple[Any, ...]:
        mine = [s for s in starts if self.native.is_node(s)]
        theirs = [s for s in starts if not self.native.is_node(s)]
        a = self.native.walk(mine, static, metas)
        if not theirs:
            return a
        b = self.torch.walk(theirs, static, metas)
        return ({**a[0], **b[0]}, a[1] | b[1], {**a[2], **b[2]}, {**a[3], **b[3]}, a[4] + b[4])

    def __getattr__(self, name: str) -> Any:
        # the per-object questions (tensor_uid, grad_fn, node_name, slots, ...) go to the
        # engine the object belongs to
        if name.startswith("_"):
            raise AttributeError(name)

        def ask(x: Any, *args: Any) -> Any:
            return getattr(self._of(x), name)(x, *args)
        ask.__name__ = name
        return ask
