"""PyTorch's argument errors, word for word: wrong types, missing, extra and unknown arguments
of ``torch.*`` functions and ``Tensor`` methods (engine/signatures.py), and calls made with
PyTorch's keyword names."""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np
import pytest

import graphviz_autograd.torch as ours
from graphviz_autograd.engine import signatures

from ._support import real_torch

pytestmark = pytest.mark.torch

# each is evaluated with torch, t (a 2x2 float tensor), i (an int64 index tensor) and np
WRONG_CALLS = [
    # a wrong type, by position and by keyword
    "torch.add(t, 'a')", "t.add('a')", "torch.add(t, other='a')", "t.sub([1])",
    "torch.mul(t, None)", "torch.exp(2.0)", "torch.exp('a')", "torch.relu(np.ones(3))",
    "torch.add(t, np.ones(2))", "t.add(np.ones(2))", "torch.sigmoid([1.0])", "torch.tanh(None)",
    "torch.mm(t, 1)", "t.mm([[1.0]])", "torch.matmul(t, 'a')", "torch.bmm(t, 2)",
    "torch.maximum(t, 'a')", "torch.add(t, 'a', alpha=2)",
    "torch.cat((t, [1]))", "torch.cat([t, 1.0])", "torch.cat(t)", "torch.stack(t)",
    "torch.stack([t, None])", "torch.stack((t, t), dim='a')", "torch.cat((t, t), 0.5)",
    # sizes and shapes
    "torch.zeros(2, 'a')", "torch.randn(2, 3.0)", "torch.zeros((2, 2.0))", "torch.ones(2.0)",
    "torch.rand(2, None)", "torch.zeros(2, dtype=1)", "t.reshape(3.0)", "t.reshape((2, 2.0))",
    "t.reshape(2, 'a')", "torch.reshape(t, 4.0)", "t.view(2, 2.0)", "t.expand(2, 'a')",
    "t.permute(0, 1.0)", "t.repeat(2, 1.5)", "t.new_zeros(2, 'a')",
    # dims
    "t.transpose(0, 'a')", "torch.transpose(t, 0.0, 1)", "t.unsqueeze(1.0)",
    "torch.unsqueeze(t, 'a')", "t.softmax('a')", "t.softmax(dim=0.5)", "torch.softmax(t, 'a')",
    "t.log_softmax(1.0)", "t.select(0, 'a')", "t.flatten(0.0)",
    "t.index_select(0, [0])", "torch.index_select(t, 0, 1)", "t.gather(0, [0])",
    "t.gather('a', i)", "t.cumsum('a')", "t.chunk(2.0)",
    # too many, missing and unknown arguments
    "torch.exp(t, 1)", "t.exp(1)", "t.exp(bogus=1)", "t.tanh(t)", "torch.add(t, t, t, t)",
    "torch.cat([t], 0, 1)", "t.index_select(0, i, i)", "t.gather(0, i, True, 1)",
    "torch.add(t, foo=1)", "torch.exp()", "t.mm()", "torch.relu()", "torch.exp(input=t, foo=1)",
    "t.transpose(0, dim1=1, dim0=1)", "t.unsqueeze()", "torch.matmul(input=t)",
    "torch.add(t, t, alpha='x')", "t.add(t, alpha=None)", "torch.addcmul(t, t, t, value='x')",
    "t.mm(t, mat2=t)", "t.dim(0)", "t.item(1)", "t.detach(True)", "t.numel(bogus=1)",
    "torch.clone(t, 0)", "torch.cumsum(t, 0, 0)", "t.select(0, 0, 0)", "torch.ones_like(t, 0)",
    "t.eq('a')", "torch.eq(t, 'a')", "t.lt(None)", "torch.addcmul(t, 'x')",
    "torch.addcmul(t, t, t, foo=1)", "torch.addmv(t)",
    # several signatures: PyTorch lists them ("invalid combination of arguments")
    "t.sum('a')", "torch.sum(t, 'a')", "t.mean(dim='a')", "t.mean(1.0)", "t.view(2.0)",
    "t.view()", "t.view(None)", "t.max('a')", "t.max(dim=1.5)", "torch.max(t, 'a', foo=1)",
    "t.clamp('a')", "t.clamp(1, 'a')", "t.clamp(min='a')", "torch.where(t > 0, t, 'a')",
    "torch.where(t > 0, 1, 'a')", "t.masked_fill(t > 0, 'a')", "t.masked_fill(t > 0, value='a')",
    "t.masked_fill(value='a', mask=1)", "t.narrow(0, 0, 'a')", "torch.mm(t)",
    "torch.addmm(t, t, t, beta='x')", "torch.clamp_min(t, 'a')", "t.sum(foo=1, bar=2)",
    "t.sum(1, 2, 3)", "torch.movedim(t, (0,), 'a')", "t.sum(axis='a')",
    "torch.cat([t], axis=0.5)", "t.mean(axis=0, keepdims='a')", "t.sum(dim=(0, 1.0))",
    "t.mean([0, 1.5], True)", "torch.sum(t, (0, 'a'))", "t.view((2, 2.0))", "t.std((0, 1.0))",
]

