"""``nn.Module`` and the layers built on it."""

from __future__ import annotations

import math
import operator
from collections import OrderedDict
from collections.abc import Iterator
from typing import Any, NamedTuple

from ...engine import dtypes as _dt
from ...engine import functional as _F
from ...engine.factories import ones, tensor, zeros
from ...engine.grad_mode import no_grad
from ...engine.pre_write import WATCH as _WATCH
from ...engine.pre_write import before_write
from ...engine.tensor import Tensor
from ..environment import typename
from . import functional as F
from . import init
from .buffer import Buffer
from .hooks import ModuleHooks
from .parameter import Parameter


def _is_buffer_assignment(module: Any, name: str, value: Any) -> bool:
    """Whether ``module.name = value`` sets a buffer: an ``nn.Buffer``, or a name already
    registered as one (a tensor or None, as PyTorch requires)."""
    buffers = module.__dict__.get("_buffers")
    if not (isinstance(value, Buffer) or (buffers is not None and name in buffers)):
        return False
    if value is not None and not isinstance(value, Tensor):
        raise TypeError(f"cannot assign '{typename(value)}' as buffer '{name}' "
                        "(torch.nn.Buffer, torch.Tensor or None expected)")
    return True


class Module(ModuleHooks):
    """Base class of layers. Parameters and submodules assigned as attributes are registered;
    hook registration and the hooked ``__call__`` come from ``ModuleHooks`` (``hooks.py``)."""

    training: bool

    def __init__(self) -> None:
        object.__setattr__(self, "_parameters", OrderedDict())
        object.__setattr__(self, "_modules", OrderedDict())
        object.__setattr__(self, "_buffers", OrderedDict())
        object.__setattr__(self, "_non_persistent", set())   # buffers left out of state_dict
        object.__setattr__(self, "training", True)
        self._create_hook_tables()

    def __setattr__(self, name: str, value: Any) -> None:
        params = self.__dict__.get("_parameters")
        if isinstance(value, Parameter):
            if params is None:
                raise AttributeError("cannot assign parameters before Module.__init__() call")
            self.__dict__.get("_modules", {}).pop(name, None)
            self.__dict__.pop(name, None)       # NB: a plain attribute of that name gives way
            params[name] = value
        elif isinstance(value, Module):
            if params is None:
                raise AttributeError("cannot assign module before Module.__init__() call")
            params.pop(name, None)
            self._modules[name] = value
        elif _is_buffer_assignment(self, name, value):
            persistent = value.persistent if isinstance(value, Buffer) \
                else name not in self._non_persistent
            self.register_buffer(name, value, persistent)
        elif params is not None and name in params:
            if value is not None:
                raise TypeError(f"cannot assign '{typename(value)}' as parameter '{name}' "
                                "(torch.nn.Parameter or None expected)")
            params[name] = None
        else:
            object.__setattr__(self, name, value)

    def __getattr__(self, name: str) -> Any:
        d = self.__dict__
        for store in ("_parameters", "_buffers", "_modules"):
            if store in d and name in d[store]:
                return d[store][name]
        raise AttributeError(f"'{type(self).__name__}' object has no attribute '{name}'")

    def __delattr__(self, name: str) -> None:
        for store in ("_parameters", "_buffers", "_modules"):
            if name in self.__dict__.get(store, {}):
                del self.__dict__[store][name]
                return
        object.__delattr__(self, name)

    def register_buffer(self, name: str, tensor: Tensor | None, persistent: bool = True) -> None:
        self._buffers[name] = tensor
        if not persistent:
            self._non_persistent.add(name)
        else:
            self._non_persistent.discard(name)

    def register_parameter(self, name: str, param: Parameter | None) -> None:
        self._parameters[name] = param

    def add_module(self, name: str, module: Module | None) -> None:
        if module is not None and not isinstance(module, Module):
            raise TypeError(f"{type(module).__name__} is not a Module subclass")
        if not isinstance(name, str):
            raise TypeError(f"module name should be a string. Got {type(name).__name__}")
        if hasattr(self, name) and name not in self._modules:
            raise KeyError(f"attribute '{name}' already exists")
        if "." in name:
            raise KeyError(f'module name can\'t contain ".", got: {name}')
        if name == "":
            raise KeyError('module name can\'t be empty string ""')
        self._modules[name] = module

    register_module = add_module

    def forward(self, *args: Any, **kw: Any) -> Any:
        raise NotImplementedError(f'Module [{type(self).__name__}] is missing the required '
                                  '"forward" function')

    def named_modules(self, prefix: str = "") -> Iterator[tuple[str, Module]]:
        """Every module once, depth first, each before its children (PyTorch's order: the
        order of ``parameters()`` and of ``state_dict()``'s keys)."""
        stack: list[tuple[str, Module]] = [(prefix, self)]
        seen: set[int] = set()
        while stack:
            name, m = stack.pop()
            if id(m) in seen:
                continue
            seen.add(id(m))
            yield name, m
            stack.extend(reversed([(f"{name}.{child_name}" if name else child_name, child)
                                   for child_name, child in m._modules.items()
                                   if child is not None]))

    def modules(self) -> Iterator[Module]:
        for _, m in self.named_modules():
            yield m

    def children(self) -> Iterator[Module]:
        for m in self._modules.values():
            if m is not None:
                yield m

    def named_children(self) -> Iterator[tuple[str, Module]]:
        for n, m in self._modules.items():
            if m is not None:
                yield n, m

    def named_parameters(self, prefix: str = "", recurse: bool = True
                         ) -> Iterator[tuple[str, Parameter]]:
        seen: set[int] = set()
        mods = self.named_modules(prefix) if recurse else iter([(prefix, self)])
        for mname, m in mods:
            for pname, p in m._parameters.items():
                if p is None or id(p) in seen:
                    continue
                seen.add(id(p))
                yield (f"{mname}.{pname}" if mname else pname), p

    def parameters(self, recurse: bool = True) -> Iterator[Parameter]:
        for _, p in self.named_parameters(recurse=recurse):
            yield p

    def named_buffers(self, prefix: str = "", recurse: bool = True
                      ) -> Iterator[tuple[str, Tensor]]:
        mods = self.named_modules(prefix) if recurse else iter([(prefix, self)])
        for mname, m in mods:
            for k, b in m._buffers.items():
                if b is not None:
                    yield (f"{mname}.{k}" if mname else k), b

    def buffers(self, recurse: bool = True) -> Iterator[Tensor]:
        for _, b in self.named_buffers(recurse=recurse):
            yield b

    def zero_grad(self, set_to_none: bool = True) -> None:
        for p in self.parameters():
            if p._grad is not None:
                if set_to_none:
                    p._grad = None
                else:
                    if _WATCH:
                        before_write(p._grad)
                    p._grad._data[...] = 0

    def train(self, mode: bool = True) -> Module:
        for m in self.modules():
            object.__setattr__(m, "training", mode)
        return self

    def eval(self) -> Module:
        return self.train(False)

    def requires_grad_(self, requires_grad: bool = True) -> Module:
        for p in self.parameters():
            p.requires_grad_(requires_grad)
        return self

    def to(self, *args: Any, **kw: Any) -> Module:
        """A dtype (given, or a tensor's) casts the floating-point parameters and buffers;
        devices are all the CPU here."""
        dtype = kw.get("dtype")
        for a in args:
            if isinstance(a, _dt.DType):
                dtype = a
            elif isinstance(a, Tensor):
                dtype = a.dtype
        if dtype is None:
            return self
        if not dtype.is_floating_point:
            raise TypeError(f"nn.Module.to only accepts floating point or complex dtypes, but "
                            f"got desired dtype={dtype}")
        return self._cast(dtype)

    def cpu(self, *args: Any, **kw: Any) -> Module:
        return self

    cuda = cpu

    def double(self) -> Module:
        return self._cast(_dt.float64)

    def float(self) -> Module:
        return self._cast(_dt.float32)

    def _cast(self, dtype: _dt.DType) -> Module:
        """As PyTorch's ``_apply``: each parameter keeps its object (its ``.data`` and its
        gradient are cast), each buffer is replaced; only floating-point ones change."""
        with no_grad():
            for m in self.modules():
                for p in m._parameters.values():
                    if p is not None and p.dtype.is_floating_point and p.dtype is not dtype:
                        p.data = p.data.to(dtype)
                        if p._grad is not None:
                            p._grad = p._grad.to(dtype)
                for k, b in m._buffers.items():
                    if b is not None and b.dtype.is_floating_point:
                        m._buffers[k] = b.to(dtype)
        return self

    def apply(self, fn: Any) -> Module:
        """``fn`` on every submodule, children first and in order, then on this module (as
        PyTorch: the order matters to initialisers drawing from one generator)."""
        for m in self.children():
            m.apply(fn)
        fn(self)
        return self

    def state_dict(self) -> OrderedDict[str, Tensor]:
        """Each module's parameters, then its persistent buffers, module by module."""
        out: OrderedDict[str, Tensor] = OrderedDict()
        for mname, m in self.named_modules():
            kept = [*m._parameters.items(),
                    *((k, b) for k, b in m._buffers.items() if k not in m._non_persistent)]
            for k, v in kept:
                if v is not None:
                    out[f"{mname}.{k}" if mname else k] = v.detach()
        return out

    def _state_targets(self) -> dict[str, Tensor]:
        """The tensors ``state_dict`` names, themselves (not detached)."""
        out: dict[str, Tensor] = {}
        for mname, m in self.named_modules():
            kept = [*m._parameters.items(),
                    *((k, b) for k, b in m._buffers.items() if k not in m._non_persistent)]
            for k, v in kept:
                if v is not None:
                    out[f"{mname}.{k}" if mname else k] = v
        return out

    def load_state_dict(self, state: dict[str, Tensor], strict: bool = True,
                        assign: bool = False) -> Any:
        """Copy parameters and persistent buffers from ``state``; PyTorch's messages for
        missing, unexpected and mis-shaped keys."""
        targets = self._state_targets()
        missing = [k for k in targets if k not in state]
        unexpected = [k for k in state if k not in targets]
        errors = [f"size mismatch for {k}: copying a param with shape {v.shape} from checkpoint, "
                  f"the shape in current model is {targets[k].shape}."
                  for k, v in state.items() if k in targets and v.shape != targets[k].shape]
        if strict:
            for what, keys in (("Unexpected", unexpected), ("Missing", missing)):
                if keys:
                    quoted = ", ".join('"' + k + '"' for k in keys)
                    errors.insert(0, f"{what} key(s) in state_dict: {quoted}. ")
        if errors:
            raise RuntimeError(f"Error(s) in loading state_dict for {type(self).__name__}:\n\t"
                               + "\n\t".join(errors))
        with no_grad():
            for k, v in state.items():
                if k in targets:
                    targets[k].copy_(v)
        return IncompatibleKeys(missing, unexpected)

    def extra_repr(self) -> str:
        return ""

    def __repr__(self) -> str:
        extra = self.extra_repr()
        lines = extra.split("\n") if extra else []
        children = [f"({n}): " + repr(m).replace("\n", "\n  ") for n, m in self._modules.items()]
        head = type(self).__name__ + "("
        if len(lines) == 1 and not children:
            return head + lines[0] + ")"
        if not lines and not children:
            return head + ")"
        return head + "\n  " + "\n  ".join(lines + children) + "\n)"


