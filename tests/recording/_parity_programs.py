"""Random training-loop style programs for recording on both engines (``test_parity_fuzz``).

``program(seed)`` is Python source using a module ``t`` (``graphviz_autograd.torch`` or
``torch``), ``nn``/``F`` (its ``nn`` and ``nn.functional``) and ``rec`` (the recording). Each
block is what users write: losses kept across iterations, hidden states carried with and
without ``detach()``, ``retain_graph``, two heads on a trunk, a GAN's fake batch reused,
``optimizer.step()`` between backwards, every kind of in-place change, views, ``autograd.grad``
with ``create_graph``, hooks, losses with no graph, ``del`` then a snapshot. A block's errors
are caught (``errors``), as a notebook's cell would show them and go on.
"""

from __future__ import annotations

import random

__all__ = ["program", "BLOCKS"]

_INPLACE = [
    "{v} += 1",
    "{v} *= 2",
    "{v}[0] = 0.5",
    "{v}.clamp_(-0.5, 0.5)",
    "F.relu({v}, inplace=True)",
    "nn.ReLU(inplace=True)({v})",
    "F.leaky_relu({v}, 0.1, True)",
    "F.dropout({v}, 0.0, True, True)",
    "{v}.data.mul_(2)",
    "{v}.data[0] = 1.0",
    "{v}.copy_(t.ones_like({v}))",
    "{v}.zero_()",
    "{v}.masked_fill_({v} > 0.1, 0.0)",
    "{v}[:1].mul_(2)",
    "{v}.view(-1).add_(1)",
    "{v}.transpose(0, 1).mul_(2)",
    "{v}.unsqueeze(0).sub_(1)",
    "{v}.sigmoid_()",
    "{v}.exp_()",
    "{v}.fill_(2.0)",
    "{v}.add_({v}.detach())",
    "{v}.index_fill_(0, t.tensor([0]), 1.0)",
    "{v}.mul_(t.ones(2, 3))",
    "t.nn.init.zeros_({v})",
    "{v}.detach().add_(1)",
    "{v}.detach_()",
    "{v}.requires_grad_(False)",
    "{v}.scatter_(0, t.zeros_like({v}, dtype=t.long), 1.0)",
    "{v}.index_add_(0, t.tensor([0]), t.ones_like({v}[:1]))",
    "{v}.addcmul_({v}.detach(), {v}.detach())",
    "{v}.lerp_(t.zeros_like({v}), 0.5)",
    "t.nn.init.normal_({v})",
    "t.nn.init.constant_({v}, 0.3)",
    "{v}.t_()",
    "{v}.unsqueeze_(0)",
    "{v}.squeeze_()",
    "{v}.data = t.zeros_like({v})",
    "{v}.masked_scatter_({v} > 0, t.ones_like({v}))",
    "{v}.neg_()",
    "{v}.abs_()",
    "{v}.tanh_()",
    "{v}.pow_(2)",
    "{v}.div_(2)",
    "{v}.addmm_({v}.detach()[:, :1] if {v}.dim() == 2 else {v}.detach(), "
    "t.ones(1, {v}.shape[-1]) if {v}.dim() == 2 else {v}.detach())",
]

_UNARY = ["exp", "sigmoid", "tanh", "sin", "relu", "cos", "log_softmax(1)", "softmax(0)",
          "pow(2)", "sqrt", "abs", "mul(3)", "neg", "square", "clone", "div(2)",
          "clamp(-0.3, 0.3)", "reciprocal", "log1p"]


def _u(r: random.Random) -> str:
    op = r.choice(_UNARY)
    if op in ("sqrt", "reciprocal", "log1p"):
        return f"abs().add(1).{op}()"
    return op if "(" in op else op + "()"


