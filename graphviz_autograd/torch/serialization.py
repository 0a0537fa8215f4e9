"""``torch.save`` / ``torch.load``: objects holding engine tensors (state dicts, checkpoints)
to a file and back, in the engine's own format (a pickle after a one-line header), not
PyTorch's zip archive; ``weights_only`` loading admits only tensors, containers and numbers."""

from __future__ import annotations

import io
import os
import pickle
from typing import IO, Any

__all__ = ["save", "load"]

_MAGIC = b"graphviz-autograd tensors v1\n"
_SAFE = {
    ("collections", "OrderedDict"), ("collections", "defaultdict"),
    ("builtins", "set"), ("builtins", "frozenset"), ("builtins", "complex"),
    ("builtins", "slice"), ("builtins", "dict"), ("builtins", "list"), ("builtins", "tuple"),
    ("graphviz_autograd.engine.tensor", "_rebuild"),
    ("graphviz_autograd.engine.tensor", "Size"),
    ("graphviz_autograd.torch.nn.parameter", "Parameter"),
    ("numpy", "ndarray"), ("numpy", "dtype"),
    ("numpy._core.multiarray", "_reconstruct"), ("numpy.core.multiarray", "_reconstruct"),
    ("numpy._core.multiarray", "scalar"), ("numpy.core.multiarray", "scalar"),
    ("ml_dtypes", "bfloat16"),             # NB: the numpy dtype of bfloat16 tensors
}


class _WeightsUnpickler(pickle.Unpickler):
    def find_class(self, module: str, name: str) -> Any:
        if (module, name) in _SAFE or (module.startswith("numpy") and name.endswith("DType")):
            return super().find_class(module, name)
        raise pickle.UnpicklingError(
            "Weights only load failed. In PyTorch 2.6, we changed the default value of the "
            "`weights_only` argument in `torch.load` from `False` to `True`. Re-running "
            "`torch.load` with `weights_only` set to `False` will likely succeed, but it can "
            "result in arbitrary code execution. Do it only if you got the file from a trusted "
            f"source.\nPlease file an issue with the following so that we can make "
            f"`weights_only=True` compatible with your use case: WeightsUnpickler error: "
            f"Unsupported global: GLOBAL {module}.{name}")


def save(obj: Any, f: str | os.PathLike[str] | IO[bytes], pickle_module: Any = pickle,
         pickle_protocol: int = 2, _use_new_zipfile_serialization: bool = True) -> None:
    """Write ``obj`` (tensors, parameters, containers, numbers) to a path or binary file.

    >>> import io
    >>> from graphviz_autograd import torch
    >>> buf = io.BytesIO()
    >>> torch.save({"w": torch.ones(2)}, buf)
    >>> _ = buf.seek(0)
    >>> torch.load(buf)
    {'w': tensor([1., 1.])}
    """
    data = _MAGIC + pickle_module.dumps(obj, protocol=max(pickle_protocol, 4))
    if isinstance(f, (str, os.PathLike)):
        with open(f, "wb") as out:
            out.write(data)
    else:
        f.write(data)


def load(f: str | os.PathLike[str] | IO[bytes], map_location: Any = None,
         pickle_module: Any = None, *, weights_only: bool | None = None, mmap: Any = None,
         **pickle_load_args: Any) -> Any:
    """Read what ``save`` wrote; all tensors are on the CPU whatever ``map_location``
    says."""
    if isinstance(f, (str, os.PathLike)):
        with open(f, "rb") as src:
            data = src.read()
    else:
        data = f.read()
    if not data.startswith(_MAGIC):
        if data.startswith(b"PK"):
            raise RuntimeError("this file is a PyTorch archive (written by PyTorch's "
                               "torch.save); this engine reads only files that its own "
                               "torch.save wrote")
        raise pickle.UnpicklingError("not a file written by torch.save")
    body = io.BytesIO(data[len(_MAGIC):])
    if weights_only is False or pickle_module is not None:
        return (pickle_module or pickle).load(body, **pickle_load_args)
    return _WeightsUnpickler(body, **pickle_load_args).load()