class IncompatibleKeys(NamedTuple):
    """What ``load_state_dict`` did not match (empty lists when all keys matched)."""

    missing_keys: list[str]
    unexpected_keys: list[str]

    def __repr__(self) -> str:
        if not self.missing_keys and not self.unexpected_keys:
            return "<All keys matched successfully>"
        return (f"_IncompatibleKeys(missing_keys={self.missing_keys}, "
                f"unexpected_keys={self.unexpected_keys})")


def _item(mods: _Indexed, i: Any) -> Any:
    """``mods[i]`` of a Sequential or ModuleList (negative from the end), PyTorch's error; a
    slice is a new container of the same kind (a Sequential keeps the names)."""
    if isinstance(i, slice):
        if isinstance(mods, Sequential):
            return Sequential(OrderedDict(list(mods._modules.items())[i]))
        return ModuleList(list(mods._modules.values())[i])
    n = len(mods._modules)
    if not -n <= i < n:
        raise IndexError(f"index {i} is out of range")
    return list(mods._modules.values())[i % n]


def _key(mods: _Indexed, i: Any) -> str:
    """The name of the module at index ``i`` (negative from the end), PyTorch's error."""
    n = len(mods._modules)
    i = operator.index(i)
    if not -n <= i < n:
        raise IndexError(f"index {i} is out of range")
    return list(mods._modules)[i % n]