def _inplace_block(r: random.Random) -> str:
    src = r.choice(["w", "lin(x)", "x * w", "w.t()", "w[0:2]", "w.view(3, 2).t()"])
    first = _u(r)
    second = _u(r)
    kind = r.choice(_INPLACE)
    where = r.choice(["h", "a", "view"])
    lines = ["x = t.randn(2, 3)",
             f"h = ({src}).{first}",
             f"a = h.{second}"]
    if where == "view":
        lines.append(r.choice(["hv = h[0]", "hv = h.view(-1)", "hv = h.t()",
                               "hv = h.unbind(0)[0]", "hv = h.split(1)[0]", "hv = h[:, 1:]",
                               "hv = h.expand(2, 2, 3)[0]", "hv = h.narrow(0, 0, 1)"]))
        v = "hv"
    else:
        v = where
    if v == "hv" and kind.startswith("t.nn.init"):
        # NB: PyTorch's init functions run with grad mode off inside, unseen by the recorder
        # on real torch, which reads the view's grad_fn (made afresh) after the call
        kind = "{v}.fill_(0.3)"
    stmt = kind.format(v=v)
    if stmt.startswith(f"{v}.mul_(t.ones(2, 3))") and v == "hv":
        stmt = f"{v}.mul_(2)"
    if r.random() < 0.3:
        lines.append("with t.no_grad():")
        lines.append("    " + stmt)
    else:
        lines.append(stmt)
    if r.random() < 0.4:
        lines.append("rec.snapshot('after the change')")
    loss_of = r.choice(["a", "h", "a * h", "a + h.sum()"])
    lines.append(f"loss = ({loss_of}).sum()")
    lines.append("loss.backward()")
    return "\n".join(lines)


def _kept_losses(r: random.Random) -> str:
    detach = r.random() < 0.3
    acc = r.choice(["total_loss += loss", "total_loss = total_loss + loss",
                    "losses.append(loss)"])
    back = r.choice(["total_loss.backward()", "loss.backward()",
                     "sum(losses).backward()" if acc.startswith("losses") else
                     "total_loss.backward()"])
    if acc.startswith("losses") and back == "total_loss.backward()":
        back = "sum(losses).backward()"
    if not acc.startswith("losses") and back.startswith("sum"):
        back = "total_loss.backward()"
    keep = ".item()" if detach else ""
    return "\n".join([
        "total_loss = 0",
        "losses = []",
        "for step in range(3):",
        "    opt.zero_grad()",
        f"    out = {r.choice(['lin', 'mlp'])}(t.randn(4, 3))",
        f"    loss = out.{_u(r)}.mean()",
        f"    {acc}{keep if acc.startswith('total_loss +=') else ''}",
        f"    {back}",
        f"    {'opt.step()' if r.random() < 0.6 else 'pass'}",
    ])


def _rnn(r: random.Random) -> str:
    cell = r.choice(["nn.RNNCell(3, 4)", "nn.GRUCell(3, 4)", "nn.LSTMCell(3, 4)",
                     "nn.LSTM(3, 4)", "nn.GRU(3, 4)", "nn.RNN(3, 4, num_layers=2)"])
    seq = "Cell" not in cell
    lstm = "LSTM" in cell
    detach = r.choice(["none", "detach", "detach_", "data"])
    store = r.choice(["h", "self_h", "state"])
    lines = [f"cell = {cell}", "head = nn.Linear(4, 1)"]
    if store == "self_h":
        lines.append("class Holder: pass")
        lines.append("self = Holder()")
        lines.append("self.h = None")
        ref = "self.h"
    elif store == "state":
        lines.append("state = {'h': None}")
        ref = "state['h']"
    else:
        lines.append("h = None")
        ref = "h"
    lines.append("for step in range(3):")
    if seq:
        lines.append(f"    out, {ref} = cell(t.randn(2, 1, 3), {ref})")
        lines.append("    y = head(out[-1])")
    else:
        lines.append(f"    {ref} = cell(t.randn(1, 3), {ref})")
        lines.append(f"    y = head({ref}[0] if isinstance({ref}, tuple) else {ref})")
    lines.append(f"    loss = y.{_u(r)}.sum()")
    retain = r.random() < 0.2
    lines.append(f"    loss.backward({'retain_graph=True' if retain else ''})")
    if detach == "detach":
        if lstm:
            lines.append(f"    {ref} = tuple(s.detach() for s in {ref})")
        else:
            lines.append(f"    {ref} = {ref}.detach()")
    elif detach == "detach_" and not lstm:
        lines.append(f"    {ref}.detach_()")
    elif detach == "data" and not lstm:
        lines.append(f"    {ref} = {ref}.data")
    return "\n".join(lines)