# each must give equal results on both
KEYWORD_CALLS = [
    "torch.add(t, other=t)", "torch.add(input=t, other=t)", "t.add(other=t)",
    "t.add(other=t, alpha=2)", "torch.sub(input=t, other=t, alpha=0.5)", "t.sub(other=2.0)",
    "t.subtract(other=t)", "torch.add(2, t)", "torch.mul(3, other=t)",
    "torch.subtract(input=t, other=t)", "t.mul(other=3)",
    "torch.multiply(input=t, other=t)", "t.div(other=t)", "t.divide(other=2.0)",
    "torch.true_divide(input=t, other=t)", "t.pow(exponent=2)", "torch.pow(input=t, exponent=2)",
    "t.fmod(other=1.5)", "t.remainder(other=1.5)", "torch.remainder(input=t, other=1.5)",
    "t.floor_divide(other=2)", "t.clamp_min(min=0.5)", "torch.clamp_max(input=t, max=0.5)",
    "t.mm(mat2=t)", "torch.mm(input=t, mat2=t)", "torch.matmul(input=t, other=t)",
    "torch.exp(input=t)", "torch.relu(input=t)", "t.transpose(dim0=0, dim1=1)",
    "torch.transpose(input=t, dim0=0, dim1=1)", "t.unsqueeze(dim=0)",
    "torch.unsqueeze(input=t, dim=1)", "t.softmax(dim=1)", "torch.softmax(input=t, dim=0)",
    "t.index_select(dim=0, index=i)", "torch.index_select(input=t, dim=1, index=i)",
    "t.gather(dim=0, index=i.view(1, 1))", "torch.cat(tensors=(t, t), dim=1)",
    "torch.stack(tensors=[t, t], dim=0)", "t.tensor_split(indices=[1], dim=0)",
    "t.hsplit(indices=[1])", "t.narrow(dim=0, start=0, length=1)", "t.reshape(shape=(4,))",
    "torch.reshape(input=t, shape=(4,))", "t.cumsum(dim=0)", "torch.flatten(input=t)",
    "torch.where(condition=t > 1, input=t, other=t)", "torch.maximum(input=t, other=t)",
    "t.masked_fill(mask=t > 1, value=0.0)", "t.expand(size=(2, 2))",
    # numpy's names, which PyTorch's parser takes too
    "t.sum(axis=0)", "t.sum(axis=0, keepdims=True)", "torch.sum(t, axis=1)", "t.mean(axis=0)",
    "t.max(axis=0)", "torch.cat([t, t], axis=0)", "torch.stack([t, t], axis=1)",
    "t.softmax(axis=0)", "torch.softmax(t, axis=1)", "torch.add(x=t, other=t)",
    "torch.add(x1=t, x2=t)", "t.argmax(axis=0)", "t.std(axis=0)", "t.unsqueeze(axis=0)",
    "t.squeeze(axis=0)", "t.cumsum(axis=0)", "t.amax(axis=0)", "t.all(axis=0)",
    "torch.exp(x=t)", "torch.abs(a=t)", "t.prod(axis=0)", "t.logsumexp(axis=0)",
    "t.var(axis=0, keepdims=True)", "torch.min(t, axis=0)", "t.sort(axis=0)",
]