def _delete(mods: _Indexed, i: Any) -> None:
    """``del mods[i]`` (an index or a slice), the rest numbered again from 0, as PyTorch does."""
    keys = list(mods._modules)[i] if isinstance(i, slice) else [_key(mods, i)]
    for k in keys:
        del mods._modules[k]
    mods._modules = OrderedDict((str(j), m) for j, m in enumerate(mods._modules.values()))


def _insert(mods: _Indexed, index: int, m: Module) -> None:
    """``m`` put before ``index``, the modules after it moved up by one."""
    n = len(mods._modules)
    if not -n <= index <= n:
        raise IndexError(f"Index out of range: {index}")
    index = index + n if index < 0 else index
    for i in range(n, index, -1):
        mods._modules[str(i)] = mods._modules[str(i - 1)]
    mods._modules[str(index)] = m


class _Indexed(Module):
    """What ``Sequential`` and ``ModuleList`` share: their modules by index, changed in place
    (set, deleted, inserted, popped, extended) as in PyTorch."""

    def __getitem__(self, i: Any) -> Any:
        return _item(self, i)

    def __setitem__(self, i: int, m: Module) -> None:
        self.add_module(_key(self, i), m)

    def __delitem__(self, i: int | slice) -> None:
        _delete(self, i)

    def __len__(self) -> int:
        return len(self._modules)

    def __iter__(self) -> Iterator[Module]:
        return iter(self._modules.values())

    def insert(self, index: int, m: Module) -> Any:
        _insert(self, index, m)
        return self

    def append(self, m: Module) -> Any:
        self.add_module(str(len(self._modules)), m)
        return self

    def extend(self, mods: Any) -> Any:
        for m in mods:
            self.append(m)
        return self

    def pop(self, i: int | slice) -> Any:
        out = self[i]
        del self[i]
        return out


