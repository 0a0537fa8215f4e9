"""``torch.amp``: ``autocast`` and ``GradScaler`` as a CPU-only PyTorch build runs them: a CPU
autocast region casts the inputs of matrix products and convolutions to bfloat16 (or float16)
and those of losses to float32 (``engine.autocast``); asked for CUDA, both are disabled with
PyTorch's warning, so mixed-precision scripts run unchanged. A CPU ``GradScaler`` scales as
PyTorch's does.
"""

from __future__ import annotations

import functools
import warnings
from collections.abc import Callable
from typing import Any

import numpy as np

from ..engine import dtypes as _dt
from ..engine import messages as _msg
from ..engine.autocast import state as _state
from ..engine.pre_write import WATCH as _WATCH
from ..engine.pre_write import before_write
from ..engine.tensor import Tensor

__all__ = ["autocast", "GradScaler", "is_autocast_available", "custom_fwd", "custom_bwd",
           "get_autocast_dtype", "set_autocast_dtype", "clear_autocast_cache",
           "is_autocast_cache_enabled", "set_autocast_cache_enabled"]

_ENABLED: dict[str, bool] = {}
_DTYPE: dict[str, Any] = {"cpu": _dt.bfloat16, "cuda": _dt.float16}


def _device(device_type: str) -> str:
    return _msg.device_type(device_type)


def get_autocast_dtype(device_type: str) -> Any:
    """The dtype an autocast region of that device casts to (bfloat16 on the CPU by default).

    >>> get_autocast_dtype("cpu")
    torch.bfloat16
    """
    return _DTYPE.get(_device(device_type), _dt.float16)


def set_autocast_dtype(device_type: str, dtype: Any) -> None:
    d = _device(device_type)
    _DTYPE[d] = dtype
    if d == "cpu" and _ENABLED.get("cpu", False):
        _state.dtype = dtype


def clear_autocast_cache() -> None:
    _state.cache.clear()


def is_autocast_cache_enabled() -> bool:
    return _state.cache_enabled


def set_autocast_cache_enabled(enabled: bool) -> None:
    _state.cache_enabled = enabled


def is_autocast_cpu_enabled() -> bool:
    warnings.warn("torch.is_autocast_cpu_enabled() is deprecated. Please use "
                  "torch.is_autocast_enabled('cpu') instead.", DeprecationWarning, stacklevel=2)
    return is_autocast_enabled("cpu")


def get_autocast_cpu_dtype() -> Any:
    warnings.warn("torch.get_autocast_cpu_dtype() is deprecated. Please use "
                  "torch.get_autocast_dtype('cpu') instead.", DeprecationWarning, stacklevel=2)
    return get_autocast_dtype("cpu")


def is_autocast_available(device_type: str) -> bool:
    return device_type == "cpu"


def is_autocast_enabled(device_type: str = "cuda") -> bool:
    return _ENABLED.get(device_type, False)


class autocast:  # noqa: N801 -- PyTorch's name
    """``torch.autocast(device_type, dtype=None, enabled=True)``: a context manager and
    decorator; on the CPU, matrix products and convolutions run in ``dtype`` (bfloat16 unless
    given), losses in float32.

    >>> from graphviz_autograd import torch
    >>> with torch.autocast("cpu"):
    ...     (torch.ones(2, 3) @ torch.ones(3, 2)).dtype
    torch.bfloat16
    """

    def __init__(self, device_type: str, dtype: Any = None, enabled: bool = True,
                 cache_enabled: bool | None = None) -> None:
        if not isinstance(device_type, str):
            raise ValueError("Expected `device_type` of type `str`, got: "
                             f"`{type(device_type)}`")
        try:
            self.device = _msg.device_type(device_type)
        except RuntimeError:
            raise RuntimeError(f"Invalid device string: '{device_type}'") from None
        self.fast_dtype = get_autocast_dtype(self.device) if dtype is None else dtype
        self._dtype_given = dtype
        self._enabled = enabled
        self._cache_enabled = _state.cache_enabled if cache_enabled is None else cache_enabled
        if enabled and device_type == "cuda":
            warnings.warn("CUDA is not available or torch_xla is imported. Disabling autocast.",
                          UserWarning, stacklevel=2)
            self._enabled = False
        elif enabled and device_type == "cpu" and dtype is not None and dtype not in (
                _dt.float16, _dt.bfloat16):
            warnings.warn("In CPU autocast, but the target dtype is not supported. Disabling "
                          "autocast.\nCPU Autocast only supports dtypes of torch.bfloat16, "
                          "torch.float16 currently.", UserWarning, stacklevel=2)
            self._enabled = False

    def __enter__(self) -> autocast:
        self._prev = _ENABLED.get(self.device, False)
        self._prev_dtype = _DTYPE.get(self.device)
        _ENABLED[self.device] = self._enabled
        if self._dtype_given is not None:
            _DTYPE[self.device] = self._dtype_given
        if self.device == "cpu":
            self._prev_state = (_state.dtype, _state.cache_enabled)
            _state.depth += 1
            _state.cache_enabled = self._cache_enabled
            _state.dtype = self.fast_dtype if self._enabled else None
            if self._enabled:
                from ..engine.bfloat16 import install
                install()
        return self

    def __exit__(self, *exc: object) -> None:
        _ENABLED[self.device] = self._prev
        _DTYPE[self.device] = self._prev_dtype
        if self.device == "cpu":
            _state.dtype, _state.cache_enabled = self._prev_state
            _state.depth -= 1
            if _state.depth == 0:       # NB: the casts of leaves live as long as the region
                _state.cache.clear()

    def __call__(self, func: Callable[..., Any]) -> Callable[..., Any]:
        @functools.wraps(func)
        def wrapped(*args: Any, **kwargs: Any) -> Any:
            with self:
                return func(*args, **kwargs)
        return wrapped


