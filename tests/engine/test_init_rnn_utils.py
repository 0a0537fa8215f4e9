"""``torch.nn.init`` and ``torch.nn.utils.rnn`` checked against real PyTorch 2.13: initial values
bit for bit after the same seed (and the generator left in the same state), versions, errors and
warnings word for word; padding and packing sequences, and the recurrent layers over a
``PackedSequence``, their values, gradients and graphs node for node."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from ._support import Recorder, differential, fixed_parameters

pytestmark = pytest.mark.torch


def _bits(t: Any) -> str:
    """A tensor's values exactly (their float hex), for bit-for-bit comparison."""
    return " ".join(float(v).hex() for v in np.asarray(t.detach().numpy()).reshape(-1))


INITS = [
    "uniform_(t)", "uniform_(t, -2.0, 3.0)", "normal_(t)", "normal_(t, 1.0, 0.1)",
    "trunc_normal_(t)", "trunc_normal_(t, 0.0, 0.02)", "trunc_normal_(t, 0.5, 1.0, 1.0, 3.0)",
    "trunc_normal_(t, 0.0, 1.0, -0.2, 0.3)", "constant_(t, 0.3)", "ones_(t)", "zeros_(t)",
    "xavier_uniform_(t)", "xavier_uniform_(t, gain=calculate_gain('relu'))", "xavier_normal_(t)",
    "kaiming_uniform_(t)", "kaiming_uniform_(t, a=0.2, mode='fan_out')", "kaiming_normal_(t)",
    "kaiming_normal_(t, mode='FAN_OUT', nonlinearity='relu')", "sparse_(t2, 0.3)",
    "sparse_(t2, 0.5, std=1.0)", "eye_(t2)", "dirac_(t3)", "dirac_(t4, 2)", "dirac_(t5)",
]
SHAPES = {"t": (6, 5, 3), "t2": (5, 4), "t3": (3, 5, 3), "t4": (4, 2, 3, 3), "t5": (2, 2, 3, 3, 3)}


@pytest.mark.parametrize("call", INITS)
def test_an_initialiser_as_pytorch_bit_for_bit(call: str) -> None:
    """The values after ``manual_seed`` exactly, the version count, no graph, and the
    generator's state after (the next draw)."""
    def snippet(rec: Recorder) -> None:
        torch = rec.torch
        torch.manual_seed(7)
        name = call[call.index("(") + 1:].split(",")[0].rstrip(")")
        t = torch.empty(*SHAPES[name], requires_grad=True)
        ns = {name: t, **{k: getattr(torch.nn.init, k) for k in torch.nn.init.__all__}}
        out = eval(call, ns)
        rec.note("same tensor", out is t)
        rec.note("bits", _bits(t))
        rec.note("state", [t._version, t.requires_grad, t.grad_fn is None, t.is_leaf])
        rec.note("next draw", _bits(torch.rand(3)))
    differential(snippet)


def test_an_initialiser_with_its_own_generator_as_pytorch() -> None:
    def snippet(rec: Recorder) -> None:
        torch = rec.torch
        for call in ("kaiming_uniform_", "xavier_normal_", "trunc_normal_", "normal_"):
            g = torch.Generator().manual_seed(3)
            t = torch.empty(4, 5)
            getattr(torch.nn.init, call)(t, generator=g)
            rec.note(call, _bits(t))
            rec.note(f"{call} next", _bits(torch.rand(2, generator=g)))
    differential(snippet)


def test_orthogonal_as_pytorch() -> None:
    """orthogonal_ draws PyTorch's normal values; its QR is numpy's LAPACK (values to 1e-6)."""
    def snippet(rec: Recorder) -> None:
        torch = rec.torch
        for shape in ((5, 7), (7, 5), (4, 3, 2), (0, 3)):
            torch.manual_seed(1)
            t = torch.empty(*shape, requires_grad=True)
            torch.nn.init.orthogonal_(t, gain=2.0)
            rec.note(f"{shape}", t)
            rec.note(f"{shape} version", t._version)
            rec.note(f"{shape} next draw", _bits(torch.rand(2)))
            flat = t.detach().reshape(shape[0], int(np.prod(shape[1:])))
            rec.note(f"{shape} gram", (flat @ flat.t()).diagonal())
    differential(snippet)


