"""What a script asks of the build and the process it runs in: ``torch.has_lapack`` and the
other feature flags, ``compiled_with_cxx11_abi``, ``init_num_threads``, the deterministic debug
mode (on top of ``use_deterministic_algorithms``), ``legacy_contiguous_format``."""

from __future__ import annotations

from typing import Any

from . import environment

__all__ = ["has_lapack", "has_mkl", "has_openmp", "has_spectral", "compiled_with_cxx11_abi",
           "init_num_threads", "get_deterministic_debug_mode", "set_deterministic_debug_mode",
           "legacy_contiguous_format"]

# NB: the engine's numpy has LAPACK and FFTs; the flags say what PyTorch's CPU build says
has_lapack = has_mkl = has_openmp = has_spectral = True
legacy_contiguous_format = environment.contiguous_format
_MODES = {"default": 0, "warn": 1, "error": 2}


def compiled_with_cxx11_abi() -> bool:
    return True


def init_num_threads() -> None:
    """Nothing to start: the engine runs in the calling thread."""


def get_deterministic_debug_mode() -> int:
    """0 off, 1 warn, 2 error (as ``use_deterministic_algorithms`` sets it).

    >>> set_deterministic_debug_mode("warn"); get_deterministic_debug_mode()
    1
    >>> set_deterministic_debug_mode(0)
    """
    if not environment.are_deterministic_algorithms_enabled():
        return 0
    return 1 if environment.is_deterministic_algorithms_warn_only_enabled() else 2


def set_deterministic_debug_mode(debug_mode: Any) -> None:
    if isinstance(debug_mode, str):
        if debug_mode not in _MODES:
            raise RuntimeError("invalid value of debug_mode, expected one of `default`, `warn`, "
                               f"`error`, but got {debug_mode}")
        debug_mode = _MODES[debug_mode]
    elif not isinstance(debug_mode, int):
        raise TypeError(f"debug_mode must be str or int, but got {type(debug_mode)}")
    if debug_mode not in (0, 1, 2):
        raise RuntimeError(f"invalid value of debug_mode, expected 0, 1, or 2, but got "
                           f"{debug_mode}")
    environment.use_deterministic_algorithms(debug_mode != 0, warn_only=debug_mode == 1)
