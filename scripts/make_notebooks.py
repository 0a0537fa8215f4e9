"""Write the teaching notebooks in ``notebooks/`` (saved without outputs).

    python scripts/make_notebooks.py

Each notebook tells one story with ``%%autograd`` cells (the recording and its stepper), the
explanation, and the fix. The test suite executes them all (``tests/jupyter/test_notebooks.py``).
"""

from __future__ import annotations

from pathlib import Path

import nbformat
from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook

ROOT = Path(__file__).resolve().parents[1]
OUT = ROOT / "notebooks"

SETUP = "%load_ext graphviz_autograd\nfrom graphviz_autograd import explain"
EXPLAIN = "print(explain(_autograd))"


def md(text: str) -> object:
    return new_markdown_cell(text.strip())


def code(text: str) -> object:
    return new_code_cell(text.strip())


def seed000() -> list[object]:
    return [
        md("""
# Seed 000: a graph that is reused when it should not be

A forum thread: `y = t @ a` is computed **once, before the loop**, and every iteration's loss
uses it. The first `loss.backward()` works; the second raises
`RuntimeError: Trying to backward through the graph a second time`. Why, when each iteration
builds a new loss?

Run the cells, then step through the recording with the widget: **Next** moves between
snapshots (before and after each backward), the **step** slider replays a backward node by node.
"""),
        code(SETUP),
        md("## The broken version (the thread's code, unchanged)"),
        code("""
%%autograd
import torch

measure = torch.nn.MSELoss()

x = torch.tensor([1, 0], dtype=torch.float64)
t = torch.eye(2, dtype=torch.float64, requires_grad=True)
a = torch.ones(2, dtype=torch.float64, requires_grad=True)
y = t @ a

for __ in range(2):
    x_out = t @ (x + y)  # Raises `RuntimeError` later on.
    loss = measure(x_out, x)
    print("loss:", loss.item())
    loss.backward()
"""),
        md("""
**What the pictures show.** Snapshot #0: one graph; every saved buffer is alive (green, solid).
#1: backward #1 ran it and freed every buffer (dashed, "freed by backward #1"), including those
of `y`'s `MvBackward0`. #2: the second iteration's graph is new (green again) but it hangs off
the *same* `y` node (marked "reused"), whose buffers are gone: the double border marks where the
next backward will fail. #3: it did.
"""),
        code(EXPLAIN),
        md("Snapshot #2 on its own (a snapshot shows itself as a picture):"),
        code("_autograd.snapshots[2]"),
        md("## Fix 1: recompute `y` inside the loop (the thread's 'works fine' line)"),
        code("""
%%autograd
t = torch.eye(2, dtype=torch.float64, requires_grad=True)
a = torch.ones(2, dtype=torch.float64, requires_grad=True)
for __ in range(2):
    x_out = t @ (x + t @ a)  # Works fine.
    loss = measure(x_out, x)
    loss.backward()
"""),
        code("assert all(b.error is None for b in _autograd.backwards)\nprint(explain(_autograd))"),
        md("""
## Fix 2: `y.detach()` when no gradient should flow back through `y`

Then `t` and `a` only get gradients through the new part of each graph.
"""),
        code("""
%%autograd
y = (t @ a).detach()
for __ in range(2):
    x_out = t @ (x + y)
    loss = measure(x_out, x)
    loss.backward()
"""),
        code("assert all(b.error is None for b in _autograd.backwards)"),
    ]


def seed001() -> list[object]:
    return [
        md("""
# Seed 001: `retain_graph=True`, then a plain backward

`retain_graph=True` keeps the saved tensors after a backward, so the graph can be run again.
The *next* backward without it frees them, and a third one fails. Step through it and watch the
buffers stay green after backward #1 and turn dashed after backward #2.
"""),
        code(SETUP),
        code("""
%%autograd
import torch

x = torch.tensor(2.0, requires_grad=True)
y = x * x  # y = x^2

y.backward(retain_graph=True)   # the buffers stay alive
print("x.grad after the first backward:", x.grad.item())
y.backward()                    # gradients accumulate; the buffers are freed
print("x.grad after the second backward:", x.grad.item())
y.backward()                    # nothing left to run with
"""),
        code(EXPLAIN),
        md("""
The memory line of each snapshot shows the cost of `retain_graph=True`: the saved bytes stay
alive until a backward without it runs. Retaining is right when you really need to run the same
graph twice; it is not a fix for reusing a graph by accident (see seed 000).
"""),
    ]