def _retain(r: random.Random) -> str:
    first = r.choice(["retain_graph=True", "", "retain_graph=False"])
    x = r.choice(["w", "lin(t.randn(2, 3))", "w.double()", "emb(t.tensor([1, 2]))"])
    return "\n".join([
        f"y = ({x}).{_u(r)}.{_u(r)}",
        "loss = y.sum()",
        f"loss.backward({first})",
        r.choice(["", "rec.snapshot()", "del y\nrec.snapshot()"]),
        r.choice(["loss.backward()", "y.sum().backward()", "(loss * 2).backward()",
                  "t.autograd.backward([loss])", "t.autograd.grad(loss, w)"]),
    ])


def _two_heads(r: random.Random) -> str:
    trunk = r.choice(["mlp", "lin", "nn.Sequential(nn.Linear(3, 3), nn.Tanh())",
                      "nn.Sequential(nn.Linear(3, 3), nn.LayerNorm(3))"])
    retain = r.random() < 0.4
    how = r.choice(["separate", "sum", "grad"])
    lines = [f"trunk = {trunk}", "head1 = nn.Linear(3, 1)", "head2 = nn.Linear(3, 2)",
             "feat = trunk(t.randn(4, 3))",
             f"l1 = head1(feat).{_u(r)}.mean()", f"l2 = head2(feat).{_u(r)}.sum()"]
    if how == "separate":
        lines += [f"l1.backward({'retain_graph=True' if retain else ''})",
                  r.choice(["", "opt.step()", "rec.snapshot('between')"]), "l2.backward()"]
    elif how == "sum":
        lines += ["(l1 + l2).backward()", "l1.backward()"]
    else:
        lines += ["g = t.autograd.grad(l1, list(trunk.parameters()), retain_graph="
                  f"{retain})", "l2.backward()"]
    return "\n".join(lines)


def _gan(r: random.Random) -> str:
    det = r.choice(["fake.detach()", "fake"])
    retain = r.random() < 0.4
    order = r.choice(["d_then_g", "g_then_d"])
    lines = ["G = nn.Sequential(nn.Linear(2, 3), nn.ReLU(), nn.Linear(3, 3))",
             "D = nn.Sequential(nn.Linear(3, 3), nn.LeakyReLU(0.2), nn.Linear(3, 1))",
             "opt_d = t.optim.SGD(D.parameters(), lr=0.1)",
             "opt_g = t.optim.Adam(G.parameters(), lr=0.01)",
             "for it in range(2):",
             "    fake = G(t.randn(4, 2))",
             f"    d_loss = D({det}).mean() - D(t.randn(4, 3)).mean()",
             "    g_loss = -D(fake).mean()"]
    if order == "d_then_g":
        lines += ["    opt_d.zero_grad()",
                  f"    d_loss.backward({'retain_graph=True' if retain else ''})",
                  f"    {r.choice(['opt_d.step()', 'pass'])}",
                  "    opt_g.zero_grad()", "    g_loss.backward()", "    opt_g.step()"]
    else:
        lines += ["    opt_g.zero_grad()",
                  f"    g_loss.backward({'retain_graph=True' if retain else ''})",
                  "    opt_g.step()", "    d_loss.backward()",
                  f"    {r.choice(['opt_d.step()', 'pass'])}"]
    return "\n".join(lines)


def _step_between(r: random.Random) -> str:
    opt = r.choice(["t.optim.SGD(model.parameters(), lr=0.1)",
                    "t.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)",
                    "t.optim.Adam(model.parameters(), lr=0.01)"])
    manual = r.random() < 0.4
    lines = ["model = nn.Sequential(nn.Linear(3, 4), nn.Tanh(), nn.Linear(4, 1))",
             f"o = {opt}",
             "out = model(t.randn(5, 3))",
             f"loss = out.{_u(r)}.mean()",
             "loss.backward(retain_graph=True)"]
    if manual:
        lines += ["with t.no_grad():", "    for p in model.parameters():",
                  "        p -= 0.1 * p.grad"]
    else:
        lines.append("o.step()")
    lines.append(r.choice(["loss.backward()", "(loss + out.sum()).backward()",
                           "rec.snapshot('after step')"]))
    return "\n".join(lines)


