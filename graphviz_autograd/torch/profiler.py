"""``torch.profiler``: ``record_function`` ranges (no autograd node, as in PyTorch) and
``profile``, whose ``key_averages().table()`` is built from the engine's own timing of each
table op's forward (a row named as ATen's op, ``aten::mm``, from the node the op makes; an
op's own ATen calls, such as ``aten::matmul`` around ``aten::mm``, are not separate rows) and
each node's backward (``MmBackward0``), with ``schedule``, ``step()``, ``export_chrome_trace`` and
``tensorboard_trace_handler``. Only the CPU is profiled; memory, FLOPs and stacks are not."""

from __future__ import annotations

import enum
import functools
import json
import os
import socket
import time
from collections.abc import Callable, Iterable
from typing import Any

from ..engine import profiling

__all__ = ["ProfilerActivity", "ProfilerAction", "record_function", "profile", "schedule",
           "tensorboard_trace_handler", "supported_activities", "kineto_available",
           "FunctionEvent", "FunctionEventAvg", "EventList"]


class ProfilerActivity(enum.Enum):
    CPU = 0
    XPU = 1
    MTIA = 4
    CUDA = 2
    HPU = 3
    PrivateUse1 = 5

    def __repr__(self) -> str:
        return f"<ProfilerActivity.{self.name}: {self.value}>"


class ProfilerAction(enum.Enum):
    NONE = 0
    WARMUP = 1
    RECORD = 2
    RECORD_AND_SAVE = 3
    DEVICE_STOPPED = 4


def supported_activities() -> set[ProfilerActivity]:
    return {ProfilerActivity.CPU}


def kineto_available() -> bool:
    return True


class record_function:  # noqa: N801 -- PyTorch's name
    """A named range: a row of its own in a profile's table, around the ops run inside. A
    context manager or a decorator; outside a profile it does nothing.

    >>> import graphviz_autograd.torch as torch
    >>> with torch.profiler.record_function("block"):
    ...     y = torch.ones(2) * 2
    >>> y
    tensor([2., 2.])
    """

    def __init__(self, name: str, args: str | None = None) -> None:
        self.name = name
        self.args = args
        self._span: profiling.Span | None = None

    def __enter__(self) -> record_function:
        self._span = profiling.push(self.name)
        return self

    def __exit__(self, *exc: Any) -> None:
        profiling.pop(self._span)
        self._span = None

    def __call__(self, fn: Callable[..., Any]) -> Callable[..., Any]:
        @functools.wraps(fn)
        def wrapped(*args: Any, **kw: Any) -> Any:
            with record_function(self.name, self.args):
                return fn(*args, **kw)
        return wrapped


# -- events --------------------------------------------------------------------------------------
def _format_time(us: float) -> str:
    if us >= 1e6:
        return f"{us / 1e6:.3f}s"
    if us >= 1e3:
        return f"{us / 1e3:.3f}ms"
    return f"{us:.3f}us"


class _Unmeasured:
    """What the engine does not measure (devices, memory, FLOPs): zero, as PyTorch reports it
    for a CPU-only profile without those options."""

    device_time_total = self_device_time_total = cuda_time_total = self_cuda_time_total = 0.0
    device_time = cuda_time = 0.0
    cpu_memory_usage = self_cpu_memory_usage = device_memory_usage = 0
    self_device_memory_usage = flops = 0
    node_id = -1
    is_legacy = is_async = is_remote = False
    overload_name = ""
    stack: tuple[str, ...] = ()


class FunctionEvent(_Unmeasured):
    """One timed range (times in microseconds, as PyTorch's)."""

    def __init__(self, span: profiling.Span, origin_ns: int, children: list[FunctionEvent]) -> None:
        self.name = self.key = span.name
        self.time_range_start = (span.start_ns - origin_ns) / 1e3
        self.cpu_time_total = (span.end_ns - span.start_ns) / 1e3
        self.cpu_children = children
        self.self_cpu_time_total = self.cpu_time_total - sum(c.cpu_time_total for c in children)
        self.input_shapes = span.input_shapes
        self.is_user_annotation = span.kind == "user"
        self.count = 1

    @property
    def cpu_time(self) -> float:
        return self.cpu_time_total

    def __repr__(self) -> str:
        return (f"<FunctionEvent id={id(self)} name={self.name} cpu_time="
                f"{_format_time(self.cpu_time_total)} input_shapes={self.input_shapes}>")


