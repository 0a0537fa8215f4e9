"""``torch.special``: PyTorch's aliases of the engine's special functions (the same nodes)."""

from __future__ import annotations

from typing import Any

from ..engine.mathfns import i0
from ..engine.mathfns import igamma as gammainc
from ..engine.mathfns import igammac as gammaincc
from ..engine.mathfns import special_i1 as i1
from ..engine.pointwise_extra import polygamma, xlogy
from ..engine.special_more import (
    NO_GRAD,
    POLYNOMIALS,
    entr,
    erfcx,
    i0e,
    i1e,
    log_ndtr,
    ndtr,
    ndtri,
    round,
    xlog1py,
    zeta,
)
from ..engine.tensor import Tensor

__all__ = ["erf", "erfc", "erfinv", "gammaln", "digamma", "psi", "polygamma", "xlogy", "sinc",
           "expit", "logit", "log1p", "expm1", "exp2", "logsumexp", "softmax", "log_softmax",
           "i0", "i1", "gammainc", "gammaincc", "multigammaln", "ndtr", "ndtri", "log_ndtr",
           "erfcx", "entr", "i0e", "i1e", "xlog1py", "zeta", "round", *NO_GRAD, *POLYNOMIALS]


def _method(name: str) -> Any:
    def f(input: Tensor, *args: Any, **kw: Any) -> Any:
        return getattr(input, name)(*args, **kw)
    f.__name__ = name
    return f


erf = _method("erf")
erfc = _method("erfc")
erfinv = _method("erfinv")
gammaln = _method("lgamma")
digamma = psi = _method("digamma")
sinc = _method("sinc")
expit = _method("sigmoid")
logit = _method("logit")
log1p = _method("log1p")
expm1 = _method("expm1")
exp2 = _method("exp2")
logsumexp = _method("logsumexp")
softmax = _method("softmax")
log_softmax = _method("log_softmax")


def multigammaln(input: Tensor, p: int) -> Tensor:
    """``torch.special.multigammaln``: ``torch.mvlgamma`` (MvlgammaBackward0)."""
    from . import mvlgamma
    return mvlgamma(input, p)


globals().update(NO_GRAD)
globals().update(POLYNOMIALS)