def _views(r: random.Random) -> str:
    base = r.choice(["w", "w * 1", "lin(t.randn(3, 3))", "w.double()"])
    view = r.choice(["v.view(3, 2)", "v.transpose(0, 1)", "v.unbind(0)", "v.split(1)",
                     "v.expand(4, 2, 3)", "v[0]", "v[:, 1]", "v[v > 0]", "v.chunk(2, 1)",
                     "v.reshape(-1)", "v.permute(1, 0)", "v.t()", "v[[0, 1]]",
                     "v.unsqueeze(0)", "v.flatten()", "v.narrow(1, 0, 2)"])
    use = r.choice(["parts", "mul"])
    lines = [f"v = ({base}).{_u(r)}",
             "if v.shape[0] == 3:\n    v = v[:2]",
             f"parts = {view}"]
    if use == "parts":
        lines.append("p0 = parts[0] if isinstance(parts, tuple) else parts")
        lines.append(f"loss = p0.{_u(r)}.sum()")
    else:
        lines.append("p0 = parts[0] if isinstance(parts, tuple) else parts")
        lines.append("loss = (p0 * p0).sum()")
    lines.append(r.choice(["loss.backward()", "loss.backward(retain_graph=True)\nloss.backward()",
                           "loss.backward()\nloss.backward()"]))
    return "\n".join(lines)


def _grad_penalty(r: random.Random) -> str:
    create = r.random() < 0.7
    return "\n".join([
        "D = nn.Sequential(nn.Linear(3, 4), nn.Tanh(), nn.Linear(4, 1))",
        "xi = t.randn(4, 3, requires_grad=True)",
        "score = D(xi).sum()",
        f"(gx,) = t.autograd.grad(score, xi, create_graph={create})",
        "gp = ((gx.norm(2, dim=1) - 1) ** 2).mean()",
        r.choice(["gp.backward()", "(score + 10 * gp).backward()",
                  "loss = score + 10 * gp\nloss.backward()\ngp.backward()",
                  "gp.backward()\nscore.backward()"]),
    ])


def _inputs_hooks(r: random.Random) -> str:
    which = r.choice(["inputs", "hook", "gradient", "retain_grad", "requires_grad_"])
    if which == "inputs":
        return "\n".join([
            "a = t.randn(3, requires_grad=True)", "b = t.randn(3, requires_grad=True)",
            f"y = (a * b).{_u(r)}.sum()",
            r.choice(["y.backward(inputs=[a])", "y.backward(inputs=a)",
                      "y.backward(inputs=[a], retain_graph=True)\ny.backward(inputs=[b])",
                      "y.backward(inputs=[a])\ny.backward(inputs=[b])"]),
        ])
    if which == "hook":
        return "\n".join([
            "a = t.randn(2, 3, requires_grad=True)",
            f"hmid = a.{_u(r)}",
            r.choice(["hd = hmid.register_hook(lambda g: g * 2)",
                      "hd = a.register_hook(lambda g: None)",
                      "hd = hmid.register_hook(lambda g: g.clamp(-1, 1))"]),
            f"y = hmid.{_u(r)}.sum()",
            "y.backward()",
            r.choice(["hd.remove()", "y.backward()"]),
        ])
    if which == "gradient":
        return "\n".join([
            "a = t.randn(2, 3, requires_grad=True)",
            f"y = a.{_u(r)}",
            r.choice(["y.backward(gradient=t.ones_like(y))", "y.backward(t.ones(2, 3))",
                      "y.backward()", "t.autograd.backward(y, t.ones_like(y))",
                      "y.backward(gradient=t.ones(3))"]),
        ])
    if which == "retain_grad":
        return "\n".join([
            "a = t.randn(2, 3, requires_grad=True)",
            f"m = a.{_u(r)}", "m.retain_grad()", f"y = m.{_u(r)}.sum()", "y.backward()",
            "rec.snapshot('grads')",
        ])
    return "\n".join([
        "a = t.randn(2, 3)",
        r.choice(["a.requires_grad_()", "a.requires_grad_(True)", "pass"]),
        f"y = a.{_u(r)}.sum()",
        "y.backward()",
    ])