class FunctionEventAvg(_Unmeasured):
    """The events of one key (and input shapes, when grouped so), summed."""

    def __init__(self, key: str, input_shapes: Any = None) -> None:
        self.key = key
        self.input_shapes = input_shapes
        self.count = 0
        self.cpu_time_total = self.self_cpu_time_total = 0.0
        self.is_user_annotation = False

    def add(self, other: Any) -> FunctionEventAvg:
        self.count += other.count
        self.cpu_time_total += other.cpu_time_total
        self.self_cpu_time_total += other.self_cpu_time_total
        self.is_user_annotation = other.is_user_annotation
        return self

    @property
    def cpu_time(self) -> float:
        return self.cpu_time_total / self.count if self.count else 0.0

    @property
    def cpu_time_str(self) -> str:
        return _format_time(self.cpu_time)

    @property
    def cpu_time_total_str(self) -> str:
        return _format_time(self.cpu_time_total)

    @property
    def self_cpu_time_total_str(self) -> str:
        return _format_time(self.self_cpu_time_total)

    def __repr__(self) -> str:
        return (f"<FunctionEventAvg key={self.key} self_cpu_time="
                f"{_format_time(self.self_cpu_time_total)} cpu_time="
                f"{_format_time(self.cpu_time_total)}  self_cuda_time=0.000us cuda_time=0.000us "
                f"input_shapes={self.input_shapes or ''} cpu_memory_usage=0 "
                "cuda_memory_usage=0>")


class EventList(list[Any]):
    """Events (or their averages) with PyTorch's table."""

    def key_averages(self, group_by_input_shape: bool = False,
                     group_by_stack_n: int = 0) -> EventList:
        groups: dict[Any, FunctionEventAvg] = {}
        for e in self:
            shapes = str(e.input_shapes) if group_by_input_shape else None
            k = (e.key, shapes)
            if k not in groups:
                groups[k] = FunctionEventAvg(e.key, e.input_shapes if group_by_input_shape
                                             else None)
            groups[k].add(e)
        return EventList(groups.values())

    @property
    def self_cpu_time_total(self) -> float:
        return sum(e.self_cpu_time_total for e in self)

    def total_average(self) -> FunctionEventAvg:
        total = FunctionEventAvg("Total")
        for e in self:
            total.add(e)
        return total

    def table(self, sort_by: str | None = None, row_limit: int = 100,
              max_src_column_width: int = 75, max_name_column_width: int = 55,
              max_shapes_column_width: int = 80, header: str | None = None,
              top_level_events_only: bool = False, **_: Any) -> str:
        return _table(self, sort_by, row_limit, max_name_column_width, header)

    def __str__(self) -> str:
        return self.table()

    def export_chrome_trace(self, path: str) -> None:
        events = [{"ph": "X", "cat": "user_annotation" if e.is_user_annotation else "cpu_op",
                   "name": e.name, "pid": os.getpid(), "tid": 0, "ts": e.time_range_start,
                   "dur": e.cpu_time_total, "args": {"Input Dims": e.input_shapes}}
                  for e in self if isinstance(e, FunctionEvent)]
        with open(path, "w") as f:
            json.dump({"traceEvents": events, "displayTimeUnit": "ms"}, f)