def seed002() -> list[object]:
    return [
        md("""
# Seed 002: two losses over one intermediate

`d` and `e` are both computed from `c`. `d.backward()` frees the saved tensors of the part they
share, so `e.backward()` fails. The shared nodes are marked (thick border, "shared by 2 roots").
"""),
        code(SETUP),
        code("""
%%autograd
import torch
from torch.autograd import Variable

a = Variable(torch.rand(1, 4), requires_grad=True)
b = a**2
c = b*2
d = c.mean()
e = c.sum()

d.backward()
e.backward()
"""),
        code(EXPLAIN),
        md("## Fix: one backward over the summed losses (the shared part runs once)"),
        code("""
%%autograd
b = a**2
c = b*2
d = c.mean()
e = c.sum()
(d + e).backward()
"""),
        code("assert all(x.error is None for x in _autograd.backwards)"),
        md("## Or: keep the shared part for the second backward"),
        code("""
%%autograd
b = a**2
c = b*2
d = c.mean()
e = c.sum()
d.backward(retain_graph=True)
e.backward()
"""),
        code("assert all(x.error is None for x in _autograd.backwards)"),
    ]


def seed003() -> list[object]:
    return [
        md("""
# Seed 003: an intermediate kept for the next batch

The blog post's loop keeps `h` (the first layer's output) in `temp` and adds `temp[0].mean()` to
every later output. The first backward frees the buffers of `h`'s graph; the second iteration's
backward reaches them and fails, although each iteration calls backward only once.
"""),
        code(SETUP),
        code("""
%%autograd
import torch
import torch.nn as nn
from torch.autograd import Variable

torch.manual_seed(0)
a = torch.Tensor([1, 2, 3])
t = torch.Tensor([1])
fc1 = nn.Linear(3, 5)
fc2 = nn.Linear(5, 1)
loss_func = nn.MSELoss()
sgd = torch.optim.SGD(params=list(fc1.parameters()) + list(fc2.parameters()), lr=0.01)

temp = []
for i in range(10):
    input = Variable(a)
    target = Variable(t)
    h = fc1(input)
    out = fc2(h)
    temp.append(h)
    if i != 0:
        out = out + temp[0].mean()
    loss = loss_func(out, target)
    sgd.zero_grad()
    loss.backward()
    sgd.step()
"""),
        code(EXPLAIN),
        md("## Fix: keep `h.detach()` (no gradient should flow into an old batch)"),
        code("""
%%autograd --last 6
temp = []
for i in range(10):
    h = fc1(a)
    out = fc2(h)
    temp.append(h.detach())
    if i != 0:
        out = out + temp[0].mean()
    loss = loss_func(out, t)
    sgd.zero_grad()
    loss.backward()
    sgd.step()
"""),
        code("assert all(x.error is None for x in _autograd.backwards)\n"
             "len(_autograd.snapshots)  # --last 6 kept the last six"),
    ]