def _no_graph(r: random.Random) -> str:
    return r.choice([
        "with t.no_grad():\n    loss = lin(t.randn(2, 3)).sum()\nloss.backward()",
        "loss = t.tensor(lin(t.randn(2, 3)).sum().item())\nloss.backward()",
        "loss = lin(t.randn(2, 3)).sum().detach()\nloss.backward()",
        "loss = lin(t.randn(2, 3))\nloss.backward()",
        "loss = t.randn(2, 3).sum()\nloss.backward()",
        "with t.no_grad():\n    out = mlp(t.randn(2, 3))\nloss = F.mse_loss(out, t.zeros(2, 4))"
        "\nloss.backward()",
        "t.set_grad_enabled(False)\ntry:\n    loss = lin(t.randn(2, 3)).sum()\nfinally:\n"
        "    t.set_grad_enabled(True)\nloss.backward()",
    ])


def _del_snapshot(r: random.Random) -> str:
    return "\n".join([
        f"y = lin(t.randn(2, 3)).{_u(r)}",
        f"z = y.{_u(r)}",
        "loss = z.sum()",
        r.choice(["del y", "del z", "del y, z", "del loss", "y = None"]),
        "import gc; gc.collect()",
        "rec.snapshot('after del')",
        r.choice(["loss.backward()", "pass", "loss.backward()\nrec.snapshot()"]),
    ])


def _containers(r: random.Random) -> str:
    return "\n".join([
        "outs = []", "state = {}",
        "for step in range(2):",
        f"    outs.append(lin(t.randn(2, 3)).{_u(r)})",
        f"    state['h'] = outs[-1].{_u(r)}",
        "loss = outs[0].sum() + state['h'].sum()",
        "loss.backward()",
        r.choice(["outs[1].sum().backward()", "outs[0].sum().backward()",
                  "state['h'].sum().backward()", "rec.snapshot()"]),
    ])


def _models(r: random.Random) -> str:
    m = r.choice([
        ("nn.Sequential(nn.Conv2d(1, 2, 3), nn.ReLU(), nn.Flatten(), nn.Linear(8, 2))",
         "t.randn(2, 1, 4, 4)"),
        ("nn.Sequential(nn.Conv2d(1, 2, 3), nn.BatchNorm2d(2), nn.ReLU(inplace=True))",
         "t.randn(2, 1, 4, 4)"),
        ("nn.Sequential(nn.Linear(3, 4), nn.BatchNorm1d(4), nn.ReLU())", "t.randn(4, 3)"),
        ("nn.Sequential(nn.Linear(3, 4), nn.LayerNorm(4), nn.GELU())", "t.randn(4, 3)"),
        ("nn.Sequential(nn.Embedding(5, 3), nn.Linear(3, 2))", "t.tensor([[1, 2], [3, 4]])"),
        ("nn.Sequential(nn.Linear(3, 4), nn.Dropout(0.5), nn.Sigmoid())", "t.randn(4, 3)"),
        ("nn.Sequential(nn.Linear(3, 4), nn.Dropout(0.0), nn.Tanh())", "t.randn(4, 3)"),
        ("nn.Sequential(nn.Linear(3, 4), nn.ReLU(inplace=True), nn.Linear(4, 1))",
         "t.randn(4, 3)"),
        ("nn.Linear(3, 2).double()", "t.randn(4, 3, dtype=t.float64)"),
        ("nn.Sequential(nn.Conv2d(1, 2, 3, padding=1), nn.MaxPool2d(2), nn.Flatten())",
         "t.randn(1, 1, 4, 4)"),
    ])
    ev = r.random() < 0.4
    loss = r.choice(["out.sum()", "out.pow(2).mean()", "out.float().abs().sum()"])
    steps = r.choice([1, 2])
    lines = [f"model = {m[0]}", "o = t.optim.SGD(model.parameters(), lr=0.1)"]
    if ev:
        lines.append("model.eval()")
    lines += [f"for step in range({steps}):", "    o.zero_grad()", f"    out = model({m[1]})",
              f"    loss = {loss}", "    loss.backward()", "    o.step()"]
    if r.random() < 0.3:
        lines.append("loss.backward()")
    return "\n".join(lines)