class Linear(Module):
    def __init__(self, in_features: int, out_features: int, bias: bool = True,
                 device: Any = None, dtype: Any = None) -> None:
        super().__init__()
        self.in_features, self.out_features = in_features, out_features
        self.weight = Parameter(zeros(out_features, in_features, dtype=dtype))
        self.bias = Parameter(zeros(out_features, dtype=dtype)) if bias else None
        if not bias:
            self.register_parameter("bias", None)
        self.reset_parameters()

    def reset_parameters(self) -> None:
        # NB: one in-place init per tensor, so versions start at 1 as in PyTorch
        init.kaiming_uniform_(self.weight, a=math.sqrt(5))
        if self.bias is not None:
            bound = 1 / math.sqrt(self.in_features) if self.in_features > 0 else 0
            init.uniform_(self.bias, -bound, bound)

    def forward(self, input: Tensor) -> Tensor:
        return _F.linear(input, self.weight, self.bias)

    def extra_repr(self) -> str:
        return (f"in_features={self.in_features}, out_features={self.out_features}, "
                f"bias={self.bias is not None}")


class Embedding(Module):
    def __init__(self, num_embeddings: int, embedding_dim: int, padding_idx: int | None = None,
                 max_norm: float | None = None, norm_type: float = 2.0,
                 scale_grad_by_freq: bool = False, sparse: bool = False,
                 _weight: Tensor | None = None, _freeze: bool = False, device: Any = None,
                 dtype: Any = None) -> None:
        super().__init__()
        self.num_embeddings, self.embedding_dim = num_embeddings, embedding_dim
        self.padding_idx = F.padding_index(padding_idx, num_embeddings)
        self.max_norm, self.norm_type = max_norm, norm_type
        self.scale_grad_by_freq, self.sparse = scale_grad_by_freq, sparse
        if _weight is None:
            self.weight = Parameter(zeros(num_embeddings, embedding_dim, dtype=dtype),
                                    requires_grad=not _freeze)
            self.reset_parameters()
        else:
            assert list(_weight.shape) == [num_embeddings, embedding_dim], \
                "Shape of weight does not match num_embeddings and embedding_dim"
            self.weight = Parameter(_weight, requires_grad=not _freeze)

    def reset_parameters(self) -> None:
        init.normal_(self.weight)
        if self.padding_idx is not None:
            with no_grad():
                self.weight[self.padding_idx].fill_(0)

    def forward(self, input: Tensor) -> Tensor:
        return F.embedding(input, self.weight, self.padding_idx, self.max_norm,
                           self.norm_type, self.scale_grad_by_freq, self.sparse)

    def extra_repr(self) -> str:
        s = f"{self.num_embeddings}, {self.embedding_dim}"
        if self.padding_idx is not None:
            s += f", padding_idx={self.padding_idx}"
        if self.max_norm is not None:
            s += f", max_norm={self.max_norm}"
        if self.norm_type != 2:
            s += f", norm_type={self.norm_type}"
        if self.scale_grad_by_freq is not False:
            s += ", scale_grad_by_freq=True"
        if self.sparse is not False:
            s += ", sparse=True"
        return s

    @classmethod
    def from_pretrained(cls, embeddings: Tensor, freeze: bool = True,
                        padding_idx: int | None = None, max_norm: float | None = None,
                        norm_type: float = 2.0, scale_grad_by_freq: bool = False,
                        sparse: bool = False) -> Embedding:
        assert embeddings.dim() == 2, "Embeddings parameter is expected to be 2-dimensional"
        rows, cols = embeddings.shape
        return cls(rows, cols, padding_idx, max_norm, norm_type, scale_grad_by_freq, sparse,
                   _weight=embeddings, _freeze=freeze)


