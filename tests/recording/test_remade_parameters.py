"""A parameter made in a module's ``forward`` (``self.scale = nn.Parameter(torch.ones(3))``):
each call replaces it, so the optimizer holds the first, and the new ones get gradients no step
uses. Told with that line, and the fix (made in ``__init__``) is run: the parameter then
trains."""

from __future__ import annotations

from pathlib import Path

from graphviz_autograd import diagnose, record

from ._support import ON_BOTH_ENGINES, fix_keys, run_script, torch_of

MADE = "        self.scale = torch.nn.Parameter(torch.ones(3))\n"

NET = """\
class Net(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = torch.nn.Linear(4, 3)

    def forward(self, x):
{made}        return self.fc(x) * self.scale


torch.manual_seed(0)
model = Net()
model(torch.randn(1, 4))
opt = torch.optim.SGD(model.parameters(), lr=0.1)
for step in range(3):
    loss = ((model(torch.randn(8, 4)) - 1) ** 2).mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
"""


@ON_BOTH_ENGINES
def test_a_parameter_made_in_forward_is_told_to_be_made_in_init(engine: str,
                                                                tmp_path: Path) -> None:
    torch = torch_of(engine)
    text = NET.format(made=MADE)
    with record(engine=engine) as rec:
        run_script(torch, tmp_path / "net.py", text)
    (d,) = diagnose(rec)
    assert d.kind == "remade_parameter"
    assert d.summary.startswith(
        "`model.scale` is a new tensor after each backward, and no step changed any of them: "
        "line 7 (`self.scale = torch.nn.Parameter(torch.ones(3))`), in `Net.forward`")
    assert fix_keys(d) == ["parameter"]
    assert d.fixes[0].title == "Create `self.scale` in `Net.__init__`"

    # NB: moved into __init__, it trains, and nothing is told
    fixed = NET.format(made="").replace("        super().__init__()\n",
                                        "        super().__init__()\n" + MADE)
    with record(engine=engine) as again:
        scope = run_script(torch, tmp_path / "fixed.py", fixed)
    assert diagnose(again) == []
    assert not torch.equal(scope["model"].scale.detach(), torch.ones(3))


@ON_BOTH_ENGINES
def test_a_constant_made_in_forward_is_not_told(engine: str, tmp_path: Path) -> None:
    torch = torch_of(engine)
    text = NET.format(made="        self.scale = torch.ones(3)\n")
    with record(engine=engine) as rec:
        run_script(torch, tmp_path / "net.py", text)
    assert diagnose(rec) == []


LAYER = "        self.head = torch.nn.Linear(16, 3)\n"

LAZY = """\
class Net(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.body = torch.nn.Linear(10, 16)

    def forward(self, x):
        h = torch.relu(self.body(x))
{made}        return self.head(h)


torch.manual_seed(0)
model = Net()
x, y = torch.randn(32, 10), torch.randint(0, 3, (32,))
model(x)
opt = torch.optim.Adam(model.parameters(), lr=1e-2)
for step in range(4):
    loss = torch.nn.functional.cross_entropy(model(x), y)
    opt.zero_grad(); loss.backward(); opt.step()
"""


@ON_BOTH_ENGINES
def test_a_layer_made_in_forward_is_told_once_for_its_parameters(engine: str,
                                                                 tmp_path: Path) -> None:
    """``self.head = nn.Linear(16, 3)`` in ``forward`` (built lazily): its weight and bias are
    new at each call (their initialization wrote each in place once), told in one diagnosis
    by the layer's line; moved into ``__init__``, the head trains and nothing is told."""
    torch = torch_of(engine)
    with record(engine=engine) as rec:
        run_script(torch, tmp_path / "lazy.py", LAZY.format(made=LAYER))
    (d,) = diagnose(rec)
    assert d.kind == "remade_parameter"
    assert d.summary.startswith(
        "`model.head.weight` and `model.head.bias` are new tensors after each backward, and no "
        "step changed any of them: line 8 (`self.head = torch.nn.Linear(16, 3)`), in "
        "`Net.forward`, makes `self.head` again at each call, with new parameters.")
    assert d.fixes[0].title == "Create `self.head` in `Net.__init__`"
    fixed = LAZY.format(made="").replace("        super().__init__()\n",
                                         "        super().__init__()\n" + LAYER)
    with record(engine=engine) as again:
        scope = run_script(torch, tmp_path / "fixed.py", fixed)
    assert diagnose(again) == []
    assert scope["model"].head.weight.grad is not None
