"""``torch.nn.functional``'s spatial-transformer pair: ``affine_grid``
(AffineGridGeneratorBackward0) and ``grid_sample`` (GridSampler2DBackward0 /
GridSampler3DBackward0), with PyTorch's checks, warnings and messages."""

from __future__ import annotations

import warnings
from typing import Any

from ...engine import messages as _msg
from ...engine.autograd import apply as _apply
from ...engine.ops_grid import BICUBIC, BILINEAR, BORDER, NEAREST, REFLECTION, ZEROS
from ...engine.optable import TABLE as _T
from ...engine.tensor import Tensor

__all__ = ["affine_grid", "grid_sample", "grid_sampler", "affine_grid_generator",
           "GRID_SAMPLE_INTERPOLATION_MODES", "GRID_SAMPLE_PADDING_MODES"]

GRID_SAMPLE_INTERPOLATION_MODES = {"bilinear": BILINEAR, "nearest": NEAREST, "bicubic": BICUBIC}
GRID_SAMPLE_PADDING_MODES = {"zeros": ZEROS, "border": BORDER, "reflection": REFLECTION}
_MODES, _PADDINGS = GRID_SAMPLE_INTERPOLATION_MODES, GRID_SAMPLE_PADDING_MODES
_DEFAULT_ALIGN = ("Default grid_sample and affine_grid behavior has changed to align_corners=False "
                  "since 1.3.0. Please specify align_corners=True if the old behavior is desired. "
                  "See the documentation of grid_sample for details.")


def _sizes(shape: Any) -> str:
    return f"[{', '.join(map(str, shape))}]"


def grid_sampler(input: Tensor, grid: Tensor, interpolation_mode: int, padding_mode: int,
                 align_corners: bool) -> Tensor:
    """``torch.grid_sampler``: the modes as PyTorch's numbers (bilinear 0, nearest 1,
    bicubic 2; zeros 0, border 1, reflection 2)."""
    x, g = input._data.shape, grid._data.shape
    if x[0] != g[0]:
        raise RuntimeError(f"grid_sampler(): expected grid and input to have same batch size, "
                           f"but got input with sizes {_sizes(x)} and grid with sizes "
                           f"{_sizes(g)}")
    if g[-1] != len(x) - 2:
        raise RuntimeError(f"grid_sampler(): expected grid to have size {len(x) - 2} in last "
                           f"dimension, but got grid with sizes {_sizes(g)}")
    for i in range(2, len(x)):
        if x[i] == 0:
            raise RuntimeError(f"grid_sampler(): expected input to have non-empty spatial "
                               f"dimensions, but input has sizes {_sizes(x)} with dimension {i} "
                               f"being empty")
    if len(x) not in (4, 5) or len(g) != len(x):
        raise RuntimeError(f"grid_sampler(): expected 4D or 5D input and grid with same number "
                           f"of dimensions, but got input with sizes {_sizes(x)} and grid with "
                           f"sizes {_sizes(g)}")
    if interpolation_mode == BICUBIC and len(x) != 4:
        raise RuntimeError("grid_sampler(): bicubic interpolation only supports 4D input")
    if input._dtype is not grid._dtype:
        name = _msg.SCALAR_NAME
        raise RuntimeError(f"expected scalar type {name.get(input._dtype.name)} but found "
                           f"{name.get(grid._dtype.name)}")
    key = "grid_sampler_2d" if len(x) == 4 else "grid_sampler_3d"
    return _apply(_T[key], (input, grid),
                  {"interpolation_mode": int(interpolation_mode),
                   "padding_mode": int(padding_mode), "align_corners": bool(align_corners)},
                  dtype=input._dtype)


def grid_sample(input: Tensor, grid: Tensor, mode: str = "bilinear", padding_mode: str = "zeros",
                align_corners: bool | None = None) -> Tensor:
    """The input read at the grid's points (x, y in [-1, 1]), interpolated by ``mode``.

    >>> from graphviz_autograd import torch
    >>> x = torch.arange(4.0).reshape(1, 1, 2, 2).requires_grad_()
    >>> theta = torch.tensor([[[1.0, 0.0, 0.0], [0.0, 1.0, 0.0]]], requires_grad=True)
    >>> grid = torch.nn.functional.affine_grid(theta, [1, 1, 2, 2], align_corners=True)
    >>> y = torch.nn.functional.grid_sample(x, grid, align_corners=True)
    >>> y.grad_fn.name(), y.grad_fn.next_functions[1][0].name()
    ('GridSampler2DBackward0', 'AffineGridGeneratorBackward0')
    """
    if mode not in _MODES:
        raise ValueError(f"nn.functional.grid_sample(): expected mode to be 'bilinear', "
                         f"'nearest' or 'bicubic', but got: '{mode}'")
    if padding_mode not in _PADDINGS:
        raise ValueError(f"nn.functional.grid_sample(): expected padding_mode to be 'zeros', "
                         f"'border', or 'reflection', but got: '{padding_mode}'")
    if align_corners is None:
        warnings.warn(_DEFAULT_ALIGN, UserWarning, stacklevel=2)
        align_corners = False
    return grid_sampler(input, grid, _MODES[mode], _PADDINGS[padding_mode], align_corners)


def affine_grid_generator(theta: Tensor, size: Any, align_corners: bool) -> Tensor:
    """``torch.affine_grid_generator``: the grid of ``size`` (N, C, H, W) or (N, C, D, H, W)
    that the affine maps ``theta`` send the output's normalized coordinates to."""
    size = tuple(int(s) for s in size)
    nd = len(size) - 2
    t = theta._data.shape
    if t[0] != size[0]:
        raise RuntimeError(f"Expected size for first two dimensions of batch2 tensor to be: "
                           f"[{size[0]}, {nd + 1}] but got: [{t[0]}, {t[2]}].")
    return _apply(_T["affine_grid_generator"], (theta,),
                  {"size": size, "align_corners": bool(align_corners)}, dtype=theta._dtype)


def affine_grid(theta: Tensor, size: Any, align_corners: bool | None = None) -> Tensor:
    if align_corners is None:
        warnings.warn(_DEFAULT_ALIGN, UserWarning, stacklevel=2)
        align_corners = False
    if not theta._dtype.is_floating_point:
        raise ValueError(f"Expected theta to have floating point type, but got {theta.dtype}")
    shape = tuple(theta._data.shape)
    shown = f"torch.Size({_sizes(shape)})"
    if len(size) == 4:
        if theta.dim() != 3 or shape[-2:] != (2, 3):
            raise ValueError(f"Expected a batch of 2D affine matrices of shape Nx2x3 for size "
                             f"{size}. Got {shown}.")
        spatial = size[-2:]
    elif len(size) == 5:
        if theta.dim() != 3 or shape[-2:] != (3, 4):
            raise ValueError(f"Expected a batch of 3D affine matrices of shape Nx3x4 for size "
                             f"{size}. Got {shown}.")
        spatial = size[-3:]
    else:
        raise NotImplementedError(f"affine_grid only supports 4D and 5D sizes, for 2D and 3D "
                                  f"affine transforms, respectively. Got size {size}.")
    if align_corners and min(spatial) == 1:
        warnings.warn("Since version 1.3.0, affine_grid behavior has changed for unit-size grids "
                      "when align_corners=True. This is not an intended use case of affine_grid. "
                      "See the documentation of affine_grid for details.", UserWarning,
                      stacklevel=2)
    elif min(size) <= 0:
        raise ValueError(f"Expected non-zero, positive output size. Got {size}")
    return affine_grid_generator(theta, size, align_corners)