def test_calculate_gain_as_pytorch() -> None:
    def snippet(rec: Recorder) -> None:
        gain = rec.torch.nn.init.calculate_gain
        for name in ("linear", "conv1d", "conv2d", "conv3d", "conv_transpose1d",
                     "conv_transpose2d", "conv_transpose3d", "sigmoid", "tanh", "relu",
                     "leaky_relu", "selu"):
            rec.note(name, repr(gain(name)))
        for param in (0.2, 1, 0):
            rec.note(f"leaky_relu {param}", repr(gain("leaky_relu", param)))
        for args in (("gelu",), ("leaky_relu", True), ("leaky_relu", "0.1"), ("Tanh",)):
            rec.attempt(f"gain{args}", lambda args=args: gain(*args))
    differential(snippet)


def test_the_initialisers_errors_and_warnings_as_pytorch() -> None:
    def snippet(rec: Recorder) -> None:
        torch = rec.torch
        init = torch.nn.init
        one_d = torch.empty(3)
        for name, args in (("kaiming_normal_", ()), ("kaiming_uniform_", ()),
                           ("xavier_uniform_", ()), ("xavier_normal_", ()),
                           ("orthogonal_", ()), ("eye_", ()), ("dirac_", ()),
                           ("sparse_", (0.1,))):
            rec.attempt(f"{name} of a 1-d tensor",
                        lambda name=name, args=args: getattr(init, name)(one_d, *args))
        rec.attempt("mode", lambda: init.kaiming_normal_(torch.empty(3, 3), mode="fan"))
        rec.attempt("nonlinearity", lambda: init.kaiming_uniform_(torch.empty(3, 3),
                                                                   nonlinearity="swish"))
        rec.attempt("groups", lambda: init.dirac_(torch.empty(3, 3, 3), 2))
        rec.attempt("zero elements", lambda: init.kaiming_normal_(torch.empty(0, 3)).shape)
        rec.attempt("zero elements uniform",
                    lambda: init.kaiming_uniform_(torch.empty(3, 0)).shape)
        rec.attempt("far mean", lambda: init.trunc_normal_(torch.empty(3), mean=10.0).shape)
    differential(snippet)


DEPRECATED = ["uniform", "normal", "constant", "eye", "dirac", "xavier_uniform",
              "xavier_normal", "kaiming_uniform", "kaiming_normal", "orthogonal", "sparse"]


def test_the_deprecated_initialisers_warn_as_pytorch() -> None:
    args = {"constant": (0.5,), "sparse": (0.2,)}
    shapes = {"dirac": (2, 2, 3)}

    def snippet(rec: Recorder) -> None:
        torch = rec.torch
        for name in DEPRECATED:
            torch.manual_seed(0)
            t = torch.empty(*shapes.get(name, (3, 4)))
            fn = getattr(torch.nn.init, name)
            rec.note(f"{name} name", fn.__name__)
            # NB: orthogonal's QR is within an ulp of PyTorch's, not bit for bit
            show = (lambda v: v) if name == "orthogonal" else _bits
            rec.attempt(name, lambda fn=fn, t=t, name=name, show=show:
                        show(fn(t, *args.get(name, ()))))
    differential(snippet)


def test_a_module_reset_with_the_initialisers_as_pytorch() -> None:
    """The common idiom: re-initialise a model's weights in ``apply``."""
    def snippet(rec: Recorder) -> None:
        torch = rec.torch
        nn = torch.nn
        torch.manual_seed(0)
        model = nn.Sequential(nn.Linear(4, 6), nn.ReLU(), nn.Linear(6, 2))

        def reset(m: Any) -> None:
            if isinstance(m, nn.Linear):
                nn.init.kaiming_normal_(m.weight, nonlinearity="relu")
                nn.init.trunc_normal_(m.bias, std=0.02)
        model.apply(reset)
        for name, p in model.named_parameters():
            rec.note(name, _bits(p))
            rec.note(f"{name} version", p._version)
        out = model(torch.ones(3, 4)).sum()
        out.backward()
        rec.grad("grads", **dict(model.named_parameters()))
    differential(snippet)