class LayerNorm(Module):
    def __init__(self, normalized_shape: Any, eps: float = 1e-5, elementwise_affine: bool = True,
                 bias: bool = True, device: Any = None, dtype: Any = None) -> None:
        super().__init__()
        if isinstance(normalized_shape, int):
            normalized_shape = (normalized_shape,)
        self.normalized_shape = tuple(normalized_shape)
        self.eps, self.elementwise_affine = eps, elementwise_affine
        self.register_parameter("weight", None)
        self.register_parameter("bias", None)
        if elementwise_affine:
            self.weight = Parameter(zeros(*self.normalized_shape, dtype=dtype))
            if bias:
                self.bias = Parameter(zeros(*self.normalized_shape, dtype=dtype))
        self.reset_parameters()

    def reset_parameters(self) -> None:
        # NB: in place, so versions start at 1 as in PyTorch
        if self.weight is not None:
            init.ones_(self.weight)
        if self.bias is not None:
            init.zeros_(self.bias)

    def forward(self, input: Tensor) -> Tensor:
        return F.layer_norm(input, self.normalized_shape, self.weight, self.bias, self.eps)

    def extra_repr(self) -> str:
        return (f"{self.normalized_shape}, eps={self.eps}, "
                f"elementwise_affine={self.elementwise_affine}, bias={self.bias is not None}")


