"""The distances and the less common losses (huber, kl_div, cosine_similarity, normalize,
pairwise_distance, the margin losses, poisson and gaussian nll, multilabel soft margin),
checked against real PyTorch 2.13: values, dtypes, graphs (node for node, saved states),
gradients, the graphs ``create_graph`` builds and a backward through them, in float32 and
float64; their warnings and argument errors word for word; the ``nn`` modules."""

from __future__ import annotations

from typing import Any

import pytest

from ._support import Recorder, differential

pytestmark = pytest.mark.torch

# NB: the inputs: x, y (2, 3) and v (3,) require grad; pm (2, 3) and t1 (2,) are +-1 targets,
# cls (2,) class indices, ml (2, 3) multilabel targets, prob (2, 3) probabilities, cnt (2, 3)
# counts, bits (2, 3) 0/1 targets, var (2, 3) positive and requiring grad, w3 (3,) weights
SETUP = """
x = torch.tensor([[0.3, -1.2, 2.6], [1.7, -0.4, 0.9]], dtype=dt, requires_grad=True)
y = torch.tensor([[-0.7, 1.1, 0.2], [0.8, -1.6, 1.4]], dtype=dt, requires_grad=True)
v = torch.tensor([0.6, -1.3, 2.2], dtype=dt, requires_grad=True)
var = torch.tensor([[0.5, 1.3, 0.2], [2.1, 0.7, 1.6]], dtype=dt, requires_grad=True)
pm = torch.tensor([[1.0, -1.0, 1.0], [-1.0, 1.0, 1.0]], dtype=dt)
t1 = torch.tensor([1.0, -1.0], dtype=dt)
cls = torch.tensor([2, 0])
ml = torch.tensor([[2, 0, -1], [1, -1, 0]])
prob = torch.tensor([[0.2, 0.5, 0.3], [0.6, 0.1, 0.3]], dtype=dt)
cnt = torch.tensor([[0.0, 1.0, 3.0], [2.0, 0.0, 5.0]], dtype=dt)
bits = torch.tensor([[1.0, 0.0, 1.0], [0.0, 1.0, 1.0]], dtype=dt)
w3 = torch.tensor([0.2, 1.0, 0.7], dtype=dt)
"""