# -- torch.nn.utils.rnn ------------------------------------------------------------------------
def _seqs(torch: Any) -> list[Any]:
    return [torch.tensor(np.sin(np.arange(n * 2) + n).reshape(n, 2).tolist(), requires_grad=True)
            for n in (3, 1, 2)]


def _weights(torch: Any, t: Any) -> Any:
    return torch.arange(t.numel()).view(t.shape).float().cos()


@pytest.mark.parametrize("batch_first", [False, True])
@pytest.mark.parametrize("side", ["right", "left"])
def test_pad_sequence_as_pytorch(batch_first: bool, side: str) -> None:
    def snippet(rec: Recorder) -> None:
        torch = rec.torch
        seqs = _seqs(torch)
        out = torch.nn.utils.rnn.pad_sequence(seqs, batch_first=batch_first, padding_value=0.5,
                                              padding_side=side)
        rec.note("out", out)
        rec.graph("graph", out=out, **{f"s{i}": s for i, s in enumerate(seqs)})
        (out * _weights(torch, out)).sum().backward()
        rec.grad("grads", **{f"s{i}": s for i, s in enumerate(seqs)})
    differential(snippet)


@pytest.mark.parametrize("batch_first", [False, True])
@pytest.mark.parametrize("enforce_sorted", [True, False])
def test_pack_and_pad_packed_as_pytorch(batch_first: bool, enforce_sorted: bool) -> None:
    def snippet(rec: Recorder) -> None:
        torch = rec.torch
        R = torch.nn.utils.rnn
        x = torch.tensor(np.cos(np.arange(18)).reshape(3, 3, 2).tolist(), requires_grad=True)
        lengths = [3, 2, 1] if enforce_sorted else [2, 3, 1]
        pk = R.pack_padded_sequence(x, lengths, batch_first=batch_first,
                                    enforce_sorted=enforce_sorted)
        rec.note("fields", list(pk))
        rec.graph("packed", data=pk.data, x=x)
        node = pk.data.grad_fn
        rec.note("pack saved", [node._saved_batch_first, list(node._saved_input_sym_sizes),
                                node._saved_result1])
        out, lengths_out = R.pad_packed_sequence(pk, batch_first=batch_first,
                                                 padding_value=-1.0, total_length=4)
        rec.note("padded", [out, lengths_out])
        rec.graph("padded graph", out=out, x=x)
        (out * _weights(torch, out)).sum().backward()
        rec.grad("grads", x=x)
    differential(snippet)


def test_pack_sequence_and_unpacking_as_pytorch() -> None:
    def snippet(rec: Recorder) -> None:
        torch = rec.torch
        R = torch.nn.utils.rnn
        seqs = _seqs(torch)
        for enforce in (False, True):
            rec.attempt(f"pack {enforce}",
                        lambda enforce=enforce: list(R.pack_sequence(seqs, enforce)))
        pk = R.pack_sequence(seqs, enforce_sorted=False)
        rec.graph("graph", data=pk.data, **{f"s{i}": s for i, s in enumerate(seqs)})
        rec.note("unpacked", R.unpack_sequence(pk))
        padded, lengths = R.pad_packed_sequence(pk)
        unpadded = R.unpad_sequence(padded, lengths)
        rec.note("unpadded", unpadded)
        rec.graph("unpadded graph", first=unpadded[0], **{f"s{i}": s for i, s in enumerate(seqs)})
        rec.note("padded version", padded._version)
        rec.attempt("unpad a leaf", lambda: R.unpad_sequence(torch.ones(3, 2, requires_grad=True),
                                                             torch.tensor([3, 1])))
        rec.note("invert", [R.invert_permutation(torch.tensor([2, 0, 3, 1])),
                            R.invert_permutation(None)])
        (pk.data * _weights(torch, pk.data)).sum().backward()
        rec.grad("grads", **{f"s{i}": s for i, s in enumerate(seqs)})
    differential(snippet)


