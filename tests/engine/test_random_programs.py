"""Random programs (``_random_programs``) run on real PyTorch and on the engine: the oracle's
records of both (graphs with their saved buffers' states, errors word for word, warnings,
gradients) must not differ. Seeds are fixed, so a failure names its program."""

from __future__ import annotations

from pathlib import Path

import pytest
from _markers import HAS_TORCH

from ._op_examples import ORACLE, load_harness
from ._random_programs import program
from ._random_programs_extra import program_extra

if not HAS_TORCH:
    pytest.skip("needs PyTorch (pip install -e '.[torch]')", allow_module_level=True)
harness = load_harness()
if harness is None:
    pytest.skip(f"oracle not found at {ORACLE}", allow_module_level=True)

pytestmark = pytest.mark.torch

SEEDS_PER_CASE = 25
CASES = 24          # 600 programs


@pytest.mark.parametrize("case", range(CASES))
def test_random_programs_match_real_torch(case: int, tmp_path: Path) -> None:
    import torch

    import graphviz_autograd.torch as ours

    failures = []
    for seed in range(case * SEEDS_PER_CASE, (case + 1) * SEEDS_PER_CASE):
        source = program(seed)
        path = tmp_path / f"random_{seed}.py"
        path.write_text(source, encoding="utf-8")
        theirs, mine = harness.run_scenario(str(path), torch), harness.run_scenario(str(path), ours)
        # NB: where an uncaught error was raised differs by design: PyTorch's come from C++,
        # so their last frame is the program's line; the engine's last frame is its own
        differences = [d for d in harness.diff(theirs, mine)
                       if not d.split(":", 1)[0].endswith("/where")]
        if differences:
            failures.append(f"seed {seed}:\n{source}" + "\n".join("    " + d for d in differences))
    assert not failures, "\n\n".join(failures)



def test_in_place_edit_of_a_flip_leaves_its_input(tmp_path: Path) -> None:
    """``flip`` copies in PyTorch (numpy's flip is a view): editing its result in place must not
    change the input, nor the input's gradient (seed 767 of the generator's first version)."""
    import torch

    import graphviz_autograd.torch as ours

    path = tmp_path / "flip.py"
    path.write_text("b = torch.tensor([[1.5, 0.5], [2.0, -1.0]], requires_grad=True)\n"
                    "f = b.flip(0)\n"
                    "attempt('edit', lambda: f.zero_())\n"
                    "note('b', b)\n"
                    "b.max().backward()\n"
                    "grads('max', b=b)\n", encoding="utf-8")
    theirs, mine = harness.run_scenario(str(path), torch), harness.run_scenario(str(path), ours)
    assert not harness.diff(theirs, mine), harness.diff(theirs, mine)


# -- the second op family (``_random_programs_extra``) ---------------------------------------------
EXTRA_SEEDS_PER_CASE = 25
EXTRA_CASES = 8     # 200 programs


def _run(source: str, tmp_path: Path, name: str) -> list[str]:
    import torch

    import graphviz_autograd.torch as ours

    path = tmp_path / f"{name}.py"
    path.write_text(source, encoding="utf-8")
    theirs, mine = harness.run_scenario(str(path), torch), harness.run_scenario(str(path), ours)
    return [d for d in harness.diff(theirs, mine) if not d.split(":", 1)[0].endswith("/where")]


@pytest.mark.parametrize("case", range(EXTRA_CASES))
def test_random_programs_extra_match_real_torch(case: int, tmp_path: Path) -> None:
    failures = []
    for seed in range(case * EXTRA_SEEDS_PER_CASE, (case + 1) * EXTRA_SEEDS_PER_CASE):
        source = program_extra(seed)
        differences = _run(source, tmp_path, f"extra_{seed}")
        if differences:
            failures.append(f"seed {seed}:\n{source}" + "\n".join("    " + d for d in differences))
    assert not failures, "\n\n".join(failures)