def _deprecated_autocast(device: str, default_dtype: Any) -> type:
    class _Autocast(autocast):
        def __init__(self, enabled: bool = True, dtype: Any = default_dtype,
                     cache_enabled: bool = True) -> None:
            warnings.warn(f"`torch.{device}.amp.autocast(args...)` is deprecated. Please use "
                          f"`torch.amp.autocast('{device}', args...)` instead.", FutureWarning,
                          stacklevel=2)
            super().__init__(device, dtype, enabled, cache_enabled)
    _Autocast.__name__ = _Autocast.__qualname__ = "autocast"
    return _Autocast


_READY, _UNSCALED, _STEPPED = range(3)


class GradScaler:
    """``torch.amp.GradScaler``: on the CPU, PyTorch's dynamic loss scaling (``scale``
    multiplies by the scale, a 0-d float32 tensor: a MulBackward0 node; ``unscale_`` divides
    the gradients in place and looks for infinities and NaNs; ``step`` skips the optimizer's
    step when it found any; ``update`` backs the scale off then, else grows it every
    ``growth_interval`` steps). Asked for CUDA, or disabled, it passes everything through, as
    PyTorch's does on a machine without CUDA.

    >>> from graphviz_autograd import torch
    >>> scaler = GradScaler("cpu", init_scale=4.0)
    >>> scaler.scale(torch.tensor(1.5))
    tensor(6.)
    """

    def __init__(self, device: str = "cuda", init_scale: float = 65536.0,
                 growth_factor: float = 2.0, backoff_factor: float = 0.5,
                 growth_interval: int = 2000, enabled: bool = True) -> None:
        self._device = device
        if enabled and device == "cuda":
            warnings.warn("torch.cuda.amp.GradScaler is enabled, but CUDA is not available.  "
                          "Disabling.", UserWarning, stacklevel=2)
            enabled = False
        self._enabled = enabled
        self._init_scale = init_scale
        self._growth_factor, self._backoff_factor = growth_factor, backoff_factor
        self._growth_interval = growth_interval
        self._scale: Any = None
        self._growth_tracker = 0
        self._per_optimizer: dict[int, dict[str, Any]] = {}

    def is_enabled(self) -> bool:
        return self._enabled

    def _state(self, optimizer: Any) -> dict[str, Any]:
        return self._per_optimizer.setdefault(id(optimizer), {"stage": _READY,
                                                              "found_inf": None})

    def scale(self, outputs: Any) -> Any:
        if not self._enabled:
            return outputs
        if isinstance(outputs, Tensor):
            if self._scale is None:
                self._scale = Tensor._make(np.array(self._init_scale, np.float32), _dt.float32)
            return outputs * self._scale
        if isinstance(outputs, list | tuple):
            return type(outputs)(self.scale(o) for o in outputs)
        raise ValueError("outputs must be a Tensor or an iterable of Tensors")

    def unscale_(self, optimizer: Any) -> None:
        if not self._enabled:
            return None
        state = self._state(optimizer)
        if state["stage"] == _UNSCALED:
            raise RuntimeError("unscale_() has already been called on this optimizer since the "
                               "last update().")
        if state["stage"] == _STEPPED:
            raise RuntimeError("unscale_() is being called after step().")
        if self._scale is None:
            raise AssertionError("Attempted unscale_ but _scale is None.  This may indicate "
                                 "your script did not use scaler.scale(loss or outputs) earlier "
                                 "in the iteration.")
        inv = np.float32(1.0 / np.float64(self._scale._data))
        found = False
        for group in optimizer.param_groups:
            for p in group["params"]:
                g = p.grad
                if g is None:
                    continue
                if g._dtype is _dt.float16:
                    raise ValueError("Attempting to unscale FP16 gradients.")
                found = found or not bool(np.isfinite(g._data).all())
                if _WATCH:
                    before_write(g)
                if g._data.flags.writeable:
                    g._data *= inv
                else:                   # NB: a broadcast array, read-only: a new one
                    g._data = g._data * inv
                g._vc.v += 1
        state["found_inf"] = found
        state["stage"] = _UNSCALED
        return None

    def step(self, optimizer: Any, *args: Any, **kwargs: Any) -> Any:
        if not self._enabled:
            return optimizer.step(*args, **kwargs)
        if "closure" in kwargs:
            raise RuntimeError("Closure use is not currently supported if GradScaler is "
                               "enabled.")
        state = self._state(optimizer)
        if state["stage"] == _STEPPED:
            raise RuntimeError("step() has already been called since the last update().")
        if state["stage"] == _READY:
            self.unscale_(optimizer)
        result = None if state["found_inf"] else optimizer.step(*args, **kwargs)
        state["stage"] = _STEPPED
        return result

    def update(self, new_scale: Any = None) -> None:
        if not self._enabled or self._scale is None:
            return None
        if new_scale is not None:
            value = new_scale.item() if isinstance(new_scale, Tensor) else new_scale
            self._scale._data[...] = np.float32(value)
        else:
            found = [s["found_inf"] for s in self._per_optimizer.values()
                     if s["found_inf"] is not None]
            if not found:
                raise AssertionError("No inf checks were recorded prior to update.")
            if any(found):
                self._scale._data[...] = self._scale._data * np.float32(self._backoff_factor)
                self._growth_tracker = 0
            elif self._growth_tracker + 1 == self._growth_interval:
                grown = self._scale._data * np.float32(self._growth_factor)
                if np.isfinite(grown):
                    self._scale._data[...] = grown
                self._growth_tracker = 0
            else:
                self._growth_tracker += 1
        self._per_optimizer = {}
        return None

    def get_scale(self) -> float:
        if not self._enabled:
            return 1.0
        return self._init_scale if self._scale is None else float(self._scale._data)

    def get_growth_factor(self) -> float:
        return self._growth_factor

    def set_growth_factor(self, new_factor: float) -> None:
        self._growth_factor = new_factor

    def get_backoff_factor(self) -> float:
        return self._backoff_factor

    def set_backoff_factor(self, new_factor: float) -> None:
        self._backoff_factor = new_factor

    def get_growth_interval(self) -> int:
        return self._growth_interval

    def set_growth_interval(self, new_interval: int) -> None:
        self._growth_interval = new_interval

    def state_dict(self) -> dict[str, Any]:
        if not self._enabled:
            return {}
        return {"scale": self.get_scale(), "growth_factor": self._growth_factor,
                "backoff_factor": self._backoff_factor,
                "growth_interval": self._growth_interval,
                "_growth_tracker": self._growth_tracker}

    def load_state_dict(self, state_dict: dict[str, Any]) -> None:
        if not self._enabled:
            return None
        if len(state_dict) == 0:
            raise RuntimeError("The source state dict is empty, possibly because it was saved "
                               "from a disabled instance of GradScaler.")
        self._init_scale = state_dict["scale"]
        if self._scale is not None:
            self._scale._data[...] = np.float32(state_dict["scale"])
        self._growth_factor = state_dict["growth_factor"]
        self._backoff_factor = state_dict["backoff_factor"]
        self._growth_interval = state_dict["growth_interval"]
        self._growth_tracker = state_dict["_growth_tracker"]
        return None