def patterns() -> list[object]:
    return [
        md("""
# The recurring patterns behind "Trying to backward through the graph a second time"

Each section has the broken version, the picture that shows why, and the fix. Step to the
snapshot before the failing backward: the node with the double border is where it fails, and
its dashed buffers say which backward freed them.
"""),
        code(SETUP),
        md("## 1. An RNN hidden state kept across batches"),
        code("""
%%autograd
import torch
import torch.nn as nn
torch.manual_seed(0)
W_x = torch.randn(4, 4, requires_grad=True)
W_h = torch.randn(4, 4, requires_grad=True)
h = torch.zeros(1, 4)
for batch in range(3):
    x = torch.randn(1, 4)
    h = torch.tanh(x @ W_x + h @ W_h)   # h still carries the previous batch's graph
    loss = h.sum()
    loss.backward()
"""),
        code(EXPLAIN),
        md("Fix: cut the history at the start of each batch (truncated backpropagation)."),
        code("""
%%autograd
h = torch.zeros(1, 4)
for batch in range(3):
    x = torch.randn(1, 4)
    h = torch.tanh(x @ W_x + h.detach() @ W_h)
    loss = h.sum()
    loss.backward()
"""),
        code("assert all(b.error is None for b in _autograd.backwards)"),
        md("## 2. `total_loss += loss`, then a backward on the running total"),
        code("""
%%autograd
w = torch.randn(3, requires_grad=True)
total_loss = 0
for step in range(3):
    loss = (w * torch.randn(3)).sum() ** 2
    total_loss += loss          # keeps every earlier step's graph
    total_loss.backward()
"""),
        code(EXPLAIN),
        md("Fix: backward on this step's loss, and add up plain numbers for the log."),
        code("""
%%autograd
total_loss = 0.0
for step in range(3):
    loss = (w * torch.randn(3)).sum() ** 2
    loss.backward()
    total_loss += loss.item()
"""),
        code("assert all(b.error is None for b in _autograd.backwards)"),
        md("## 3. A GAN: the generator's output reused by the second backward"),
        code("""
%%autograd
G = nn.Linear(2, 4)
D = nn.Linear(4, 1)
z = torch.randn(8, 2)
fake = G(z)
d_loss = D(fake).mean()
d_loss.backward()           # frees G's part of the graph too
g_loss = -D(fake).mean()
g_loss.backward()
"""),
        code(EXPLAIN),
        md("Fix: the discriminator's step sees `fake.detach()`; the generator's step uses `fake`."),
        code("""
%%autograd
fake = G(z)
d_loss = D(fake.detach()).mean()
d_loss.backward()
g_loss = -D(fake).mean()
g_loss.backward()
"""),
        code("assert all(b.error is None for b in _autograd.backwards)"),
        md("## 4. `optimizer.step()` between two backwards over one graph"),
        code("""
%%autograd
net = nn.Sequential(nn.Linear(3, 3), nn.Tanh(), nn.Linear(3, 1))
opt = torch.optim.SGD(net.parameters(), lr=0.1)
out = net(torch.randn(4, 3))
loss1 = out.mean()
loss2 = (out ** 2).mean()
loss1.backward(retain_graph=True)
opt.step()                  # changes the weights in place: their saved values are stale
loss2.backward()
"""),
        code(EXPLAIN),
        md("Fix: every backward first, then one step."),
        code("""
%%autograd
out = net(torch.randn(4, 3))
loss1 = out.mean()
loss2 = (out ** 2).mean()
opt.zero_grad()
(loss1 + loss2).backward()
opt.step()
"""),
        code("assert all(b.error is None for b in _autograd.backwards)"),
        md("## 5. Two heads on a shared trunk"),
        code("""
%%autograd
trunk = nn.Sequential(nn.Linear(8, 16), nn.ReLU())
cat_head = nn.Linear(16, 1)
car_head = nn.Linear(16, 1)
features = trunk(torch.randn(4, 8))
loss1 = cat_head(features).pow(2).mean()
loss2 = car_head(features).pow(2).mean()
loss1.backward()
loss2.backward()            # the trunk's buffers are gone
"""),
        code(EXPLAIN),
        md("Fix: one backward over both losses (or `retain_graph=True` on the first)."),
        code("""
%%autograd
features = trunk(torch.randn(4, 8))
loss1 = cat_head(features).pow(2).mean()
loss2 = car_head(features).pow(2).mean()
(loss1 + loss2).backward()
"""),
        code("assert all(b.error is None for b in _autograd.backwards)"),
        md("## 6. An `nn.LSTM`'s state carried from batch to batch\n\n"
           "The same story as section 1 with PyTorch's layer: `out, state = lstm(x, state)` "
           "feeds `state` (a tuple `(h, c)`) back in. In float32, PyTorch runs each layer as "
           "one fused node, `MkldnnRnnLayerBackward0`, which saves its input, weights, states, "
           "outputs and a workspace: step to the failing backward to see them all freed."),
        code("""
%%autograd
lstm = nn.LSTM(4, 8)
head = nn.Linear(8, 1)
state = None
for batch in range(3):
    x = torch.randn(5, 2, 4)          # 5 steps, a batch of 2
    out, state = lstm(x, state)       # state still carries the previous batches' graph
    loss = head(out).pow(2).mean()
    loss.backward()
"""),
        code(EXPLAIN),
        md("Fix: detach each tensor of the state at the start of each batch."),
        code("""
%%autograd
state = None
for batch in range(3):
    if state is not None:
        state = tuple(s.detach() for s in state)
    out, state = lstm(torch.randn(5, 2, 4), state)
    loss = head(out).pow(2).mean()
    loss.backward()
"""),
        code("assert all(b.error is None for b in _autograd.backwards)"),
        md("## 7. `retain_graph=True` to make the error go away\n\n"
           "Section 1's loop with `retain_graph=True`: nothing fails now, but each backward "
           "runs through every earlier batch again (their gradients are added again too) and "
           "keeps all their buffers, so memory grows batch after batch. No error, yet the "
           "explanation says what is wrong: step through the snapshots and watch the saved "
           "bytes in each picture's header."),
        code("""
%%autograd
h = torch.zeros(1, 4)
for batch in range(6):
    x = torch.randn(1, 4)
    h = torch.tanh(x @ W_x + h @ W_h)
    loss = h.sum()
    loss.backward(retain_graph=True)    # silences the error; the graph keeps growing
"""),
        code(EXPLAIN),
        code("""
alive = [s.memory["saved_bytes_alive"] for s in _autograd.snapshots if s.kind == "after_backward"]
print(alive)
assert alive == sorted(alive) and alive[-1] > alive[0]
"""),
        md("Fix: section 1's, `h.detach()` at the start of each batch, and no `retain_graph`."),
        md("## 8. `retain_graph=True` out of habit\n\n"
           "Here each step builds a new graph, so no second backward ever goes through what a "
           "backward kept: `retain_graph=True` only keeps each step's buffers alive until the "
           "next step rebinds `loss`."),
        code("""
%%autograd
net = nn.Linear(8, 1)
opt = torch.optim.SGD(net.parameters(), lr=0.1)
for step in range(4):
    loss = net(torch.randn(16, 8)).tanh().pow(2).mean()
    opt.zero_grad()
    loss.backward(retain_graph=True)
    opt.step()
"""),
        code(EXPLAIN),
        md("Fix: `loss.backward()`; keep `retain_graph=True` for a second backward through the "
           "same graph (and even then, one backward over the summed losses is better)."),
        md("## 9. Gradient accumulation whose total is never started afresh\n\n"
           "Four small batches' losses are added up and backwarded once per update. The total "
           "is not reset after its backward, so the next update's total still holds the first "
           "four losses, whose graphs that backward freed. Keeping `loss.item()` would not help "
           "here (no gradient would be left): the explanation tells to reset the total."),
        code("""
%%autograd
net = nn.Linear(4, 1)
opt = torch.optim.SGD(net.parameters(), lr=0.1)
running = 0
for step in range(8):
    loss = nn.functional.mse_loss(net(torch.randn(2, 4)), torch.randn(2, 1)) / 4
    running = running + loss
    if (step + 1) % 4 == 0:
        running.backward()
        opt.step()
        opt.zero_grad()
"""),
        code(EXPLAIN),
        code('assert "Start `running` afresh after each backward" in explain(_autograd)'),
        code("""
%%autograd
running = 0
for step in range(8):
    loss = nn.functional.mse_loss(net(torch.randn(2, 4)), torch.randn(2, 1)) / 4
    running = running + loss
    if (step + 1) % 4 == 0:
        running.backward()
        opt.step()
        opt.zero_grad()
        running = 0                     # the fix: each update backwards its own total
"""),
        md("## 10. Validation losses computed with gradients on\n\n"
           "No error at all: each epoch's validation loss keeps its whole graph, and the list "
           "that collects them keeps every one. The snapshots' node counts grow epoch after "
           "epoch; the explanation names the list and the line."),
        code("""
%%autograd
model = nn.Sequential(nn.Linear(4, 16), nn.Tanh(), nn.Linear(16, 1))
opt = torch.optim.SGD(model.parameters(), lr=0.01)
xv, yv = torch.randn(32, 4), torch.randn(32, 1)
val_history = []
for epoch in range(6):
    loss = nn.functional.mse_loss(model(torch.randn(8, 4)), torch.randn(8, 1))
    opt.zero_grad()
    loss.backward()
    opt.step()
    val_loss = nn.functional.mse_loss(model(xv), yv)
    val_history.append(val_loss)
"""),
        code(EXPLAIN),
        code('assert "Compute `val_loss` under `torch.no_grad()`" in explain(_autograd)'),
        md("Fix: compute it under `with torch.no_grad():` (an evaluation needs no graph), and "
           "keep `val_loss.item()` in the list."),
        md("## 11. A weight that is not a leaf\n\n"
           "`* 0.01` runs on the leaf `torch.randn` made, so `w` is that op's result: it has a "
           "graph of its own, built once, that every step's loss reaches into. The first "
           "backward frees it, and `w.grad` stays None all along."),
        code("""
%%autograd
x = torch.randn(8, 3)
w = torch.randn(3, 1, requires_grad=True) * 0.01
for step in range(3):
    loss = (x @ w).pow(2).mean()
    loss.backward()
"""),
        code(EXPLAIN),
        code('assert "Make `w` a leaf" in explain(_autograd)'),
        code("""
%%autograd
w = (torch.randn(3, 1) * 0.01).requires_grad_()   # the fix: the op first, then requires_grad
for step in range(3):
    loss = (x @ w).pow(2).mean()
    loss.backward()
print(w.is_leaf, w.grad is not None)
"""),
        md("## 12. A weight updated in place with gradients on\n\n"
           "A hand-written SGD step changes the leaf `w` in place while gradients are on, which "
           "autograd refuses. The script stops there: the last snapshot is the graph at that "
           "line, and the explanation is about the line."),
        code("""
%%autograd
w = torch.randn(3, 1, requires_grad=True)
for step in range(3):
    loss = (x @ w).pow(2).mean()
    loss.backward()
    w -= 0.1 * w.grad
    w.grad = None
"""),
        code(EXPLAIN),
        code('assert "Change it under `torch.no_grad()`" in explain(_autograd)'),
        code("""
%%autograd
for step in range(3):
    loss = (x @ w).pow(2).mean()
    loss.backward()
    with torch.no_grad():               # the fix: an update is no part of any graph
        w -= 0.1 * w.grad
    w.grad = None
"""),
        md("## 13. Gradients never cleared between steps\n\n"
           "No error here: each `backward` adds its gradients to `.grad`, and nothing clears "
           "them, so each `opt.step()` uses the sum of the gradients of every batch so far. "
           "The recording sees it: a weight the step changed kept the same `.grad` into the "
           "next backward."),
        code("""
%%autograd
model = nn.Linear(3, 1)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
for step in range(4):
    loss = (model(x) - 1).pow(2).mean()
    loss.backward()
    opt.step()
"""),
        code(EXPLAIN),
        code('assert "Clear the gradients at each step" in explain(_autograd)'),
        code("""
%%autograd
for step in range(4):
    opt.zero_grad()                     # the fix: each step uses its own batch's gradient
    loss = (model(x) - 1).pow(2).mean()
    loss.backward()
    opt.step()
"""),
        code('assert "Clear the gradients" not in explain(_autograd)'),
    ]