def _table(events: EventList, sort_by: str | None, row_limit: int, max_name: int,
           header: str | None) -> str:
    if not events:
        return ""
    rows = list(events)
    if sort_by is not None:
        rows.sort(key=lambda e: getattr(e, sort_by), reverse=True)
    shapes = any(getattr(e, "input_shapes", None) for e in rows) and isinstance(
        rows[0], FunctionEventAvg) and rows[0].input_shapes is not None
    width = min(max(len(e.key) for e in rows) + 4, max_name)
    total = events.self_cpu_time_total
    heads = ["Self CPU %", "Self CPU", "CPU total %", "CPU total", "CPU time avg",
             "# of Calls"]
    widths = [width] + [12] * len(heads)
    shape_width = 0
    if shapes:
        shape_width = min(max(len(str(e.input_shapes)) for e in rows) + 4, 80)
        heads.append("Input Shapes")
        widths.append(max(shape_width, len("Input Shapes")))
    line = "".join("-" * w + "  " for w in widths)
    out = [line, "".join(h.rjust(w) + "  " for h, w in zip(["Name", *heads], widths,
                                                                 strict=True)), line]

    def pct(v: float) -> str:
        return f"{v / total * 100:.2f}%" if total else "0.00%"

    for e in rows[:row_limit] if row_limit > 0 else rows:
        name = e.key if len(e.key) <= width - 3 else e.key[:width - 3] + "..."
        cells = [name, pct(e.self_cpu_time_total), _format_time(e.self_cpu_time_total),
                 pct(e.cpu_time_total), _format_time(e.cpu_time_total),
                 _format_time(e.cpu_time), str(e.count)]
        if shapes:
            cells.append(str(e.input_shapes)[:widths[-1]])
        out.append("".join(c.rjust(w) + "  " for c, w in zip(cells, widths, strict=True)))
    out.append(line)
    out.append(f"Self CPU time total: {_format_time(total)}")
    text = "\n".join(out) + "\n"
    return (header + "\n" + text) if header else text


def _events(c: profiling.Collector | None, origin: int) -> EventList:
    if c is None:
        return EventList()
    made: dict[int, FunctionEvent] = {}
    for span in reversed(c.spans):          # NB: children first: they started later
        made[id(span)] = FunctionEvent(span, origin, [made[id(k)] for k in span.children])
    return EventList(made[id(s)] for s in c.spans)


# -- the profile ---------------------------------------------------------------------------------
def schedule(*, wait: int, warmup: int, active: int, repeat: int = 0, skip_first: int = 0,
             skip_first_wait: int = 0) -> Callable[[int], ProfilerAction]:
    """The action at each step: ``skip_first`` steps, then cycles of ``wait``, ``warmup`` and
    ``active`` steps (the last active one saves), ``repeat`` times (0: for ever)."""
    if wait < 0 or warmup < 0 or active <= 0 or repeat < 0 or skip_first < 0:
        raise AssertionError(
            f"Invalid profiler schedule arguments. Got wait={wait} (need >= 0), warmup={warmup} "
            f"(need >= 0), active={active} (need > 0), repeat={repeat} (need >= 0), "
            f"skip_first={skip_first} (need >= 0).")
    if warmup == 0:
        import warnings
        warnings.warn("Profiler won't be using warmup, this can skew profiler results",
                      UserWarning, stacklevel=2)

    def action(step: int) -> ProfilerAction:
        if step < 0:
            raise AssertionError(f"Step must be non-negative. Got {step}.")
        if step < skip_first:
            return ProfilerAction.NONE
        step -= skip_first
        period = wait + warmup + active
        if skip_first_wait:
            step += wait                    # NB: the first cycle starts without its wait
        if repeat > 0 and step // period >= repeat:
            return ProfilerAction.NONE
        mod = step % period
        if mod < wait:
            return ProfilerAction.NONE
        if mod < wait + warmup:
            return ProfilerAction.WARMUP
        return ProfilerAction.RECORD if mod < period - 1 else ProfilerAction.RECORD_AND_SAVE
    return action


_RECORDING = (ProfilerAction.RECORD, ProfilerAction.RECORD_AND_SAVE)
_TIMED = (ProfilerAction.WARMUP, *_RECORDING)


def _always_record(step: int) -> ProfilerAction:
    return ProfilerAction.RECORD


