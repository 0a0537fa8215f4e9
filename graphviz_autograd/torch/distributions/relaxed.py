"""``torch.distributions`` relaxed (Concrete / Gumbel-softmax) distributions: RelaxedBernoulli
over LogitRelaxedBernoulli, RelaxedOneHotCategorical over ExpRelaxedCategorical; their
reparameterised samples transform one uniform per element, as PyTorch's."""

from __future__ import annotations

from numbers import Number
from typing import Any

from ...engine.tensor import Size, Tensor
from . import constraints
from .categorical import Categorical
from .distribution import Distribution
from .transformed_distribution import TransformedDistribution
from .transforms import ExpTransform, SigmoidTransform
from .utils import (
    BinaryParams,
    broadcast_all,
    clamp_probs,
    torch,
)

__all__ = ["LogitRelaxedBernoulli", "RelaxedBernoulli", "ExpRelaxedCategorical",
           "RelaxedOneHotCategorical"]


class LogitRelaxedBernoulli(BinaryParams, Distribution):
    arg_constraints = {"probs": constraints.unit_interval,  # noqa: RUF012
                       "logits": constraints.real}
    support = constraints.real

    def __init__(self, temperature: Tensor, probs: Any = None, logits: Any = None,
                 validate_args: bool | None = None) -> None:
        self.temperature = temperature
        if (probs is None) == (logits is None):
            raise ValueError("Either `probs` or `logits` must be specified, but not both.")
        given = probs if probs is not None else logits
        (param,) = broadcast_all(given)
        if probs is not None:
            self.probs = param
        else:
            self.logits = param
        self._param = param
        super().__init__(Size() if isinstance(given, Number) else param.size(),
                         validate_args=validate_args)

    def expand(self, batch_shape: Any, _instance: Any = None) -> LogitRelaxedBernoulli:
        new = self._expanded(LogitRelaxedBernoulli, batch_shape, ("probs", "logits"),
                             _instance)
        new.temperature = self.temperature
        new._param = new.__dict__["logits" if "logits" in self.__dict__ else "probs"]
        return new

    def _new(self, *args: Any, **kwargs: Any) -> Tensor:
        return self._param.new(*args, **kwargs)

    def rsample(self, sample_shape: Any = ()) -> Tensor:
        shape = self._extended_shape(sample_shape)
        probs = clamp_probs(self.probs.expand(shape))
        uniforms = clamp_probs(torch.rand(shape, dtype=probs.dtype))
        return (uniforms.log() - (-uniforms).log1p() + probs.log()
                - (-probs).log1p()) / self.temperature

    def log_prob(self, value: Any) -> Tensor:
        if self._validate_args:
            self._validate_sample(value)
        logits, value = broadcast_all(self.logits, value)
        diff = logits - value.mul(self.temperature)
        return self.temperature.log() + diff - 2 * diff.exp().log1p()


class RelaxedBernoulli(TransformedDistribution):
    arg_constraints = {"probs": constraints.unit_interval,  # noqa: RUF012
                       "logits": constraints.real}
    support = constraints.unit_interval
    has_rsample = True
    base_dist: LogitRelaxedBernoulli

    def __init__(self, temperature: Tensor, probs: Any = None, logits: Any = None,
                 validate_args: bool | None = None) -> None:
        super().__init__(LogitRelaxedBernoulli(temperature, probs, logits), SigmoidTransform(),
                         validate_args=validate_args)

    def expand(self, batch_shape: Any, _instance: Any = None) -> RelaxedBernoulli:
        new = self._get_checked_instance(RelaxedBernoulli, _instance)
        return super().expand(batch_shape, _instance=new)  # type: ignore[return-value]

    @property
    def temperature(self) -> Tensor:
        return self.base_dist.temperature

    @property
    def logits(self) -> Tensor:
        return self.base_dist.logits

    @property
    def probs(self) -> Tensor:
        return self.base_dist.probs


class ExpRelaxedCategorical(Distribution):
    arg_constraints = {"probs": constraints.simplex,  # noqa: RUF012
                       "logits": constraints.real_vector}
    support = constraints.real_vector
    has_rsample = True

    def __init__(self, temperature: Tensor, probs: Tensor | None = None,
                 logits: Tensor | None = None, validate_args: bool | None = None) -> None:
        self._categorical = Categorical(probs, logits)
        self.temperature = temperature
        super().__init__(self._categorical.batch_shape, self._categorical.param_shape[-1:],
                         validate_args=validate_args)

    def expand(self, batch_shape: Any, _instance: Any = None) -> ExpRelaxedCategorical:
        new = self._get_checked_instance(ExpRelaxedCategorical, _instance)
        new.temperature = self.temperature
        new._categorical = self._categorical.expand(batch_shape)
        Distribution.__init__(new, Size(batch_shape), self.event_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    def _new(self, *args: Any, **kwargs: Any) -> Tensor:
        return self._categorical._new(*args, **kwargs)

    @property
    def param_shape(self) -> Size:
        return self._categorical.param_shape

    @property
    def logits(self) -> Tensor:
        return self._categorical.logits

    @property
    def probs(self) -> Tensor:
        return self._categorical.probs

    def rsample(self, sample_shape: Any = ()) -> Tensor:
        shape = self._extended_shape(sample_shape)
        uniforms = clamp_probs(torch.rand(shape, dtype=self.logits.dtype))
        gumbels = -((-(uniforms.log())).log())
        scores = (self.logits + gumbels) / self.temperature
        return scores - scores.logsumexp(dim=-1, keepdim=True)

    def log_prob(self, value: Any) -> Tensor:
        k = self._categorical._num_events
        if self._validate_args:
            self._validate_sample(value)
        logits, value = broadcast_all(self.logits, value)
        log_scale = (torch.full_like(self.temperature, float(k)).lgamma()
                     - self.temperature.log().mul(-(k - 1)))
        score = logits - value.mul(self.temperature)
        score = (score - score.logsumexp(dim=-1, keepdim=True)).sum(-1)
        return score + log_scale


class RelaxedOneHotCategorical(TransformedDistribution):
    arg_constraints = {"probs": constraints.simplex,  # noqa: RUF012
                       "logits": constraints.real_vector}
    support = constraints.simplex
    has_rsample = True
    base_dist: ExpRelaxedCategorical

    def __init__(self, temperature: Tensor, probs: Tensor | None = None,
                 logits: Tensor | None = None, validate_args: bool | None = None) -> None:
        super().__init__(ExpRelaxedCategorical(temperature, probs, logits,
                                               validate_args=validate_args),
                         ExpTransform(), validate_args=validate_args)

    def expand(self, batch_shape: Any, _instance: Any = None) -> RelaxedOneHotCategorical:
        new = self._get_checked_instance(RelaxedOneHotCategorical, _instance)
        return super().expand(batch_shape, _instance=new)  # type: ignore[return-value]

    @property
    def temperature(self) -> Tensor:
        return self.base_dist.temperature

    @property
    def logits(self) -> Tensor:
        return self.base_dist.logits

    @property
    def probs(self) -> Tensor:
        return self.base_dist.probs