LOSSES = [
    # huber
    "F.huber_loss(x, y)", "F.huber_loss(x, y, reduction='sum', delta=0.8)",
    "F.huber_loss(x, y, reduction='none', delta=1.5)", "F.huber_loss(x, pm)",
    "F.huber_loss(x, y, weight=prob)", "F.huber_loss(x, y, reduction='none', weight=prob)",
    # mse and l1 with weights: PyTorch's composite (a mean divides by the weights' sum)
    "F.mse_loss(x, y, weight=prob)", "F.mse_loss(x, y, reduction='sum', weight=var)",
    "F.mse_loss(x, y, reduction='none', weight=prob)", "F.l1_loss(x, y, weight=var)",
    "F.l1_loss(x, v, weight=prob)", "F.l1_loss(x, y, reduction='sum', weight=prob)",
    "nn.HuberLoss(delta=0.5)(x, y)",
    # kl_div
    "F.kl_div(x.log_softmax(1), prob, reduction='batchmean')",
    "F.kl_div(x.log_softmax(1), prob)", "F.kl_div(x, prob, reduction='sum')",
    "F.kl_div(x.log_softmax(1), prob.log(), reduction='batchmean', log_target=True)",
    "F.kl_div(x.log_softmax(1), y.log_softmax(1), reduction='none', log_target=True)",
    "F.kl_div(x, var, reduction='none')", "nn.KLDivLoss(reduction='batchmean')(x, prob)",
    "torch.xlogy(var, y.abs())",
    # distances
    "F.cosine_similarity(x, y)", "F.cosine_similarity(x, y, dim=0, eps=0.5)",
    "F.cosine_similarity(x, v)", "F.cosine_similarity(v, v.detach() * 2, dim=0)",
    "F.cosine_similarity(x, pm)", "nn.CosineSimilarity(dim=0)(x, y)",
    "torch.cosine_similarity(x, cls.view(2, 1) + 1)",
    "F.normalize(x)", "F.normalize(x, p=1, dim=0)", "F.normalize(v, dim=0)",
    "F.pairwise_distance(x, y)", "F.pairwise_distance(x, v)",
    "F.pairwise_distance(x, y, p=1, keepdim=True)", "F.pairwise_distance(v, v.detach() * 2)",
    "F.pairwise_distance(x, y, p=3.0)", "nn.PairwiseDistance(p=1.5)(x, y)",
    # the margin losses
    "F.soft_margin_loss(x, pm)", "F.soft_margin_loss(x, pm, reduction='none')",
    "F.soft_margin_loss(x, pm, reduction='sum')", "nn.SoftMarginLoss()(x, pm)",
    "F.margin_ranking_loss(v, v.detach().flip(0), torch.tensor([1.0, -1.0, 1.0], dtype=dt))",
    "F.margin_ranking_loss(x, y, pm, margin=0.5, reduction='none')",
    "nn.MarginRankingLoss(margin=0.2, reduction='sum')(x, y, pm)",
    "F.hinge_embedding_loss(x, pm)", "F.hinge_embedding_loss(x, pm, margin=2.0, reduction='sum')",
    "nn.HingeEmbeddingLoss(reduction='none')(x, pm)",
    "F.cosine_embedding_loss(x, y, t1)", "F.cosine_embedding_loss(x, y, t1, margin=-0.5)",
    "F.cosine_embedding_loss(v, v.detach() * 2, torch.tensor(1.0, dtype=dt))",
    "nn.CosineEmbeddingLoss(reduction='none', margin=-0.9)(x, y, t1)",
    "F.triplet_margin_loss(x, y, var)", "F.triplet_margin_loss(x, y, var, swap=True, p=1)",
    "F.triplet_margin_loss(x, y, var, margin=3.0, reduction='none')",
    "nn.TripletMarginLoss(margin=2.0, swap=True)(x, y, var)",
    "F.multilabel_soft_margin_loss(x, bits)",
    "F.multilabel_soft_margin_loss(x, bits, weight=w3, reduction='none')",
    "nn.MultiLabelSoftMarginLoss(reduction='sum')(x, bits)", "F.logsigmoid(x)",
    "nn.LogSigmoid()(v)",
    "F.multi_margin_loss(x, cls)", "F.multi_margin_loss(x, cls, p=2, margin=2.0, weight=w3)",
    "F.multi_margin_loss(x, cls, reduction='none')", "F.multi_margin_loss(v, torch.tensor(1))",
    "nn.MultiMarginLoss(weight=w3, reduction='sum')(x, cls)",
    "F.multilabel_margin_loss(x, ml)", "F.multilabel_margin_loss(x, ml, reduction='none')",
    "F.multilabel_margin_loss(v, torch.tensor([1, -1, 2]))",
    "nn.MultiLabelMarginLoss(reduction='sum')(x, ml)",
    # poisson and gaussian nll
    "F.poisson_nll_loss(x, cnt)", "F.poisson_nll_loss(var, cnt, log_input=False)",
    "F.poisson_nll_loss(var, cnt, log_input=False, full=True, reduction='sum')",
    "F.poisson_nll_loss(x, cnt, full=True, reduction='none')",
    "nn.PoissonNLLLoss(log_input=False)(var, cnt)",
    "F.gaussian_nll_loss(x, y, var)", "F.gaussian_nll_loss(x, y, var, full=True, reduction='sum')",
    "F.gaussian_nll_loss(x, y, 0.5)", "F.gaussian_nll_loss(x, y, var[:, :1])",
    "F.gaussian_nll_loss(x, y, var[:, 0], reduction='none', eps=0.3)",
    "nn.GaussianNLLLoss(full=True)(x, y, var)",
]

GRAD_INPUTS = ("x", "y", "v", "var")