def test_packed_sequence_object_as_pytorch() -> None:
    def snippet(rec: Recorder) -> None:
        torch = rec.torch
        R = torch.nn.utils.rnn
        ps = R.PackedSequence(torch.ones(3, 2), torch.tensor([2, 1]))
        rec.note("repr", repr(ps))
        rec.note("fields", [type(ps).__name__, ps._fields, isinstance(ps, tuple), len(ps)])
        pk = R.pack_padded_sequence(torch.ones(2, 3, 1), [1, 2, 2], enforce_sorted=False)
        d = pk.double()
        rec.note("double", [d.data.dtype, d.sorted_indices, d.unsorted_indices,
                            type(d).__name__, pk.to("cpu") is pk, pk.to(torch.float32) is pk])
        rec.note("to", [pk.to(torch.float64).data.dtype, pk.to(dtype=torch.float16).data.dtype,
                        pk.long().data.dtype, pk.float() is pk, pk.is_cuda, pk.is_pinned()])
        rec.note("pair", list(R.PackedSequence((torch.ones(3, 2), torch.tensor([2, 1])))))
    differential(snippet)


def test_padding_and_packing_errors_as_pytorch() -> None:
    def snippet(rec: Recorder) -> None:
        torch = rec.torch
        R = torch.nn.utils.rnn
        x = torch.ones(3, 3, 2)
        cases = {
            "empty": lambda: R.pad_sequence([]),
            "not iterable": lambda: R.pad_sequence(5),
            "side": lambda: R.pad_sequence([torch.ones(2, 3)], padding_side="up"),
            "0-d": lambda: R.pad_sequence([torch.tensor(1.0)]),
            "trailing": lambda: R.pad_sequence([torch.ones(2, 3), torch.ones(1, 2)]),
            "a tensor": lambda: R.pad_sequence(torch.ones(2, 3)),
            "ints": lambda: R.pad_sequence([torch.ones(2, dtype=torch.int64),
                                            torch.ones(1, dtype=torch.int64)], padding_value=-1),
            "int32 lengths": lambda: R.pack_padded_sequence(
                x, torch.tensor([3, 2, 1], dtype=torch.int32)).batch_sizes,
            "unsorted": lambda: R.pack_padded_sequence(x, [3, 1, 2]),
            "zero length": lambda: R.pack_padded_sequence(x, [3, 0, 0]),
            "batch": lambda: R.pack_padded_sequence(x, [3, 2]),
            "2-d lengths": lambda: R.pack_padded_sequence(x, torch.tensor([[3, 2, 1]])),
            "float lengths": lambda: R.pack_padded_sequence(x, torch.tensor([3.0, 2.0, 1.0])
                                                            ).batch_sizes,
            "empty input": lambda: R.pack_padded_sequence(torch.ones(0, 3, 2), [1, 1, 1]),
            "total length": lambda: R.pad_packed_sequence(R.pack_padded_sequence(x, [3, 2, 1]),
                                                          total_length=2),
            "empty pack": lambda: R.pack_sequence([]),
        }
        for label, fn in cases.items():
            rec.attempt(label, fn)
    differential(snippet)


RNNS = ["LSTM(3, 4)", "GRU(3, 4)", "RNN(3, 4)", "RNN(3, 4, nonlinearity='relu')",
        "LSTM(3, 4, num_layers=2, bidirectional=True)", "GRU(3, 4, num_layers=2)",
        "RNN(3, 4, bidirectional=True, bias=False)", "LSTM(3, 4, proj_size=2)",
        "GRU(3, 4, bidirectional=True)", "LSTM(3, 4, batch_first=True)"]