def _leaf_ops(r: random.Random) -> str:
    kind = r.choice(["leaf_inplace", "param_inplace_nograd", "leaf_view_inplace",
                     "leaf_data", "leaf_zero_grad"])
    if kind == "leaf_inplace":
        return "a = t.ones(3, requires_grad=True)\na.add_(1)"
    if kind == "param_inplace_nograd":
        return "\n".join([
            f"y = (w * 2).{_u(r)}.sum()",
            "with t.no_grad():", r.choice(["    w.mul_(0.9)", "    w -= 0.1", "    w[0] = 0.0",
                                          "    w.copy_(t.zeros(2, 3))", "    w.zero_()"]),
            "y.backward()",
        ])
    if kind == "leaf_view_inplace":
        return "a = t.ones(2, 3, requires_grad=True)\nb = a[0]\nb.mul_(2)"
    if kind == "leaf_data":
        return "\n".join([f"y = (w * 3).{_u(r)}", "w.data.mul_(0.5)", "y.sum().backward()"])
    return "\n".join(["y = (w * w).sum()", "y.backward()", "w.grad.zero_()",
                      "w.grad = None", "y2 = (w * w).sum()", "y2.backward()"])


def _loop_errors(r: random.Random) -> str:
    bad = r.choice(["loss.backward()\n        loss.backward()",
                    "loss.backward()\n        if step == 1:\n            raise ValueError('x')",
                    "out.backward()", "loss.backward(retain_graph=step == 0)",
                    "hidden = hidden + loss\n        hidden.backward()"])
    return "\n".join([
        "hidden = t.zeros(())",
        "for step in range(3):",
        "    try:",
        "        opt.zero_grad()",
        f"        out = mlp(t.randn(2, 3)).{_u(r)}",
        "        loss = out.mean()",
        f"        {bad}",
        "        opt.step()",
        "    except (RuntimeError, ValueError) as err:",
        "        errors.append(('loop', step, str(err)[:60]))",
        "        continue",
        r.choice(["rec.snapshot('loop over')", "pass", "del out\nrec.snapshot()"]),
    ])


def _grads_misc(r: random.Random) -> str:
    kind = r.choice(["two_roots", "grad_twice", "double", "clip", "leaf_grad_data",
                     "grad_create_loop", "retain_loop"])
    if kind == "two_roots":
        return "\n".join([
            "feat = lin(t.randn(3, 3))", f"l1 = feat.{_u(r)}.sum()", f"l2 = feat.{_u(r)}.mean()",
            r.choice(["t.autograd.backward([l1, l2])",
                      "t.autograd.backward([l1, l2])\nl1.backward()",
                      "t.autograd.grad([l1, l2], [lin.weight])\nl2.backward()"])])
    if kind == "grad_twice":
        return "\n".join([
            "y = (w * w).sum()",
            "(g,) = t.autograd.grad(y, w, create_graph=True)",
            f"z = g.{_u(r)}.sum()",
            r.choice(["z.backward()", "z.backward()\nz.backward()",
                      "t.autograd.grad(z, w)\ny.backward()", "y.backward()\nz.backward()"])])
    if kind == "double":
        return "\n".join([
            "wd = t.randn(3, 2, dtype=t.float64, requires_grad=True)",
            f"y = (wd @ wd.t()).{_u(r)}",
            "y.sum().backward()",
            r.choice(["y.sum().backward()", "rec.snapshot()", "y.mean().backward()"])])
    if kind == "clip":
        return "\n".join([
            "loss = mlp(t.randn(2, 3)).pow(2).sum()", "loss.backward(retain_graph=True)",
            "t.nn.utils.clip_grad_norm_(mlp.parameters(), 0.1)", "opt.step()",
            r.choice(["loss.backward()", "rec.snapshot()"])])
    if kind == "leaf_grad_data":
        return "\n".join([
            "y = (w.exp() * 2).sum()", "y.backward(retain_graph=True)",
            r.choice(["w.grad.data.zero_()", "w.grad.zero_()", "w.grad = None",
                      "w.data = w.data * 0.5", "w.data.copy_(t.zeros(2, 3))"]),
            "y.backward()"])
    if kind == "grad_create_loop":
        return "\n".join([
            "x0 = t.randn(3, requires_grad=True)",
            "for step in range(2):",
            f"    e = (x0 * x0).{_u(r)}.sum()",
            "    (gx,) = t.autograd.grad(e, x0, create_graph=True)",
            "    pen = gx.pow(2).sum()",
            r.choice(["    pen.backward()", "    (e + pen).backward()",
                      "    pen.backward(retain_graph=True)\n    e.backward()"])])
    return "\n".join([
        "acc = None",
        "for step in range(3):",
        f"    y = lin(t.randn(2, 3)).{_u(r)}",
        "    acc = y if acc is None else acc + y",
        "    acc.sum().backward(retain_graph=True)",
        r.choice(["acc.sum().backward()\nacc.sum().backward()", "rec.snapshot()",
                  "del y\nrec.snapshot()"])])