def _snippet(expr: str, dtype: str, create_graph: bool) -> Any:
    def snippet(rec: Recorder) -> None:
        torch = rec.torch
        scope: dict[str, Any] = {"torch": torch, "F": torch.nn.functional, "nn": torch.nn,
                                 "dt": getattr(torch, dtype)}
        exec(SETUP, scope)
        box: list[Any] = []
        if not rec.attempt("loss", lambda: box.append(eval(expr, scope)) or box[-1]):
            return
        loss = box[0]
        rec.note("dtype", loss.dtype)
        leaves = {n: scope[n] for n in GRAD_INPUTS}
        rec.graph("forward", loss=loss, **leaves)
        used = [n for n in GRAD_INPUTS if n in expr]
        if not create_graph:
            rec.attempt("backward", lambda: loss.sum().backward())
            rec.grad("after", **{n: scope[n] for n in used})
            rec.graph("after backward", loss=loss, **leaves)
            return
        grads: list[Any] = []
        rec.attempt("grad", lambda: grads.extend(torch.autograd.grad(
            loss.sum(), [scope[n] for n in used], create_graph=True, allow_unused=True)))
        for name, g in zip(used, grads, strict=False):
            if g is not None:
                rec.note(f"d{name}", g)
                rec.graph(f"d{name} graph", g=g, **leaves)
        live = [g for g in grads if g is not None and g.requires_grad]
        if live:
            rec.attempt("backward of the gradients",
                        lambda: sum((g * g).sum() for g in live).backward())
            for n in used:
                # NB: a clone: PyTorch's zero second derivative (of sgn) cannot be listed
                t = scope[n]
                rec.note(f"second order: {n}.grad", None if t.grad is None else t.grad.clone())
    return snippet


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("expr", LOSSES)
def test_a_loss_as_pytorch(expr: str, dtype: str) -> None:
    differential(_snippet(expr, dtype, create_graph=False))


@pytest.mark.parametrize("expr", LOSSES)
def test_a_loss_with_create_graph_as_pytorch(expr: str) -> None:
    differential(_snippet(expr, "float64", create_graph=True))


ERRORS = [
    "F.huber_loss(x, v[:2])", "F.huber_loss(x, v)", "F.huber_loss(x, y, delta=0)",
    "F.huber_loss(cls, cls)", "F.huber_loss(x, y, weight=w3)",
    "F.huber_loss(x, y, reduction='bad')", "F.huber_loss(x, y, reduction='bad', weight=prob)",
    "F.kl_div(x, prob)", "F.kl_div(x, prob, reduction='bad')",
    "F.kl_div(x, prob, size_average=False)", "nn.KLDivLoss()(x, prob)",
    "F.soft_margin_loss(x, y)", "F.soft_margin_loss(x, t1)", "F.soft_margin_loss(x, w3)",
    "F.cosine_similarity(v, v)", "F.cosine_similarity(cls, cls, dim=0)",
    "F.cosine_similarity(x, w3[:2])", "F.pairwise_distance(x, w3[:2])",
    "F.margin_ranking_loss(x, y, t1)", "F.cosine_embedding_loss(x, y, pm)",
    "F.cosine_embedding_loss(v, v, t1)", "F.cosine_embedding_loss(x, y, t1[0])",
    "F.triplet_margin_loss(x, y, v)", "F.triplet_margin_loss(x, y, var, margin=0)",
    "F.multi_margin_loss(x, cls, p=3)", "F.multi_margin_loss(x, torch.tensor([3, 0]))",
    "F.multi_margin_loss(x, torch.tensor([1]))", "F.multi_margin_loss(v, cls)",
    "F.multi_margin_loss(x, cls.view(2, 1))", "F.multi_margin_loss(x[None], cls)",
    "F.multilabel_margin_loss(v, cls)", "F.multilabel_margin_loss(x[..., None], cls)",
    "F.multi_margin_loss(x, cls, weight=w3[:2])",
    "F.multi_margin_loss(x, cls, weight=var[0])", "F.multi_margin_loss(x, cls, weight=prob)",
    "F.multilabel_margin_loss(x, cls)", "F.multilabel_margin_loss(x, ml + 1)",
    "F.poisson_nll_loss(x, cnt, reduction='bad')", "F.gaussian_nll_loss(x, y, -1.0)",
    "F.gaussian_nll_loss(x, y, var[:1, :2])", "F.gaussian_nll_loss(x, y, var, reduction='bad')",
    "F.gaussian_nll_loss(x, y, var - 1)", "F.multilabel_soft_margin_loss(x, bits, reduction='bad')",
    "nn.TripletMarginLoss(margin=-1.0)", "nn.MultiMarginLoss(p=3)",
    "nn.MultiMarginLoss(weight=prob)", "F.margin_ranking_loss(x, y, pm, size_average=False)",
    # an unbatched input: its target is one class index
    "F.nll_loss(v, cls)", "F.cross_entropy(v, cls)", "F.nll_loss(v, cls[:1])",
    "F.cross_entropy(v, cls[0])",
    # modules given something that is not a module
    "nn.Sequential(1)", "nn.ModuleList([nn.ReLU(), 'relu'])", "nn.ModuleDict({'a': 1})",
    "nn.Linear(2, 2).add_module(1, nn.ReLU())", "nn.Linear(2, 2).add_module('a.b', nn.ReLU())",
    "nn.Linear(2, 2).add_module('', nn.ReLU())",
    "nn.Linear(2, 2).register_module('weight', nn.ReLU())",
    "nn.Linear(2, 2).add_module('act', None)",
    "F.mse_loss(x, y, weight=w3)", "F.mse_loss(x, y, reduction='bad', weight=prob)",
    "F.l1_loss(v, x, weight=prob)", "F.l1_loss(x, y, size_average=False, weight=prob)",
    # class-index targets: PyTorch's checks in its order (batch, dtype, unbatched size)
    "F.nll_loss(x, cls.int())", "F.nll_loss(x, cls.float())", "F.nll_loss(x, cls.byte())",
    "F.cross_entropy(x, torch.tensor([0, 1, 2]).int())", "F.nll_loss(v, cls.int())",
    "F.cross_entropy(x, cls.short(), label_smoothing=0.1)", "F.nll_loss(x, cls.bool())",
    # pools, pads and the functions PyTorch's parser checks
    "F.max_pool2d(x[None], (1, -1))", "F.max_pool2d(x[None], 1, dilation=0)",
    "F.max_pool2d(x[None], 1, stride=-1)", "F.max_pool3d(x[None, None], -1)",
    "F.avg_pool2d(x[None], (1, -2))", "F.pad(x, (1,))", "F.pad(x, (1, 1, 1, 1, 1, 1))",
    "F.pad(x, (1, 2, 3))", "F.relu([1.0])", "F.relu(x.detach().numpy())", "F.linear([1.0], x)",
    "F.relu(None, inplace=True)", "F.log_softmax(x)", "F.softmax(x)",
    "setattr(nn.Linear(3, 2), 'weight', x.detach())", "setattr(nn.Linear(3, 2), 'bias', [1.0])",
]


