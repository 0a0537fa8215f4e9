"""``torch.autograd.forward_ad``: dual levels, ``make_dual`` and ``unpack_dual``."""

from __future__ import annotations

from ...engine.forward_ad import (
    UnpackedDualTensor,
    dual_level,
    enter_dual_level,
    exit_dual_level,
    make_dual,
    unpack_dual,
)

__all__ = ["UnpackedDualTensor", "enter_dual_level", "exit_dual_level", "make_dual",
           "unpack_dual", "dual_level"]