def _losses_misc(r: random.Random) -> str:
    kind = r.choice(["losses", "function", "checkpoint", "modes", "zero_grad", "to_dtype"])
    if kind == "losses":
        loss = r.choice(["F.cross_entropy(out, t.tensor([0, 2]))",
                         "F.nll_loss(out.log_softmax(1), t.tensor([1, 0]))",
                         "F.mse_loss(out, t.zeros(2, 4))",
                         "F.binary_cross_entropy_with_logits(out, t.ones(2, 4))",
                         "F.smooth_l1_loss(out, t.ones(2, 4))",
                         "F.kl_div(out.log_softmax(1), t.full((2, 4), 0.25), "
                         "reduction='batchmean')"])
        return "\n".join(["out = mlp(t.randn(2, 3))", f"loss = {loss}",
                          r.choice(["loss.backward()", "loss.backward()\nloss.backward()",
                                    "loss.backward(retain_graph=True)\nopt.step()\n"
                                    "loss.backward()"])])
    if kind == "function":
        return "\n".join([
            "class Square(t.autograd.Function):",
            "    @staticmethod",
            "    def forward(ctx, x):",
            "        ctx.save_for_backward(x)",
            "        return x * x",
            "    @staticmethod",
            "    def backward(ctx, g):",
            "        (x,) = ctx.saved_tensors",
            "        return 2 * x * g",
            f"y = Square.apply(w.{_u(r)})",
            "loss = y.sum()",
            r.choice(["loss.backward()", "loss.backward()\nloss.backward()",
                      "rec.snapshot('function')\nloss.backward()"])])
    if kind == "checkpoint":
        return "\n".join([
            "checkpoint = t.utils.checkpoint.checkpoint",
            "block = nn.Sequential(nn.Linear(3, 3), nn.Tanh())",
            "xin = t.randn(2, 3, requires_grad=True)",
            "y = checkpoint(block, xin, use_reentrant=False)",
            f"loss = y.{_u(r)}.sum()",
            r.choice(["loss.backward()", "loss.backward()\nloss.backward()",
                      "rec.snapshot('checkpointed')\nloss.backward()"])])
    if kind == "modes":
        return "\n".join([
            "with t.no_grad():",
            "    with t.enable_grad():",
            f"        y = (w * 2).{_u(r)}",
            "    z = y * 2",
            r.choice(["with t.inference_mode():\n    q = w * 3", "q = z"]),
            "loss = y.sum()",
            "loss.backward()",
            r.choice(["z.sum().backward()", "q.sum().backward()", "rec.snapshot()"])])
    if kind == "zero_grad":
        return "\n".join([
            "loss = mlp(t.randn(2, 3)).sum()", "loss.backward()",
            r.choice(["mlp.zero_grad(set_to_none=False)", "mlp.zero_grad()",
                      "opt.zero_grad(set_to_none=False)"]),
            "rec.snapshot('zeroed')", "loss2 = mlp(t.randn(2, 3)).mean()", "loss2.backward()"])
    return "\n".join([
        f"y = lin(t.randn(2, 3)).{r.choice(['double()', 'half().float()', 'to(t.float64)'])}",
        f"loss = y.{_u(r)}.sum()", "loss.backward()",
        r.choice(["loss.backward()", "rec.snapshot()", "y.sum().backward()"])])