@pytest.mark.parametrize("expr", ERRORS)
def test_bad_arguments_as_pytorch(expr: str) -> None:
    """PyTorch's errors (types and texts) and warnings, or its result where it takes them."""
    def snippet(rec: Recorder) -> None:
        torch = rec.torch
        scope: dict[str, Any] = {"torch": torch, "F": torch.nn.functional, "nn": torch.nn,
                                 "dt": torch.float32}
        exec(SETUP, scope)
        rec.attempt("call", lambda: _shown(eval(expr, scope)))
    differential(snippet)


def _shown(value: Any) -> Any:
    return repr(value) if hasattr(value, "forward") else value


MODULES = ["nn.HuberLoss()", "nn.HuberLoss(reduction='sum', delta=0.5)", "nn.KLDivLoss()",
           "nn.KLDivLoss(reduction='batchmean', log_target=True)", "nn.CosineSimilarity()",
           "nn.CosineSimilarity(dim=0, eps=1e-6)", "nn.PairwiseDistance()",
           "nn.PairwiseDistance(p=1, keepdim=True)", "nn.SoftMarginLoss()",
           "nn.MarginRankingLoss(margin=0.5)", "nn.HingeEmbeddingLoss()",
           "nn.CosineEmbeddingLoss()", "nn.TripletMarginLoss(margin=2.0, p=1, swap=True)",
           "nn.MultiLabelSoftMarginLoss(weight=torch.ones(3))", "nn.PoissonNLLLoss()",
           "nn.GaussianNLLLoss(full=True)", "nn.MultiMarginLoss(weight=torch.ones(3))",
           "nn.MultiLabelMarginLoss()", "nn.LogSigmoid()", "nn.KLDivLoss(size_average=False)"]


@pytest.mark.parametrize("expr", MODULES)
def test_a_module_as_pytorch(expr: str) -> None:
    """The module's repr, its public attributes and its buffers."""
    def snippet(rec: Recorder) -> None:
        torch = rec.torch
        box: list[Any] = []
        if not rec.attempt("make", lambda: box.append(eval(expr, {"torch": torch,
                                                                  "nn": torch.nn})) or None):
            return
        m = box[0]
        rec.note("repr", repr(m))
        rec.note("attributes", {k: v for k, v in vars(m).items()
                                if not k.startswith("_") and k != "training"})
        rec.note("buffers", dict(m.named_buffers()))
        rec.note("children", list(dict(m.named_children())))
    differential(snippet)


