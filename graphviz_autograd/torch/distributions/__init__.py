"""``torch.distributions``: probability distributions whose samples, densities and graphs are
PyTorch's (the same draws after ``torch.manual_seed``, the same composite ops).

>>> from graphviz_autograd import torch
>>> _ = torch.manual_seed(0)
>>> Normal(torch.tensor([0.0]), torch.tensor([1.0])).sample()
tensor([1.5410])
"""

from __future__ import annotations

from . import constraints, kl, transforms
from .bernoulli import Bernoulli
from .categorical import Categorical
from .distribution import Distribution, ExponentialFamily
from .exponential import Exponential
from .gamma import Beta, Dirichlet, Gamma
from .independent import Independent
from .kl import kl_divergence, register_kl
from .laplace import Laplace
from .mixture_same_family import MixtureSameFamily
from .multinomial import Binomial, Multinomial
from .multivariate_normal import MultivariateNormal
from .normal import Normal
from .one_hot_categorical import OneHotCategorical, OneHotCategoricalStraightThrough
from .poisson import Geometric, Poisson
from .transformed_distribution import Gumbel, HalfNormal, LogNormal, TransformedDistribution
from .uniform import Uniform

__all__ = ["Bernoulli", "Beta", "Binomial", "Categorical", "Dirichlet", "Distribution",
           "Exponential", "ExponentialFamily", "Gamma", "Geometric", "Gumbel", "HalfNormal",
           "Independent", "Laplace", "LogNormal", "MixtureSameFamily", "Multinomial",
           "MultivariateNormal", "Normal", "OneHotCategorical", "OneHotCategoricalStraightThrough",
           "Poisson", "TransformedDistribution", "Uniform", "constraints", "kl", "kl_divergence",
           "register_kl", "transforms"]