@pytest.mark.parametrize("spec", RNNS)
@pytest.mark.parametrize("lengths", [(4, 2, 1), (2, 4, 3), (3, 3, 3)])
def test_a_recurrent_layer_over_a_packed_sequence_as_pytorch(spec: str,
                                                             lengths: tuple[int, ...]) -> None:
    """The packed output and each sequence's final states, the graphs of both (PyTorch's packed
    layers; a float32 LSTM over equal lengths is its fused node), and the gradients."""
    with_hx = lengths == (2, 4, 3)

    def snippet(rec: Recorder) -> None:
        torch = rec.torch
        m = eval(f"torch.nn.{spec}", {"torch": torch})
        fixed_parameters(torch, m)
        lstm = spec.startswith("LSTM")
        x = torch.tensor(np.sin(np.arange(36) * 0.7).reshape(4, 3, 3).tolist(),
                         requires_grad=True)
        pk = torch.nn.utils.rnn.pack_padded_sequence(x, list(lengths),
                                                     enforce_sorted=lengths[0] >= lengths[1])
        hx: Any = None
        leaves = {"x": x, **dict(m.named_parameters())}
        if with_hx:
            layers = m.num_layers * (2 if m.bidirectional else 1)
            h0 = torch.tensor(np.cos(np.arange(layers * 3 * m.hidden_size)).reshape(
                layers, 3, m.hidden_size)[..., :(m.proj_size or m.hidden_size)].tolist(),
                requires_grad=True)
            c0 = torch.full((layers, 3, m.hidden_size), 0.3, requires_grad=True)
            hx = (h0, c0) if lstm else h0
            leaves.update(h0=h0, c0=c0)
        out, h = m(pk, hx)
        rec.note("packed", [out.batch_sizes, out.sorted_indices, out.unsorted_indices])
        h_n, c_n = h if lstm else (h, None)
        rec.note("values", [out.data, h_n] + ([c_n] if lstm else []))
        rec.graph("graph", data=out.data, h_n=h_n, **leaves)
        loss = (out.data * _weights(torch, out.data)).sum() + (h_n * h_n).sum()
        if lstm:
            loss = loss + c_n.sum()
        loss.backward()
        rec.grad("grads", **leaves)
    differential(snippet)


def test_a_packed_batch_through_an_lstm_and_back_as_pytorch() -> None:
    """The usual pipeline: pad, pack, LSTM, unpack, a loss on the padded output."""
    def snippet(rec: Recorder) -> None:
        torch = rec.torch
        R = torch.nn.utils.rnn
        torch.manual_seed(0)
        m = torch.nn.LSTM(2, 3, batch_first=True)
        seqs = _seqs(torch)
        padded = R.pad_sequence(seqs, batch_first=True)
        pk = R.pack_padded_sequence(padded, [3, 1, 2], batch_first=True, enforce_sorted=False)
        out, (h, c) = m(pk)
        unpacked, lengths = R.pad_packed_sequence(out, batch_first=True)
        rec.note("out", [unpacked, lengths, h, c])
        loss = unpacked.pow(2).sum() + h.sum()
        loss.backward()
        rec.grad("grads", **{f"s{i}": s for i, s in enumerate(seqs)}, **dict(m.named_parameters()))
    differential(snippet)


def test_packed_recurrent_errors_as_pytorch() -> None:
    def snippet(rec: Recorder) -> None:
        torch = rec.torch
        R = torch.nn.utils.rnn
        gru = torch.nn.GRU(3, 4)
        rec.attempt("3-d data", lambda: gru(R.PackedSequence(torch.ones(3, 2, 3),
                                                             torch.tensor([2, 1]))))
        rec.attempt("hidden", lambda: gru(R.PackedSequence(torch.ones(3, 3), torch.tensor([2, 1])),
                                          torch.zeros(1, 3, 4)))
        rec.attempt("dtype", lambda: gru(R.PackedSequence(torch.ones(3, 3).double(),
                                                          torch.tensor([2, 1]))))
        rec.attempt("size", lambda: torch.nn.RNN(2, 4)(R.PackedSequence(torch.ones(3, 3),
                                                                        torch.tensor([2, 1]))))
    differential(snippet)


