"""``torch.distributions.constraints``: the sets a parameter or a sample must lie in.

Each constraint's ``check(value)`` gives a bool tensor (one per event) built from ordinary
comparisons, and prints as PyTorch prints it (``GreaterThan(lower_bound=0.0)``): the
distributions' ``ValueError`` messages quote it.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .utils import torch

__all__ = ["Constraint", "MixtureSameFamilyConstraint", "boolean", "cat", "corr_cholesky",
           "dependent", "dependent_property", "greater_than", "greater_than_eq", "independent",
           "integer_interval", "interval", "half_open_interval", "is_dependent", "less_than",
           "lower_cholesky", "lower_triangular", "multinomial", "nonnegative",
           "nonnegative_integer", "one_hot", "positive", "positive_definite",
           "positive_integer", "positive_semidefinite", "real", "real_vector", "simplex",
           "square", "stack", "symmetric", "unit_interval"]


class Constraint:
    """A set of values; ``check`` tells, per event, whether a value lies in it."""

    is_discrete = False
    event_dim = 0

    def check(self, value: Any) -> Any:
        raise NotImplementedError

    def __repr__(self) -> str:
        return type(self).__name__[1:] + "()"


class _Dependent(Constraint):
    """A constraint that depends on other parameters: never checked."""

    def __init__(self, *, is_discrete: Any = NotImplemented,
                 event_dim: Any = NotImplemented) -> None:
        self._is_discrete = is_discrete
        self._event_dim = event_dim

    @property
    def is_discrete(self) -> bool:  # type: ignore[override]
        if self._is_discrete is NotImplemented:
            raise NotImplementedError(".is_discrete cannot be determined statically")
        return bool(self._is_discrete)

    @property
    def event_dim(self) -> int:  # type: ignore[override]
        if self._event_dim is NotImplemented:
            raise NotImplementedError(".event_dim cannot be determined statically")
        return int(self._event_dim)

    def __call__(self, *, is_discrete: Any = NotImplemented,
                 event_dim: Any = NotImplemented) -> _Dependent:
        return _Dependent(
            is_discrete=self._is_discrete if is_discrete is NotImplemented else is_discrete,
            event_dim=self._event_dim if event_dim is NotImplemented else event_dim)

    def check(self, x: Any) -> Any:
        raise ValueError("Cannot determine validity of dependent constraint")


def is_dependent(constraint: Any) -> bool:
    return isinstance(constraint, _Dependent)


class _DependentProperty(property, _Dependent):
    """A property that is also a dependent constraint (a distribution's ``support`` that
    depends on its parameters)."""

    def __init__(self, fn: Any = None, *, is_discrete: Any = NotImplemented,
                 event_dim: Any = NotImplemented) -> None:
        property.__init__(self, fn)
        self._is_discrete = is_discrete
        self._event_dim = event_dim

    def __call__(self, fn: Any) -> _DependentProperty:  # type: ignore[override]
        return _DependentProperty(fn, is_discrete=self._is_discrete, event_dim=self._event_dim)


class _IndependentConstraint(Constraint):
    def __init__(self, base_constraint: Constraint, reinterpreted_batch_ndims: int) -> None:
        self.base_constraint = base_constraint
        self.reinterpreted_batch_ndims = reinterpreted_batch_ndims

    @property
    def is_discrete(self) -> bool:  # type: ignore[override]
        return self.base_constraint.is_discrete

    @property
    def event_dim(self) -> int:  # type: ignore[override]
        return self.base_constraint.event_dim + self.reinterpreted_batch_ndims

    def check(self, value: Any) -> Any:
        result = self.base_constraint.check(value)
        n = self.reinterpreted_batch_ndims
        if result.dim() < n:
            raise ValueError(f"Expected value.dim() >= {self.event_dim} but got {value.dim()}")
        return result.reshape((*result.shape[:result.dim() - n], -1)).all(-1)

    def __repr__(self) -> str:
        return (f"{type(self).__name__[1:]}({self.base_constraint!r}, "
        f"{self.reinterpreted_batch_ndims})")


class _Boolean(Constraint):
    is_discrete = True

    def check(self, value: Any) -> Any:
        return (value == 0) | (value == 1)


class _OneHot(Constraint):
    is_discrete = True
    event_dim = 1

    def check(self, value: Any) -> Any:
        return ((value == 0) | (value == 1)).all(-1) & value.sum(-1).eq(1)


class _Bounded(Constraint):
    """A constraint with bounds, printed with their names."""

    _bounds: tuple[str, ...] = ()

    def __init__(self, *bounds: Any) -> None:
        for name, b in zip(self._bounds, bounds):
            setattr(self, name, b)

    def __repr__(self) -> str:
        args = ", ".join(f"{n}={getattr(self, n)}" for n in self._bounds)
        return f"{type(self).__name__[1:]}({args})"


class _IntegerInterval(_Bounded):
    is_discrete = True
    _bounds = ("lower_bound", "upper_bound")

    def check(self, value: Any) -> Any:
        return ((value % 1 == 0) & (self.lower_bound <= value)  # type: ignore[attr-defined]
        & (value <= self.upper_bound))  # type: ignore[attr-defined]


class _IntegerGreaterThan(_Bounded):
    is_discrete = True
    _bounds = ("lower_bound",)

    def check(self, value: Any) -> Any:
        return (value % 1 == 0) & (value >= self.lower_bound)  # type: ignore[attr-defined]


class _Real(Constraint):
    def check(self, value: Any) -> Any:
        return value == value          # NB: False for nan


class _GreaterThan(_Bounded):
    _bounds = ("lower_bound",)

    def check(self, value: Any) -> Any:
        return self.lower_bound < value  # type: ignore[attr-defined]


class _GreaterThanEq(_Bounded):
    _bounds = ("lower_bound",)

    def check(self, value: Any) -> Any:
        return self.lower_bound <= value  # type: ignore[attr-defined]


class _LessThan(_Bounded):
    _bounds = ("upper_bound",)

    def check(self, value: Any) -> Any:
        return value < self.upper_bound  # type: ignore[attr-defined]


class _Interval(_Bounded):
    _bounds = ("lower_bound", "upper_bound")

    def check(self, value: Any) -> Any:
        return ((self.lower_bound <= value)  # type: ignore[attr-defined]
        & (value <= self.upper_bound))  # type: ignore[attr-defined]


class _HalfOpenInterval(_Bounded):
    _bounds = ("lower_bound", "upper_bound")

    def check(self, value: Any) -> Any:
        return ((self.lower_bound <= value)  # type: ignore[attr-defined]
        & (value < self.upper_bound))  # type: ignore[attr-defined]


class _Simplex(Constraint):
    event_dim = 1

    def check(self, value: Any) -> Any:
        return (value >= 0).all(-1) & ((value.sum(-1) - 1).abs() < 1e-6)


class _LowerTriangular(Constraint):
    event_dim = 2

    def check(self, value: Any) -> Any:
        return (value.tril() == value).reshape((*value.shape[:-2], -1)).all(-1)


class _LowerCholesky(Constraint):
    event_dim = 2

    def check(self, value: Any) -> Any:
        lower = (value.tril() == value).reshape((*value.shape[:-2], -1)).all(-1)
        return lower & (value.diagonal(dim1=-2, dim2=-1) > 0).all(-1)


class _Square(Constraint):
    event_dim = 2

    def check(self, value: Any) -> Any:
        return torch.full(tuple(value.shape[:-2]), value.shape[-2] == value.shape[-1],
                          dtype=torch.bool)


class _Symmetric(_Square):
    def check(self, value: Any) -> Any:
        square = super().check(value)
        if not bool(square.all()):
            return square
        return torch.isclose(value, value.mT, atol=1e-6).all(-2).all(-1)


class _PositiveSemidefinite(_Symmetric):
    def check(self, value: Any) -> Any:
        sym = super().check(value)
        if not bool(sym.all()):
            return sym
        return torch.linalg.eigvalsh(value).ge(0).all(-1)


class _PositiveDefinite(_Symmetric):
    def check(self, value: Any) -> Any:
        sym = super().check(value)
        if not bool(sym.all()):
            return sym
        data = value.detach().numpy()
        ok = np.empty(data.shape[:-2], dtype=bool)
        for idx in np.ndindex(*data.shape[:-2]):
            try:
                np.linalg.cholesky(data[idx])
                ok[idx] = True
            except np.linalg.LinAlgError:
                ok[idx] = False
        return torch.from_numpy(ok)


class _CorrCholesky(Constraint):
    event_dim = 2

    def check(self, value: Any) -> Any:
        tol = torch.finfo(value.dtype).eps * value.size(-1) * 10   # PyTorch's fudge factor
        row_norm = torch.linalg.norm(value.detach(), dim=-1)
        unit_row_norm = (row_norm - 1.0).abs().le(tol).all(dim=-1)
        return _LowerCholesky().check(value) & unit_row_norm


class _Multinomial(Constraint):
    is_discrete = True
    event_dim = 1

    def __init__(self, upper_bound: Any) -> None:
        self.upper_bound = upper_bound

    def check(self, x: Any) -> Any:
        return (x >= 0).all(dim=-1) & (x.sum(dim=-1) <= self.upper_bound)


class MixtureSameFamilyConstraint(Constraint):
    """A mixture's support: the component's, checked on the value with a component dim."""

    def __init__(self, base_constraint: Constraint) -> None:
        self.base_constraint = base_constraint

    @property
    def is_discrete(self) -> bool:  # type: ignore[override]
        return self.base_constraint.is_discrete

    @property
    def event_dim(self) -> int:  # type: ignore[override]
        return self.base_constraint.event_dim

    def check(self, value: Any) -> Any:
        result = self.base_constraint.check(value.unsqueeze(-1 - self.event_dim))
        if value.dim() < self.event_dim:
            raise ValueError(f"Expected value.dim() >= {self.event_dim} but got {value.dim()}")
        keep = value.dim() - self.event_dim
        return result.reshape((*result.shape[:keep], -1)).all(-1)

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.base_constraint!r})"


class _Cat(Constraint):
    """Constraints applied to consecutive slices of ``dim`` (``lengths`` each, 1 by default)."""

    def __init__(self, cseq: Any, dim: int = 0, lengths: Any = None) -> None:
        self.cseq = list(cseq)
        self.lengths = list(lengths) if lengths is not None else [1] * len(self.cseq)
        self.dim = dim

    @property
    def is_discrete(self) -> bool:  # type: ignore[override]
        return any(c.is_discrete for c in self.cseq)

    @property
    def event_dim(self) -> int:  # type: ignore[override]
        return max(c.event_dim for c in self.cseq)

    def check(self, value: Any) -> Any:
        checks, start = [], 0
        for constr, length in zip(self.cseq, self.lengths):
            checks.append(constr.check(value.narrow(self.dim, start, length)))
            start = start + length
        return torch.cat(checks, self.dim)


class _Stack(Constraint):
    """Constraints applied to the successive entries of ``dim``."""

    def __init__(self, cseq: Any, dim: int = 0) -> None:
        self.cseq = list(cseq)
        self.dim = dim

    @property
    def is_discrete(self) -> bool:  # type: ignore[override]
        return any(c.is_discrete for c in self.cseq)

    @property
    def event_dim(self) -> int:  # type: ignore[override]
        dim = max(c.event_dim for c in self.cseq)
        return dim + 1 if self.dim + dim < 0 else dim

    def check(self, value: Any) -> Any:
        vs = [value.select(self.dim, i) for i in range(value.size(self.dim))]
        return torch.stack([c.check(v) for v, c in zip(vs, self.cseq)], self.dim)


dependent: Constraint = _Dependent()
dependent_property = _DependentProperty
independent = _IndependentConstraint
boolean: Constraint = _Boolean()
one_hot: Constraint = _OneHot()
nonnegative_integer: Constraint = _IntegerGreaterThan(0)
positive_integer: Constraint = _IntegerGreaterThan(1)
integer_interval = _IntegerInterval
real: Constraint = _Real()
real_vector: Constraint = independent(real, 1)
positive: Constraint = _GreaterThan(0.0)
nonnegative: Constraint = _GreaterThanEq(0.0)
greater_than = _GreaterThan
greater_than_eq = _GreaterThanEq
less_than = _LessThan
unit_interval: Constraint = _Interval(0.0, 1.0)
interval = _Interval
half_open_interval = _HalfOpenInterval
simplex: Constraint = _Simplex()
lower_triangular: Constraint = _LowerTriangular()
lower_cholesky: Constraint = _LowerCholesky()
square: Constraint = _Square()
symmetric: Constraint = _Symmetric()
positive_definite: Constraint = _PositiveDefinite()
positive_semidefinite: Constraint = _PositiveSemidefinite()
corr_cholesky: Constraint = _CorrCholesky()
multinomial = _Multinomial
cat = _Cat
stack = _Stack
