"""``nn.Module`` methods scripts call now and then: ``get_submodule`` / ``get_parameter`` /
``get_buffer`` / ``set_submodule`` by dotted path (with PyTorch's errors), ``half``, ``type``,
``share_memory``, ``to_empty``, ``compile``, ``get_extra_state``; bound onto ``Module``."""

from __future__ import annotations

from typing import Any

from ...engine import dtypes as _dt
from ...engine.grad_mode import no_grad
from ...engine.tensor import Tensor

__all__ = ["METHODS"]


def get_submodule(self: Any, target: str) -> Any:
    """The submodule at a dotted path (``"encoder.layers.0"``); ``""`` is the module itself."""
    if target == "":
        return self
    mod = self
    for item in target.split("."):
        if not hasattr(mod, item):
            raise AttributeError(f"{type(mod).__name__} has no attribute `{item}`")
        mod = getattr(mod, item)
        from .modules import Module
        if not isinstance(mod, Module):
            raise AttributeError(f"`{item}` is not an nn.Module")
    return mod


def _owner(self: Any, target: str) -> tuple[Any, str]:
    path, _, name = target.rpartition(".")
    mod = get_submodule(self, path)
    if not hasattr(mod, name):
        raise AttributeError(f"{type(mod).__name__} has no attribute `{name}`")
    return mod, name


def get_parameter(self: Any, target: str) -> Any:
    mod, name = _owner(self, target)
    if name not in mod._parameters:
        raise AttributeError(f"`{name}` is not an nn.Parameter")
    return mod._parameters[name]


def get_buffer(self: Any, target: str) -> Any:
    mod, name = _owner(self, target)
    if name not in mod._buffers:
        raise AttributeError(f"`{name}` is not a buffer")
    return mod._buffers[name]


def set_submodule(self: Any, target: str, module: Any, strict: bool = False) -> None:
    """Replace (or, unless ``strict``, add) the submodule at a dotted path."""
    from .modules import Module
    if target == "":
        raise ValueError("Cannot set the submodule without a target name!")
    path, _, name = target.rpartition(".")
    if not isinstance(module, Module):
        raise ValueError(f"`module` is not an nn.Module, found {type(module)}")
    parent = get_submodule(self, path)
    if strict and not hasattr(parent, name):
        raise AttributeError(f"{type(parent).__name__} has no attribute `{name}`")
    if hasattr(parent, name) and not isinstance(getattr(parent, name), Module):
        raise AttributeError(f"`{name}` is not an nn.Module")
    setattr(parent, name, module)


def half(self: Any) -> Any:
    from ...engine.bfloat16 import install
    install()
    return self._cast(_dt.float16)


def bfloat16(self: Any) -> Any:
    from ...engine.bfloat16 import install
    install()
    return self._cast(_dt.bfloat16)


def _type(self: Any, dst_type: Any) -> Any:
    """Every parameter and buffer cast to ``dst_type``, integer ones included."""
    with no_grad():
        for m in self.modules():
            for p in m._parameters.values():
                if p is not None and p.dtype is not dst_type:
                    p.data = p.data.to(dst_type)
                    if p._grad is not None:
                        p._grad = p._grad.to(dst_type)
            for k, b in m._buffers.items():
                if b is not None:
                    m._buffers[k] = b.to(dst_type)
    return self


def share_memory(self: Any) -> Any:
    for t in [*self.parameters(), *self.buffers()]:
        t.share_memory_()
    return self


def to_empty(self: Any, *, device: Any = None, recurse: bool = True) -> Any:
    """The parameters and buffers on ``device`` with new memory (the engine's is zero, PyTorch's
    uninitialised)."""
    with no_grad():
        for m in (self.modules() if recurse else [self]):
            for p in m._parameters.values():
                if p is not None:
                    p.data = Tensor._make(p._data * 0, p.dtype)
            for k, b in m._buffers.items():
                if b is not None:
                    m._buffers[k] = Tensor._make(b._data * 0, b.dtype)
    return self


def compile(self: Any, *args: Any, **kwargs: Any) -> None:
    """Nothing to do: the engine runs the module eagerly (PyTorch compiles its forward in place
    and also returns None)."""


def get_extra_state(self: Any) -> Any:
    raise RuntimeError(
        "Reached a code path in Module.get_extra_state() that should never be called. Please "
        "file an issue at https://github.com/pytorch/pytorch/issues/new?template=bug-report.yml "
        "to report this bug.")


def set_extra_state(self: Any, state: Any) -> None:
    raise RuntimeError(
        "Reached a code path in Module.set_extra_state() that should never be called. Please "
        "file an issue at https://github.com/pytorch/pytorch/issues/new?template=bug-report.yml "
        "to report this bug.")


METHODS: dict[str, Any] = {
    "get_submodule": get_submodule, "get_parameter": get_parameter, "get_buffer": get_buffer,
    "set_submodule": set_submodule, "half": half, "bfloat16": bfloat16,
    "type": _type, "share_memory": share_memory,
    "to_empty": to_empty, "compile": compile, "get_extra_state": get_extra_state,
    "set_extra_state": set_extra_state, "call_super_init": False, "dump_patches": False,
}