# -- torch.utils.checkpoint ---------------------------------------------------------------------
@pytest.mark.parametrize("reentrant", [False, True])
def test_checkpoint_as_pytorch(reentrant: bool) -> None:
    """Values, gradients and graphs of a checkpointed function and of checkpoint_sequential
    (dropout inside: the recomputation replays the forward's generator state)."""
    def snippet(rec: Recorder) -> None:
        torch = rec.torch
        ck = torch.utils.checkpoint
        torch.manual_seed(0)
        a = torch.randn(4, 3, requires_grad=True)
        lin = torch.nn.Linear(3, 3)

        def f(x: Any, k: float) -> Any:
            return torch.nn.functional.dropout(lin(x).tanh(), 0.5, True) * k
        out = ck.checkpoint(f, a, 2.0, use_reentrant=reentrant)
        rec.note("out", out)
        rec.graph("graph", out=out, a=a, weight=lin.weight, bias=lin.bias)
        rec.attempt("backward", lambda: (out * out).sum().backward())
        rec.grad("grads", a=a, weight=lin.weight, bias=lin.bias)
        rec.note("next draw", _bits(torch.rand(2)))
        seq = torch.nn.Sequential(torch.nn.Linear(3, 4), torch.nn.ReLU(), torch.nn.Dropout(0.3),
                                  torch.nn.Linear(4, 2), torch.nn.Sigmoid())
        out2 = ck.checkpoint_sequential(seq, 2, a, use_reentrant=reentrant)
        rec.note("sequential", out2)
        rec.graph("sequential graph", out=out2, a=a)
        out2.sum().backward()
        rec.grad("sequential grads", a=a, **dict(seq.named_parameters()))
        rec.note("next draw after", _bits(torch.rand(2)))
    differential(snippet)


def test_checkpoint_arguments_as_pytorch() -> None:
    def snippet(rec: Recorder) -> None:
        torch = rec.torch
        ck = torch.utils.checkpoint
        x = torch.ones(2, requires_grad=True)
        rec.attempt("no use_reentrant", lambda: ck.checkpoint(torch.sin, x))
        rec.attempt("sequential no use_reentrant",
                    lambda: ck.checkpoint_sequential([torch.sin, torch.cos], 1, x))
        rec.attempt("kwargs reentrant",
                    lambda: ck.checkpoint(torch.sin, x, use_reentrant=True, foo=1))
        rec.attempt("kwargs sequential",
                    lambda: ck.checkpoint_sequential([torch.sin], 1, x, use_reentrant=False,
                                                     foo=1))
        rec.attempt("debug reentrant",
                    lambda: ck.checkpoint(torch.sin, x, use_reentrant=True, debug=True))
        rec.attempt("no input needs grad",
                    lambda: ck.checkpoint(torch.sin, torch.ones(2), use_reentrant=True))
        rec.attempt("kwargs passed on", lambda: ck.checkpoint(
            lambda t, scale: t * scale, x, use_reentrant=False, scale=3.0))
        y = ck.checkpoint(torch.sin, x, use_reentrant=True)
        rec.attempt("grad through reentrant", lambda: torch.autograd.grad(y.sum(), x))
        y = ck.checkpoint(torch.sin, x, use_reentrant=True)
        rec.attempt("backward inputs", lambda: y.sum().backward(inputs=[x]))
        y = ck.checkpoint(torch.sin, x, use_reentrant=False)
        rec.attempt("grad through non-reentrant", lambda: torch.autograd.grad(y.sum(), x))
        rec.attempt("backward without grad", lambda: ck.checkpoint(
            torch.sin, torch.ones(2), use_reentrant=True).sum().backward())
    differential(snippet)


def test_a_script_imports_the_modules_by_pytorchs_names() -> None:
    """``import torch.nn.utils.rnn`` and ``torch.utils.checkpoint`` give the engine's modules
    while a script runs on it."""
    import importlib

    from graphviz_autograd.torch_alias import native_torch
    with native_torch():
        rnn = importlib.import_module("torch.nn.utils.rnn")
        ck = importlib.import_module("torch.utils.checkpoint")
        init = importlib.import_module("torch.nn.init")
        assert rnn.__name__ == "graphviz_autograd.torch.nn.utils_rnn"
        assert ck.__name__ == "graphviz_autograd.torch.utils.checkpoint"
        assert init.trunc_normal_.__module__ == "graphviz_autograd.torch.nn.init"
        import torch
        assert torch.nn.utils.rnn is rnn and torch.utils.checkpoint is ck
