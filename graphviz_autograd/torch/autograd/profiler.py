"""``torch.autograd.profiler``: the legacy names of ``torch.profiler``'s ``record_function``
and ``profile`` (``profile(enabled=True, *, use_cuda=False, record_shapes=False, ...)``)."""

from __future__ import annotations

from typing import Any

from .. import profiler as _profiler
from ..profiler import (
    EventList,
    FunctionEvent,
    FunctionEventAvg,
    ProfilerActivity,
    kineto_available,
    record_function,
)

__all__ = ["profile", "record_function", "EventList", "FunctionEvent", "FunctionEventAvg",
           "ProfilerActivity", "kineto_available"]


class profile(_profiler.profile):  # noqa: N801 -- PyTorch's name
    """``with torch.autograd.profiler.profile() as prof:``, then ``prof.key_averages()``."""

    def __init__(self, enabled: bool = True, *, use_cuda: bool = False, use_device: Any = None,
                 record_shapes: bool = False, with_flops: bool = False,
                 profile_memory: bool = False, with_stack: bool = False,
                 with_modules: bool = False, use_kineto: bool = False, use_cpu: bool = True,
                 **_: Any) -> None:
        super().__init__(record_shapes=record_shapes, enabled=enabled)

    def table(self, **kw: Any) -> str:
        return self.key_averages().table(**kw)

    def total_average(self) -> FunctionEventAvg:
        return self.events().total_average()