class _BatchNorm(Module):
    """Batch normalization over dim 1; the subclasses check the input's number of dims."""

    def __init__(self, num_features: int, eps: float = 1e-5, momentum: float | None = 0.1,
                 affine: bool = True, track_running_stats: bool = True, device: Any = None,
                 dtype: Any = None, *, bias: bool = True) -> None:
        super().__init__()
        self.num_features, self.eps, self.momentum = num_features, eps, momentum
        self.affine, self.track_running_stats = affine, track_running_stats
        self.register_parameter("weight", None)
        self.register_parameter("bias", None)
        if affine:
            self.weight = Parameter(zeros(num_features, dtype=dtype))
            if bias:
                self.bias = Parameter(zeros(num_features, dtype=dtype))
        stats = track_running_stats
        self.register_buffer("running_mean", zeros(num_features, dtype=dtype) if stats else None)
        self.register_buffer("running_var", ones(num_features, dtype=dtype) if stats else None)
        self.register_buffer("num_batches_tracked",
                             tensor(0, dtype=_dt.int64) if stats else None)
        self.reset_parameters()

    def reset_running_stats(self) -> None:
        # NB: in place, so each buffer's version starts at 1 as in PyTorch
        if self.track_running_stats:
            self.running_mean.zero_()
            self.running_var.fill_(1)
            self.num_batches_tracked.zero_()

    def reset_parameters(self) -> None:
        self.reset_running_stats()
        if self.weight is not None:
            init.ones_(self.weight)
        if self.bias is not None:
            init.zeros_(self.bias)

    def _check_input_dim(self, input: Tensor) -> None:
        raise NotImplementedError

    def forward(self, input: Tensor) -> Tensor:
        self._check_input_dim(input)
        factor = 0.0 if self.momentum is None else self.momentum
        if self.training and self.track_running_stats and self.num_batches_tracked is not None:
            self.num_batches_tracked.add_(1)
            # NB: no momentum: the running statistics are the average over all batches so far
            factor = (1.0 / float(self.num_batches_tracked) if self.momentum is None
                      else self.momentum)
        use_batch = self.training or (self.running_mean is None and self.running_var is None)
        # NB: the buffers are passed where they are updated (training, tracked) or used (eval)
        passed = not self.training or self.track_running_stats
        return F.batch_norm(input, self.running_mean if passed else None,
                            self.running_var if passed else None, self.weight, self.bias,
                            use_batch, factor, self.eps)

    def extra_repr(self) -> str:
        return (f"{self.num_features}, eps={self.eps}, momentum={self.momentum}, "
                f"affine={self.affine}, bias={self.bias is not None}, "
                f"track_running_stats={self.track_running_stats}")


class BatchNorm1d(_BatchNorm):
    def _check_input_dim(self, input: Tensor) -> None:
        if input.dim() not in (2, 3):
            raise ValueError(f"expected 2D or 3D input (got {input.dim()}D input)")


class BatchNorm2d(_BatchNorm):
    def _check_input_dim(self, input: Tensor) -> None:
        if input.dim() != 4:
            raise ValueError(f"expected 4D input (got {input.dim()}D input)")


class Sequential(_Indexed):
    def __init__(self, *mods: Any) -> None:
        super().__init__()
        if len(mods) == 1 and isinstance(mods[0], OrderedDict):
            for k, m in mods[0].items():
                self.add_module(k, m)
        else:
            for i, m in enumerate(mods):
                self.add_module(str(i), m)

    def forward(self, x: Any) -> Any:
        for m in self._modules.values():
            x = m(x)
        return x


class ModuleList(_Indexed):
    def __init__(self, mods: Any = None) -> None:
        super().__init__()
        for m in mods or ():
            self.append(m)

    def __repr__(self) -> str:
        # NB: as PyTorch's: a run of modules printed alike is one line, "(0-2): 3 x Linear(...)"
        reprs = [repr(m) for m in self]
        if not reprs:
            return "ModuleList()"
        runs: list[list[Any]] = []
        for i, r in enumerate(reprs):
            if runs and runs[-1][2] == r:
                runs[-1][1] = i
            else:
                runs.append([i, i, r])
        lines = [(f"({a}): {r}" if a == b else f"({a}-{b}): {b - a + 1} x {r}")
                 .replace("\n", "\n  ") for a, b, r in runs]
        return "ModuleList(\n  " + "\n  ".join(lines) + "\n)"