# NB: each one a difference the second family found (the seed in its comment)
FOUND = {
    # scatter_add with a source larger than its index adds the part the index reaches (seed 147)
    "scatter_add_larger_source":
        "a = torch.tensor([[0.5, 1.5, -1.0], [2.0, -0.5, 0.25]], requires_grad=True)\n"
        "h = a.scatter_add(0, torch.tensor([[1, 0, 1]]), a * 2)\n"
        "probe('h', h=h, a=a)\n"
        "attempt('backward', lambda: h.sum().backward())\n"
        "grads('a', a=a)\n",
    # the gradient's shape is checked under create_graph too (seed 589)
    "scatter_create_graph_shape_error":
        "a = torch.tensor([[0.5, 1.5, -1.0], [2.0, -0.5, 0.25]], requires_grad=True)\n"
        "h = torch.scatter(a, 1, torch.tensor([[1], [2]]), a)\n"
        "attempt('grad', lambda: torch.autograd.grad(h.sum(), [a], create_graph=True))\n",
    # PyTorch names scatter in scatter_add's dtype messages (seed 1991)
    "scatter_add_dtype_messages":
        "a = torch.ones(2, 3, requires_grad=True)\n"
        "attempt('src', lambda: a.scatter_add(0, torch.tensor([[0]]), a.double()))\n"
        "attempt('index', lambda: a.scatter_add(0, torch.tensor([[0.0]]), a))\n",
    # hardswish's gradient at -3 and 3 (seed 1808)
    "hardswish_at_its_corners":
        "x = torch.tensor([-3.0, 3.0, -2.0, 2.0, 0.0], requires_grad=True)\n"
        "torch.nn.functional.hardswish(x).sum().backward()\n"
        "grads('x', x=x)\n",
    # kron of tensors laid out transposed: PyTorch's product is contiguous here (seed 1812)
    "kron_of_transposed_results":
        "c = torch.tensor([[0.5, 1.0, 2.0], [1.5, -1.0, 0.3]], requires_grad=True)\n"
        "h = torch.movedim(c, -1, 0) + 1\n"
        "k = torch.kron(h, h)\n"
        "probe('k', k=k, c=c)\n"
        "attempt('transposed', lambda: torch.kron(c.t(), c))\n"
        "attempt('backward', lambda: k.sum().backward())\n"
        "grads('c', c=c)\n",
    # in place on a (view of a) leaf: autograd's error before the kernel's (seed 1890)
    "inplace_leaf_checks_first":
        "b = torch.ones(2, 3, requires_grad=True)\n"
        "attempt('triu_', lambda: b[1].triu_(1))\n"
        "attempt('add_', lambda: b[0].add_(b))\n"
        "attempt('lerp_', lambda: b[0].lerp_(b, 0.5))\n"
        "attempt('addcmul_', lambda: b[0].addcmul_(b, b))\n"
        "attempt('addmm_', lambda: b.addmm_(b, b.t()))\n"
        "attempt('scatter_', lambda: b[0].scatter_(0, torch.tensor([5]), 1.0))\n"
        "attempt('index_fill_', lambda: b[0].index_fill_(0, torch.tensor([5]), 1.0))\n"
        "attempt('copy_', lambda: b[0].copy_(torch.ones(4)))\n"
        "attempt('masked_fill_', lambda: b[0].masked_fill_(torch.ones(4, dtype=torch.bool), 1.0))\n"
        "attempt('cast', lambda: b.add_(torch.ones(2, 3, dtype=torch.float64)))\n",
    # a 0-d weight of another dtype (seed 2813), prelu's and tensordot's dtype errors (323, 311)
    "dtype_rules":
        "b = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)\n"
        "w = torch.tensor(0.3, dtype=torch.float64, requires_grad=True)\n"
        "r = torch.lerp(b, b * 2, w)\n"
        "probe('r', r=r, b=b, w=w)\n"
        "attempt('backward', lambda: r.sum().backward())\n"
        "grads('b, w', b=b, w=w)\n"
        "attempt('prelu', lambda: torch.nn.functional.prelu(b.double(), torch.tensor([0.25])))\n"
        "attempt('tensordot', lambda: torch.tensordot(b, b.double(), dims=1))\n",
    # Tensor.addmm, addmm_, cumprod_ and cumsum_ (seeds 136, 255)
    "methods":
        "a = torch.tensor([[0.5, 1.5], [2.0, -0.5]], requires_grad=True)\n"
        "h = a.addmm(a, a.t(), alpha=2)\n"
        "g = a * 1\n"
        "g.addmm_(a, a, beta=0.5)\n"
        "p = a * 1\n"
        "p.cumprod_(1)\n"
        "s = a * 1\n"
        "s.cumsum_(0)\n"
        "probe('all', h=h, g=g, p=p, s=s, a=a)\n"
        "attempt('backward', lambda: (h.sum() + g.sum() + p.sum() + s.sum()).backward())\n"
        "grads('a', a=a)\n",
    # an in-place op on a view whose operand is that view saves the operand before the write,
    # so the backward finds it modified (seed 3424)
    "view_operand_saved_before_write":
        "a = torch.tensor([[1.02, 0.0, 1.28], [0.68, 0.9, -0.8]], requires_grad=True)\n"
        "h0 = a * 2\n"
        "h2 = h0.permute(1, 0)\n"
        "h2.addcmul_(h2, h2, value=0.5)\n"
        "r = h0[0]\n"
        "r.mul_(r)\n"
        "probe('graph', h0=h0, h2=h2, r=r)\n"
        "attempt('grad', lambda: torch.autograd.grad(h2.sum(), [a]))\n"
        "attempt('backward', lambda: r.sum().backward())\n",
}


@pytest.mark.parametrize("name", sorted(FOUND))
def test_differences_the_second_family_found(name: str, tmp_path: Path) -> None:
    differences = _run(FOUND[name], tmp_path, name)
    assert not differences, differences
