"""``torch.backends.cuda``: the matmul flags scripts set, kept and unused (no CUDA here)."""

from __future__ import annotations

__all__ = ["matmul", "is_built"]


class _MatmulFlags:
    def __init__(self) -> None:
        self.allow_tf32 = False
        self.allow_fp16_reduced_precision_reduction = True
        self.allow_bf16_reduced_precision_reduction = True


matmul = _MatmulFlags()


def is_built() -> bool:
    return False