class ModuleDict(Module):
    def __init__(self, mods: Any = None) -> None:
        super().__init__()
        for k, m in dict(mods or {}).items():
            self.add_module(k, m)

    def __getitem__(self, k: str) -> Module:
        return self._modules[k]

    def __setitem__(self, k: str, m: Module) -> None:
        self.add_module(k, m)

    def __delitem__(self, k: str) -> None:
        del self._modules[k]

    def __contains__(self, k: object) -> bool:
        return k in self._modules

    def __len__(self) -> int:
        return len(self._modules)

    def __iter__(self) -> Iterator[str]:
        return iter(self._modules)

    def keys(self) -> Any:
        return self._modules.keys()

    def items(self) -> Any:
        return self._modules.items()

    def values(self) -> Any:
        return self._modules.values()


def _activation(name: str, fn: Any) -> type[Module]:
    def forward(self: Module, x: Tensor) -> Tensor:
        return fn(x)
    return type(name, (Module,), {"forward": forward, "__init__": _plain_init})


def _plain_init(self: Module, *args: Any, **kw: Any) -> None:
    Module.__init__(self)
    object.__setattr__(self, "_args", (args, kw))


class ReLU(Module):
    def __init__(self, inplace: bool = False) -> None:
        super().__init__()
        self.inplace = inplace

    def forward(self, x: Tensor) -> Tensor:
        return F.relu(x, inplace=self.inplace)

    def extra_repr(self) -> str:
        return "inplace=True" if self.inplace else ""


Tanh = _activation("Tanh", F.tanh)
Sigmoid = _activation("Sigmoid", F.sigmoid)
Identity = _activation("Identity", lambda x: x)


class SiLU(Module):
    def __init__(self, inplace: bool = False) -> None:
        super().__init__()
        self.inplace = inplace

    def forward(self, x: Tensor) -> Tensor:
        return F.silu(x, inplace=self.inplace)

    def extra_repr(self) -> str:
        return "inplace=True" if self.inplace else ""


class LeakyReLU(Module):
    def __init__(self, negative_slope: float = 0.01, inplace: bool = False) -> None:
        super().__init__()
        self.negative_slope, self.inplace = negative_slope, inplace

    def forward(self, x: Tensor) -> Tensor:
        return F.leaky_relu(x, self.negative_slope, self.inplace)

    def extra_repr(self) -> str:
        return f"negative_slope={self.negative_slope}" + (", inplace=True" if self.inplace
                                                          else "")


class GELU(Module):
    def __init__(self, approximate: str = "none") -> None:
        super().__init__()
        self.approximate = approximate

    def forward(self, x: Tensor) -> Tensor:
        return F.gelu(x, self.approximate)

    def extra_repr(self) -> str:
        return f"approximate={self.approximate!r}"


class Softmax(Module):
    def __init__(self, dim: Any = None) -> None:
        super().__init__()
        self.dim = dim

    def forward(self, x: Tensor) -> Tensor:
        return F.softmax(x, self.dim)

    def extra_repr(self) -> str:
        return f"dim={self.dim}"


class LogSoftmax(Softmax):
    def forward(self, x: Tensor) -> Tensor:
        return F.log_softmax(x, self.dim)


class Dropout(Module):
    def __init__(self, p: float = 0.5, inplace: bool = False) -> None:
        super().__init__()
        if p < 0 or p > 1:
            raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")
        self.p, self.inplace = p, inplace

    def forward(self, x: Tensor) -> Tensor:
        return F.dropout(x, self.p, self.training, self.inplace)

    def extra_repr(self) -> str:
        return f"p={self.p}, inplace={self.inplace}"