NLL_ND = ["F.nll_loss(img.log_softmax(1), lab)", "F.cross_entropy(img, lab, reduction='none')",
          "F.cross_entropy(img, lab, weight=w2, ignore_index=1)",
          "F.nll_loss(img[:, :, 0], lab[:, 0])", "F.nll_loss(img[:, :, 0], lab[:, 0], "
          "reduction='none')", "F.cross_entropy(img[..., None], lab[..., None], reduction='sum')",
          "F.cross_entropy(img, lab, label_smoothing=0.1)"]


@pytest.mark.parametrize("create_graph", [False, True])
@pytest.mark.parametrize("expr", NLL_ND)
def test_nll_loss_over_spatial_dims_as_pytorch(expr: str, create_graph: bool) -> None:
    """(N, C, H, W) inputs make NllLoss2DBackward0; (N, C, d) and 5-d ones are viewed to
    (N, C, 1, -1) for it, an unreduced loss viewed back."""
    def snippet(rec: Recorder) -> None:
        torch = rec.torch
        F = torch.nn.functional
        img = torch.tensor([[[[0.3, -1.2], [2.6, 1.7]], [[-0.4, 0.9], [-0.7, 1.1]],
                             [[0.2, 0.8], [-1.6, 1.4]]],
                            [[[0.5, 1.3], [0.2, 2.1]], [[0.7, 1.6], [-0.6, 0.6]],
                             [[-1.3, 2.2], [1.4, 0.7]]]], requires_grad=True)
        lab = torch.tensor([[[0, 1], [2, 1]], [[1, 1], [0, 2]]])
        w2 = torch.tensor([0.2, 1.0, 0.5])
        loss = eval(expr, {"F": F, "img": img, "lab": lab, "w2": w2})
        rec.note("loss", loss)
        rec.graph("forward", loss=loss, img=img)
        if create_graph:
            g = torch.autograd.grad(loss.sum(), img, create_graph=True)[0]
            rec.note("grad", g)
            rec.graph("grad graph", g=g, img=img)
            return
        loss.sum().backward()
        rec.grad("after", img=img)
        rec.graph("after backward", loss=loss, img=img)
    differential(snippet)


MIXED = ["F.huber_loss(x, y)", "F.huber_loss(x, y, reduction='none', delta=0.5)",
         "F.soft_margin_loss(x, y.detach().sign())", "F.kl_div(x, y.detach().sigmoid())",
         "F.cosine_similarity(x, y)", "F.pairwise_distance(x, y)",
         "F.poisson_nll_loss(x, y.detach().abs())", "F.gaussian_nll_loss(x, y, x.detach().abs())"]


@pytest.mark.parametrize(("dx", "dy"), [("float32", "float64"), ("float64", "float32")])
@pytest.mark.parametrize("expr", MIXED)
def test_a_loss_over_mixed_dtypes_as_pytorch(expr: str, dx: str, dy: str) -> None:
    """A float32 input against a float64 target and the reverse: the loss's dtype, graph and
    gradients (with create_graph)."""
    def snippet(rec: Recorder) -> None:
        torch = rec.torch
        x = torch.tensor([[0.3, -1.2, 2.6], [1.7, -0.4, 0.9]], dtype=getattr(torch, dx),
                         requires_grad=True)
        y = torch.tensor([[-0.7, 1.1, 0.2], [0.8, -1.6, 1.4]], dtype=getattr(torch, dy),
                         requires_grad=True)
        box: list[Any] = []
        if not rec.attempt("loss", lambda: box.append(eval(expr, {
                "F": torch.nn.functional, "x": x, "y": y})) or box[-1]):
            return
        loss = box[0]
        rec.note("dtype", loss.dtype)
        rec.graph("forward", loss=loss, x=x, y=y)
        grads: list[Any] = []
        # NB: PyTorch's huber backward refuses the mix (its target gradient has the target's
        # dtype): the same error
        rec.attempt("grad", lambda: grads.extend(torch.autograd.grad(
            loss.sum(), [x, y], create_graph=True, allow_unused=True)))
        for name, g in zip("xy", grads, strict=False):
            rec.note(f"d{name}", None if g is None else (g, g.dtype))
            if g is not None:
                rec.graph(f"d{name} graph", g=g, x=x, y=y)
    differential(snippet)