def _in_function(r: random.Random) -> str:
    """Another block, as a training step: a function's locals (and a nested call) hold the
    tensors; called twice, with a snapshot after."""
    inner = r.choice([b for b in BLOCKS if b is not _in_function])(r)
    body = "\n".join("    " + ln for ln in inner.splitlines())
    return "\n".join([
        "def train_step(step_no):",
        "    global errors",
        body,
        "    return locals().get('loss')",
        "kept = []",
        "for call in range(2):",
        "    try:",
        "        kept.append(train_step(call))",
        "    except (RuntimeError, ValueError) as err:",
        "        errors.append(('step', call, str(err)[:60]))",
        r.choice(["rec.snapshot('after the steps')", "pass", "del kept\nrec.snapshot()"]),
    ])


def _leaf_and_anomaly(r: random.Random) -> str:
    kind = r.choice(["leaf_backward", "anomaly", "unused", "grad_nonleaf", "hook_inplace"])
    if kind == "leaf_backward":
        return r.choice(["w.backward(t.ones_like(w))", "w.sum().backward()\nw.sum().backward()",
                         "w[0].sum().backward()"])
    if kind == "anomaly":
        return "\n".join([
            "with t.autograd.set_detect_anomaly(True):",
            f"    y = (w * 2).{_u(r)}",
            f"    z = y.{_u(r)}",
            r.choice(["    y.add_(1)", "    pass", "    z.sum().backward()"]),
            "    z.sum().backward()"])
    if kind == "unused":
        return "\n".join([
            "b = t.randn(3, requires_grad=True)",
            f"y = (w * 2).{_u(r)}.sum()",
            "gs = t.autograd.grad(y, [w, b], allow_unused=True, retain_graph=True)",
            "y.backward()"])
    if kind == "grad_nonleaf":
        return "\n".join([
            f"m = (w * 2).{_u(r)}", f"y = m.{_u(r)}.sum()",
            "(gm,) = t.autograd.grad(y, m)",
            r.choice(["y.backward()", "rec.snapshot()", "t.autograd.grad(y, w)"])])
    return "\n".join([
        f"m = (w * 2).{_u(r)}",
        "hd = m.register_hook(lambda g: g * 0.5)",
        f"y = m.{_u(r)}.sum()",
        "y.backward(retain_graph=True)", "hd.remove()", "y.backward()"])


BLOCKS = [_inplace_block, _kept_losses, _rnn, _retain, _two_heads, _gan, _step_between,
          _views, _grad_penalty, _inputs_hooks, _no_graph, _del_snapshot, _containers,
          _models, _leaf_ops, _loop_errors, _grads_misc, _losses_misc,
          _in_function, _leaf_and_anomaly]

_PRELUDE = """\
t.manual_seed({seed})
errors = []
w = t.randn(2, 3, requires_grad=True)
lin = nn.Linear(3, 2)
mlp = nn.Sequential(nn.Linear(3, 4), nn.ReLU(), nn.Linear(4, 4))
emb = nn.Embedding(5, 3)
opt = t.optim.SGD(list(lin.parameters()) + list(mlp.parameters()), lr=0.1)
"""


def program(seed: int, blocks: int | None = None) -> str:
    """A program of a few blocks, each in a ``try`` whose error is kept in ``errors``."""
    r = random.Random(seed)
    n = blocks if blocks is not None else r.choice([1, 1, 2, 2, 3])
    parts = [_PRELUDE.format(seed=seed)]
    for i in range(n):
        body = r.choice(BLOCKS)(r)
        parts.append("try:\n" + "\n".join("    " + ln for ln in body.splitlines()) +
                     "\nexcept (RuntimeError, ValueError, TypeError, IndexError) as e:\n"
                     f"    errors.append(({i}, type(e).__name__, str(e).split(chr(10))[0]))\n")
    return "\n".join(parts)