def tensorboard_trace_handler(dir_name: str, worker_name: str | None = None,
                              use_gzip: bool = False) -> Callable[[profile], None]:
    """An ``on_trace_ready`` that writes each saved trace as Chrome trace JSON in ``dir_name``."""
    def handler(prof: profile) -> None:
        os.makedirs(dir_name, exist_ok=True)
        worker = worker_name or f"{socket.gethostname()}_{os.getpid()}"
        prof.export_chrome_trace(os.path.join(
            dir_name, f"{worker}.{time.time_ns() // 1_000_000}.pt.trace.json"))
    return handler


class profile:  # noqa: N801 -- PyTorch's name
    """Times the engine's ops run inside (``with profile() as prof: ...``), then
    ``prof.key_averages().table(sort_by="cpu_time_total")``.

    >>> import graphviz_autograd.torch as torch
    >>> with torch.profiler.profile() as prof:
    ...     y = (torch.ones(2, requires_grad=True) * 2).sum()
    >>> sorted(e.key for e in prof.key_averages())
    ['aten::mul', 'aten::sum']
    """

    def __init__(self, *, activities: Iterable[Any] | None = None,
                 schedule: Callable[[int], ProfilerAction] | None = None,
                 on_trace_ready: Callable[..., Any] | None = None,
                 record_shapes: bool = False, profile_memory: bool = False,
                 with_stack: bool = False, with_flops: bool = False, with_modules: bool = False,
                 experimental_config: Any = None, execution_trace_observer: Any = None,
                 acc_events: bool = False, use_cuda: bool | None = None,
                 custom_trace_id_callback: Any = None,
                 post_processing_timeout_s: float | None = None, enabled: bool = True) -> None:
        self.activities = set(activities) if activities else supported_activities()
        self.schedule = schedule or _always_record
        self.on_trace_ready = on_trace_ready
        self.record_shapes = record_shapes
        self.enabled = enabled
        self.step_num = 0
        self._events = EventList()
        self._kept: list[FunctionEvent] = []
        self._collector: profiling.Collector | None = None
        self._origin = 0
        self._action = ProfilerAction.NONE

    # the engine's clock on and off; what a recording step timed is kept until it is saved
    def _run(self) -> None:
        if self._collector is None and self.enabled:
            self._origin = time.perf_counter_ns()
            self._collector = profiling.start(self.record_shapes)

    def _halt(self, keep: bool) -> None:
        collector, self._collector = self._collector, None
        if collector is None:
            return
        if collector is profiling.active:
            profiling.stop()
        if keep:
            self._kept.extend(_events(collector, self._origin))

    def _save(self) -> None:
        self._halt(True)
        self._events, self._kept = EventList(self._kept), []
        if self.on_trace_ready is not None:
            self.on_trace_ready(self)

    def _enter(self, action: ProfilerAction) -> None:
        self._action = action
        if action in _TIMED:
            self._run()

    def start(self) -> None:
        self._enter(self.schedule(self.step_num))

    def stop(self) -> None:
        if self._action in _RECORDING:
            self._save()
        else:
            self._halt(False)
        self._action = ProfilerAction.NONE

    def step(self) -> None:
        """The end of one step: the schedule says what the next one does."""
        before = self._action
        self.step_num += 1
        after = self.schedule(self.step_num)
        if before == ProfilerAction.WARMUP:
            self._halt(False)               # NB: warm-up steps are timed, not kept
        elif before == ProfilerAction.RECORD_AND_SAVE or (
                before == ProfilerAction.RECORD and after not in _RECORDING):
            self._save()
        self._enter(after)

    def __enter__(self) -> profile:
        self.start()
        return self

    def __exit__(self, *exc: Any) -> None:
        self.stop()

    def events(self) -> EventList:
        return self._events

    def key_averages(self, group_by_input_shape: bool = False,
                     group_by_stack_n: int = 0) -> EventList:
        return self._events.key_averages(group_by_input_shape, group_by_stack_n)

    def export_chrome_trace(self, path: str) -> None:
        self._events.export_chrome_trace(path)

    @property
    def self_cpu_time_total(self) -> float:
        return self._events.self_cpu_time_total


profiler = profile