def _outcome(torch: Any, code: str) -> tuple[str, Any]:
    t = torch.tensor([[1.0, 2.0], [3.0, 4.0]])
    i = torch.tensor([1])
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            result = eval(code, {"torch": torch, "t": t, "i": i, "np": np})
    except Exception as e:
        return type(e).__name__, str(e)
    results = result if isinstance(result, tuple | list) else [result]
    # NB: values to float32's precision (the engine's exp may differ in the last bit)
    return "ok", [(str(r.dtype), np.round(np.asarray(r.tolist(), dtype=float), 5).tolist())
                  for r in results]


@pytest.mark.parametrize("code", WRONG_CALLS)
def test_wrong_call_raises_pytorchs_error(code: str) -> None:
    expected = _outcome(real_torch(), code)
    assert expected[0] == "TypeError", expected       # the list holds only PyTorch's refusals
    assert _outcome(ours, code) == expected


@pytest.mark.parametrize("code", KEYWORD_CALLS)
def test_keyword_call_gives_pytorchs_result(code: str) -> None:
    expected = _outcome(real_torch(), code)
    assert expected[0] == "ok", expected
    assert _outcome(ours, code) == expected


def _probes(sig: signatures.Signature, t: Any) -> list[tuple[list[Any], dict[str, Any]]]:
    good = {"Tensor": t, "Number": 1, "int": 0, "float": 1.0, "bool": True,
            "tuple of ints": (0,), "tuple of Tensors": [t, t]}
    pos = [p for p in sig.params if not p.kw_only]
    out: list[tuple[list[Any], dict[str, Any]]] = [([], {"bogus": 1})]
    for k, p in enumerate(pos):
        if any(q.type not in good for q in pos[:k]):
            break
        bad = 1.5 if p.type == "str" else "x"
        out.append(([good[q.type] for q in pos[:k]] + [bad], {}))
        out.append(([good[q.type] for q in pos[:k]], {p.name: bad}))
    if all(p.type in good for p in pos):
        out.append(([good[p.type] for p in pos] + [0], {}))
        out.append(([good[p.type] for p in pos], {"bogus": 1}))
    return out


def test_table_agrees_with_pytorch() -> None:
    """Every message the table gives for a wrong call is PyTorch's (a wrong type at each
    position or keyword, one argument too many, an unknown keyword), for every signature in it
    (as scripts/record_signatures.py keeps them)."""
    torch = real_torch()
    t = torch.ones(2, 2)
    functions, methods = signatures._tables()
    saved = signatures.Tensor, signatures._DTYPES
    signatures.Tensor, signatures._DTYPES = torch.Tensor, torch.dtype    # judged on torch's
    wrong = []
    try:
        for method, table in ((False, functions), (True, methods)):
            for name, sigs in table.items():
                fn = getattr(t if method else torch, name, None)
                if fn is None:
                    continue
                for sig in sigs:
                    for args, kw in _probes(sig, t):
                        text = signatures.check(name, tuple(args), kw, method)
                        if text is None:
                            continue
                        try:
                            with warnings.catch_warnings():
                                warnings.simplefilter("ignore")
                                fn(*args, **kw)
                            got = None
                        except Exception as e:
                            got = str(e)
                        if got and got.startswith("Tensor."):
                            # NB: PyTorch's own name for its method varies with its state
                            got = "TensorBase." + got[len("Tensor."):]
                        if got != text:
                            wrong.append((name, method, args, kw, got, text))
    finally:
        signatures.Tensor, signatures._DTYPES = saved
    assert not wrong, wrong[:5]


def test_success_path_is_unchecked() -> None:
    """A call that works is not held against its signature (the check runs after a failure)."""
    calls = []
    real = signatures.check

    def spy(*args: Any) -> Any:
        calls.append(args)
        return real(*args)
    signatures.check = spy          # type: ignore[assignment]
    try:
        t = ours.ones(2, 2)
        ours.add(t, t)
        t.add(t).tanh().softmax(0).transpose(0, 1).reshape(4)
        ours.cat([t, t])
    finally:
        signatures.check = real     # type: ignore[assignment]
    assert calls == []


def test_warnings_point_at_the_callers_line() -> None:
    """The argument check adds no frame a warning would be told of: it names the user's line."""
    t = ours.ones(1)
    for call in (lambda: t.var(), lambda: ours.var(t), lambda: ours.meshgrid(t, t),
                 lambda: t.index_reduce(0, ours.tensor([0]), t, "prod")):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            call()
        assert [w.filename for w in caught] == [__file__], [str(w.message) for w in caught]
