"""Table entries: the random draws whose parameters can require grad (``torch.normal`` of
tensors, ``torch.bernoulli``). Their gradient is zero, as PyTorch's: the forward only hands
back the sample drawn beforehand (``values``), and the nodes keep the parameters' sizes."""

from __future__ import annotations

from typing import Any

from .ops_pointwise import _not_implemented
from .optable import Op, Save, no_double_backward, register


def _drawn(*_: Any, values: Any, **__: Any) -> Any:
    return values


def _zeros_of(*names: str) -> Any:
    """Zeros of each parameter's saved size (``at::zeros(mean_sym_sizes)``): no graph."""
    def bw(c: Any, g: Any, D: Any) -> tuple[Any, ...]:
        return tuple(D.zeros(tuple(c.attrs[f"{n}_sym_sizes"]), g) if c.needs[i] else None
                     for i, n in enumerate(names))
    return bw


def _standard_gamma_bw(c: Any, g: Any, D: Any) -> tuple[Any, ...]:
    from .gamma_draws import standard_gamma_grad
    if D.tensor_mode:
        raise no_double_backward("StandardGammaBackward0")
    return (g * standard_gamma_grad(c.self, c.result),)


register(
    Op("normal_tensor_tensor", "NormalBackward3", ("mean", "std"), _drawn,
       _zeros_of("mean", "std"), attr_names=("mean_sym_sizes", "std_sym_sizes")),
    Op("normal_tensor_float", "NormalBackward1", ("mean",), _drawn, _zeros_of("mean"),
       attr_names=("mean_sym_sizes",)),
    Op("normal_float_tensor", "NormalBackward2", ("std",), _drawn, _zeros_of("std"),
       attr_names=("std_sym_sizes",)),
    Op("bernoulli", "BernoulliBackward0", ("self",), _drawn,
       lambda c, g, D: (D.zeros_like(g),)),
    Op("binomial", "torch::autograd::NotImplemented", ("count", "prob"), _drawn,
       _not_implemented("binomial")),
    Op("bernoulli_p", "torch::autograd::NotImplemented", ("self",), _drawn,
       _not_implemented("bernoulli")),
    # in-place draws into a tensor that requires grad: the old values get no gradient
    *(Op(key, name, ("self",), _drawn, lambda c, g, D: (D.zeros_like(g),))
      for key, name in (("normal_", "NormalBackward0"), ("uniform_", "UniformBackward0"),
                        ("bernoulli_", "BernoulliBackward2"), ("random_", "RandomBackward2"),
                        ("random_to", "RandomBackward1"), ("random_from_to", "RandomBackward0"),
                        ("exponential_", "ExponentialBackward0"), ("cauchy_", "CauchyBackward0"),
                        ("geometric_", "GeometricBackward0"),
                        ("log_normal_", "LogNormalBackward0"))),
    Op("bernoulli_tensor", "BernoulliBackward1", ("self", "p"), _drawn,
       lambda c, g, D: (D.zeros_like(g) if c.needs[0] else None,
                        D.zeros(tuple(c.attrs["p_shape"]), g) if c.needs[1] else None)),
    # a reparameterised gamma sample: its gradient through the implicit function theorem
    Op("standard_gamma", "StandardGammaBackward0", ("self",), _drawn, _standard_gamma_bw,
       (Save("result"), Save("self"))),
)