def _deprecated_scaler(device: str) -> type:
    class _GradScaler(GradScaler):
        def __init__(self, init_scale: float = 65536.0, growth_factor: float = 2.0,
                     backoff_factor: float = 0.5, growth_interval: int = 2000,
                     enabled: bool = True) -> None:
            warnings.warn(f"`torch.{device}.amp.GradScaler(args...)` is deprecated. Please use "
                          f"`torch.amp.GradScaler('{device}', args...)` instead.",
                          FutureWarning, stacklevel=2)
            super().__init__(device, init_scale, growth_factor, backoff_factor,
                             growth_interval, enabled)
    _GradScaler.__name__ = _GradScaler.__qualname__ = "GradScaler"
    return _GradScaler


def custom_fwd(fwd: Any = None, *, device_type: str = "cuda", cast_inputs: Any = None) -> Any:
    """A decorator for a custom Function's forward: the function itself."""
    if fwd is None:
        return lambda f: f
    return fwd


def custom_bwd(bwd: Any = None, *, device_type: str = "cuda") -> Any:
    if bwd is None:
        return lambda f: f
    return bwd


class _Namespace:
    def __init__(self, **items: Any) -> None:
        self.__dict__.update(items)


cpu_amp = _Namespace(autocast=_deprecated_autocast("cpu", None), GradScaler=_deprecated_scaler(
    "cpu"))
cuda_amp = _Namespace(autocast=_deprecated_autocast("cuda", None),
                      GradScaler=_deprecated_scaler("cuda"), custom_fwd=custom_fwd,
                      custom_bwd=custom_bwd)