def memory() -> list[object]:
    return [
        md("""
# Where autograd's memory goes: saved tensors, `retain_graph`, and checkpointing

A forward keeps, in its graph, the tensors each backward formula needs (the saved buffers under
each node). A backward frees them as it runs, unless told to keep them. Checkpointing keeps only
a region's input and recomputes the rest in the backward. Each picture shows the saved bytes
alive and freed; the cells print them too.
"""),
        code(SETUP + "\nfrom graphviz_autograd.recording import Recording\n\n\n"
             "def alive(rec: Recording) -> list[tuple[str, int]]:\n"
             "    return [(s.label, s.memory['saved_bytes_alive']) for s in rec.snapshots]"),
        md("## 1. What a forward keeps, and what its backward frees"),
        code("""
%%autograd
import torch
import torch.nn as nn
from torch.utils.checkpoint import checkpoint
torch.manual_seed(0)
block = nn.Sequential(nn.Linear(64, 64), nn.Tanh(), nn.Linear(64, 64), nn.Tanh())
head = nn.Linear(64, 1)
x = torch.randn(32, 64)
loss = head(block(x)).pow(2).mean()
_autograd.snapshot("after the forward")
loss.backward()
"""),
        code("plain = alive(_autograd)\nplain"),
        md("""
## 2. `retain_graph=True` keeps every buffer until a backward without it

Useful when a second backward really needs the same graph; the memory stays in use meanwhile.
"""),
        code("""
%%autograd
loss = head(block(x)).pow(2).mean()
loss.backward(retain_graph=True)
_autograd.snapshot("between the backwards")
loss.backward()
"""),
        code("""
kept = alive(_autograd)
assert kept[2][1] == kept[0][1] > 0      # still all there between the backwards
assert kept[-1][1] == 0                  # the last backward freed them
kept
"""),
        md("""
## 3. Checkpointing: keep the region's input, recompute the rest

`checkpoint(block, x, use_reentrant=False)` saves the block's buffers as empty holders
("packed by a hook · 0 B" in the picture); the backward runs the block again to remake them.
A forward hook on the block's first layer counts its runs. (A hook on the whole block would
count one: the recomputation stops as soon as the last value it needs is made, before the
block returns; `checkpoint(..., early_stop=False)` runs it to the end.)
"""),
        code("""
runs = []
handle = block[0].register_forward_hook(lambda module, args, out: runs.append(1))
"""),
        code("""
%%autograd
h = checkpoint(block, x, use_reentrant=False)
loss = head(h).pow(2).mean()
_autograd.snapshot("after the forward")
loss.backward()
"""),
        code("""
checkpointed = alive(_autograd)
assert checkpointed[0][1] < plain[0][1]  # less memory alive after the forward
assert len(runs) == 2                    # the forward, and its recomputation in the backward
packed = [(n.name, b.name) for n in _autograd.snapshots[0].nodes for b in n.saved if b.packed]
print("checkpointed:", checkpointed)
print("plain:", plain)
packed
"""),
        md("""
## 4. A checkpointed graph is still freed by its backward

Checkpointing does not make a graph reusable: a second backward through it fails as any other
would, and the diagnosis says what `retain_graph=True` would keep (here: holders only).
"""),
        code("""
%%autograd
h = checkpoint(block, x, use_reentrant=False)
head(h).pow(2).mean().backward()
h.sum().backward()                       # the block's part of the graph was freed
"""),
        code(EXPLAIN),
        md("""
## 5. Saved-tensor hooks: see, and choose, what the graph keeps

Checkpointing is built on `torch.autograd.graph.saved_tensors_hooks`: every tensor a forward
saves goes through `pack`, and the backward gets it back through `unpack`.
"""),
        code("""
%%autograd
def pack(t):
    print("saved", tuple(t.shape), t.dtype)
    return t.detach()

def unpack(t):
    print("read back", tuple(t.shape))
    return t

handle.remove()
with torch.autograd.graph.saved_tensors_hooks(pack, unpack):
    loss = head(block(x)).pow(2).mean()
loss.backward()
"""),
    ]


NOTEBOOKS = {"seed000_shared_y.ipynb": seed000, "seed001_retain_graph.ipynb": seed001,
             "seed002_two_losses.ipynb": seed002, "seed003_temp_append_h.ipynb": seed003,
             "patterns.ipynb": patterns, "memory.ipynb": memory}


def main() -> None:
    OUT.mkdir(exist_ok=True)
    for name, cells in NOTEBOOKS.items():
        made = cells()
        for i, cell in enumerate(made):
            cell["id"] = f"cell-{i:03d}"      # NB: stable ids: regenerating changes nothing else
        nb = new_notebook(cells=made, metadata={
            "kernelspec": {"name": "python3", "display_name": "Python 3", "language": "python"},
            "language_info": {"name": "python"}})
        nbformat.write(nb, OUT / name)
        print("wrote", OUT / name)


if __name__ == "__main__":
    main()