class Flatten(Module):
    def __init__(self, start_dim: int = 1, end_dim: int = -1) -> None:
        super().__init__()
        self.start_dim, self.end_dim = start_dim, end_dim

    def forward(self, x: Tensor) -> Tensor:
        return _F.flatten(x, self.start_dim, self.end_dim)

    def extra_repr(self) -> str:
        return f"start_dim={self.start_dim}, end_dim={self.end_dim}"


class Unflatten(Module):
    def __init__(self, dim: int | str, unflattened_size: Any) -> None:
        super().__init__()
        self.dim, self.unflattened_size = dim, unflattened_size

    def forward(self, x: Tensor) -> Tensor:
        from ...engine.stacking import unflatten
        return unflatten(x, self.dim, self.unflattened_size)  # type: ignore[arg-type]

    def extra_repr(self) -> str:
        return f"dim={self.dim}, unflattened_size={self.unflattened_size}"


class _Loss(Module):
    def __init__(self, size_average: Any = None, reduce: Any = None,
                 reduction: str = "mean") -> None:
        super().__init__()
        if size_average is not None or reduce is not None:
            reduction = F.legacy_reduction(size_average, reduce)
        self.reduction = reduction


class MSELoss(_Loss):
    def forward(self, input: Tensor, target: Tensor) -> Tensor:
        return F.mse_loss(input, target, reduction=self.reduction)


class L1Loss(_Loss):
    def forward(self, input: Tensor, target: Tensor) -> Tensor:
        return F.l1_loss(input, target, reduction=self.reduction)


class SmoothL1Loss(_Loss):
    def __init__(self, size_average: Any = None, reduce: Any = None, reduction: str = "mean",
                 beta: float = 1.0) -> None:
        super().__init__(size_average, reduce, reduction)
        self.beta = beta

    def forward(self, input: Tensor, target: Tensor) -> Tensor:
        return F.smooth_l1_loss(input, target, reduction=self.reduction, beta=self.beta)


class _WeightedLoss(_Loss):
    def __init__(self, weight: Tensor | None = None, size_average: Any = None,
                 ignore_index: int = -100, reduce: Any = None, reduction: str = "mean",
                 label_smoothing: float = 0.0) -> None:
        super().__init__(size_average, reduce, reduction)
        self.weight, self.ignore_index, self.label_smoothing = weight, ignore_index, \
            label_smoothing


class CrossEntropyLoss(_WeightedLoss):
    def forward(self, input: Tensor, target: Tensor) -> Tensor:
        return F.cross_entropy(input, target, self.weight, ignore_index=self.ignore_index,
                               reduction=self.reduction, label_smoothing=self.label_smoothing)


class NLLLoss(_WeightedLoss):
    def forward(self, input: Tensor, target: Tensor) -> Tensor:
        return F.nll_loss(input, target, self.weight, ignore_index=self.ignore_index,
                          reduction=self.reduction)


class BCELoss(_Loss):
    def __init__(self, weight: Tensor | None = None, size_average: Any = None,
                 reduce: Any = None, reduction: str = "mean") -> None:
        super().__init__(size_average, reduce, reduction)
        self.weight = weight

    def forward(self, input: Tensor, target: Tensor) -> Tensor:
        return F.binary_cross_entropy(input, target, self.weight, reduction=self.reduction)


class BCEWithLogitsLoss(_Loss):
    def __init__(self, weight: Tensor | None = None, size_average: Any = None,
                 reduce: Any = None, reduction: str = "mean",
                 pos_weight: Tensor | None = None) -> None:
        super().__init__(size_average, reduce, reduction)
        self.weight, self.pos_weight = weight, pos_weight

    def forward(self, input: Tensor, target: Tensor) -> Tensor:
        return F.binary_cross_entropy_with_logits(input, target, self.weight,
                                                  reduction=self.reduction,
                                                  pos_weight=self.pos_weight)


def _bind_extras() -> None:
    """The rarer Module methods (``module_extras``), where Module has none of that name."""
    from .module_extras import METHODS
    for name, fn in METHODS.items():
        if not hasattr(Module, name):
            setattr(Module, name, fn)


_bind_extras()
