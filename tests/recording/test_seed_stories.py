"""The seed stories (``shared/seeds/``), run inside ``record()``: what each story says about the
graph, its freed buffers and the failing backward, checked on the recorded snapshots.

The code is written as in the seeds, with the same variable names, so the snapshots' labels are
the story's names. Where a seed's code no longer runs on PyTorch 2.13 the smallest change is made
and noted (``loss.data[0]`` -> ``loss.item()``, an integer leaf -> a float one).
"""

from __future__ import annotations

import pytest

import graphviz_autograd.torch as torch
from graphviz_autograd import diagnose, explain, record

from ._support import after, before, fix_keys, here, is_accumulate, only_labelled, reachable

BACKWARD_TWICE = "Trying to backward through the graph a second time"


# -- seed 000: the shared `y = t @ a` --------------------------------------------------------------
def test_seed000_shared_y_fails_in_the_second_iteration() -> None:
    measure = torch.nn.MSELoss()
    failures = []
    with record() as rec:
        x = torch.tensor([1, 0], dtype=torch.float64)
        t = torch.eye(2, dtype=torch.float64, requires_grad=True)
        a = torch.ones(2, dtype=torch.float64, requires_grad=True)
        y_line = here() + 1
        y = t @ a

        for iteration in range(2):
            x_out = t @ (x + y)  # Raises `RuntimeError` later on.
            loss = measure(x_out, x)
            try:
                loss.backward()
            except RuntimeError as e:
                failures.append((iteration, str(e)))

    # iteration 1 fails, with PyTorch's message
    assert [i for i, _ in failures] == [1]
    assert failures[0][1].startswith(BACKWARD_TWICE)
    assert len(rec.backwards) == 2
    assert rec.backwards[0].error is None
    assert rec.backwards[1].error == {"type": "RuntimeError", "message": failures[0][1]}

    s_before1, s_before2, failed = before(rec, 1), before(rec, 2), after(rec, 2)
    assert [s.kind for s in rec.snapshots] == ["before_backward", "after_backward",
                                               "before_backward", "backward_failed"]
    assert failed.error == {"type": "RuntimeError", "message": failures[0][1]}

    # y's node: MvBackward0, made by `y = t @ a`, the same node in every snapshot
    y_node = only_labelled(s_before2, "y")
    assert y_node.name == "MvBackward0"
    assert y_node.source is not None
    assert y_node.source["line"] == y_line and y_node.source["code"] == "y = t @ a"
    assert only_labelled(s_before1, "y").id == y_node.id
    assert only_labelled(failed, "y").id == y_node.id

    # backward #2 fails at y's node, whose buffers backward #1 freed
    assert rec.backwards[1].failed_at == y_node.id
    for s in (s_before2, failed):
        n = s.node(y_node.id)
        assert n.saved and {b.name for b in n.saved} == {"self", "vec"}
        assert all(b.state == "freed" and b.released_by == 1 for b in n.saved)
        assert n.executed_by == [1]
    assert all(b.state == "alive" for b in s_before1.node(y_node.id).saved)

    # y's node is shared: the graph of iteration 1 reuses what backward #1 ran
    assert not s_before1.node(y_node.id).shared
    assert s_before2.node(y_node.id).shared
    assert failed.node(y_node.id).shared
    assert rec.backwards[1].roots[0] in s_before2.node(y_node.id).roots

    # iteration 0's lower part (x_out, loss) is gone once the loop rebinds them
    assert rec.backwards[0].roots[0] in s_before2.collected

    # the snapshot before backward #2 predicts the failure at y's node; before #1, none
    assert s_before1.prediction is not None and not s_before1.prediction.will_fail
    assert s_before2.prediction is not None and s_before2.prediction.will_fail
    assert s_before2.prediction.node == y_node.id
    assert s_before2.prediction.reason

    # the diagnosis: y, its line, backward #1, and the fixes best first
    (d,) = diagnose(rec)
    assert d.backward == 2 and d.kind == "freed"
    assert d.node == y_node.id and d.node_name == "MvBackward0"
    assert "y" in d.built_by["labels"]
    assert d.built_by["source"]["line"] == y_line
    assert d.freed_by == [1]
    assert fix_keys(d)[:3] == ["recompute", "detach", "retain_graph"]
    text = explain(rec)
    assert "`y`" in text and "y = t @ a" in text and "backward #1" in text


def test_seed000_fix_recompute_inside_the_loop() -> None:
    measure = torch.nn.MSELoss()
    with record() as rec:
        x = torch.tensor([1, 0], dtype=torch.float64)
        t = torch.eye(2, dtype=torch.float64, requires_grad=True)
        a = torch.ones(2, dtype=torch.float64, requires_grad=True)

        for __ in range(2):
            x_out = t @ (x + t @ a)  # Works fine.
            loss = measure(x_out, x)
            loss.backward()

    assert [b.error for b in rec.backwards] == [None, None]
    assert t.grad is not None and a.grad is not None
    s1, s2 = before(rec, 1), before(rec, 2)
    assert s2.prediction is not None and not s2.prediction.will_fail

    # each iteration has its own graph: nothing of iteration 1's graph (leaves' accumulators
    # aside) was run or freed by backward #1, and nothing is shared
    ops1 = {n.id for n in reachable(s1, rec.backwards[0].roots[0]) if not is_accumulate(n)}
    ops2 = [n for n in reachable(s2, rec.backwards[1].roots[0]) if not is_accumulate(n)]
    assert len(ops2) == len(ops1) == 4   # Mv, Add, Mv, MseLoss
    assert ops1.isdisjoint(n.id for n in ops2)
    assert all(n.executed_by == [] for n in ops2)
    assert all(b.state == "alive" for n in ops2 for b in n.saved)
    assert not any(n.shared for n in s2.nodes)
    assert diagnose(rec) == []


def test_seed000_fix_detach() -> None:
    measure = torch.nn.MSELoss()
    with record() as rec:
        x = torch.tensor([1, 0], dtype=torch.float64)
        t = torch.eye(2, dtype=torch.float64, requires_grad=True)
        a = torch.ones(2, dtype=torch.float64, requires_grad=True)
        y = t @ a

        for __ in range(2):
            x_out = t @ (x + y.detach())
            loss = measure(x_out, x)
            loss.backward()

    assert [b.error for b in rec.backwards] == [None, None]
    # no gradient flows back through y: `a` gets none, `t` gets its gradient from x_out only
    assert a.grad is None
    assert t.grad is not None
    last = after(rec, 2)
    y_node = only_labelled(last, "y")
    assert y_node.executed_by == []
    assert y_node.saved and all(b.state == "alive" for b in y_node.saved)
    assert not y_node.shared
    assert before(rec, 2).prediction is not None and not before(rec, 2).prediction.will_fail
    assert diagnose(rec) == []


def test_seed000_fix_retain_graph_then_free_then_del() -> None:
    measure = torch.nn.MSELoss()
    with record() as rec:
        x = torch.tensor([1, 0], dtype=torch.float64)
        t = torch.eye(2, dtype=torch.float64, requires_grad=True)
        a = torch.ones(2, dtype=torch.float64, requires_grad=True)
        y = t @ a

        for __ in range(2):
            x_out = t @ (x + y)
            loss = measure(x_out, x)
            loss.backward(retain_graph=True)

        y_id = only_labelled(rec.snapshots[-1], "y").id
        # a final backward without retain_graph frees what it runs, y's part included
        loss.backward()
        del y
        still_referenced = rec.snapshot("after del y")
        # y's node lives on while the loop's last graph (x_out, loss) refers to it
        del x_out, loss
        gone = rec.snapshot("after del x_out, loss")

    assert [b.error for b in rec.backwards] == [None, None, None]
    assert [b.retain_graph for b in rec.backwards] == [True, True, False]
    # retain_graph=True: y's buffers stay alive after both backwards, each of which ran it
    for k in (1, 2):
        n = after(rec, k).node(y_id)
        assert n.saved and all(b.state == "alive" and b.released_by is None for b in n.saved)
        assert after(rec, k).memory["saved_bytes_alive"] > 0
    assert after(rec, 2).node(y_id).executed_by == [1, 2]
    # the lower part of iteration 0 went when the loop rebound x_out and loss
    assert rec.backwards[0].roots[0] in before(rec, 2).collected
    # the final plain backward frees them
    n = after(rec, 3).node(y_id)
    assert all(b.state == "freed" and b.released_by == 3 for b in n.saved)
    assert n.executed_by == [1, 2, 3]
    assert after(rec, 3).memory["saved_bytes_alive"] == 0
    # `del y`: its node stays (the last loss still reaches it), without the label
    assert still_referenced.kind == "manual" and still_referenced.backward is None
    assert y_id in {n.id for n in still_referenced.nodes}
    assert "y" not in still_referenced.node(y_id).labels
    assert y_id not in still_referenced.collected
    # once nothing references it, the manual snapshot shows it collected
    assert y_id in gone.collected
    assert y_id not in {n.id for n in gone.nodes}


def test_seed000_second_reply_y_equals_a_times_2() -> None:
    measure = torch.mean   # the reply's `measure(x_out0)`: a loss of one argument
    with record() as rec:
        a = torch.rand(10, requires_grad=True)
        # no graph at this point

        y = a * 2
        # The backward graph linked to y is: y -> a

        ## Iterations 0
        x_out0 = 2 * y
        loss0 = measure(x_out0)
        loss0.backward()

        ## Iteration 1
        x_out1 = 2 * y
        loss1 = measure(x_out1)
        with pytest.raises(RuntimeError, match=BACKWARD_TWICE):
            loss1.backward()
        # This one will fail as the buffers for the array between y and a are already deleted.

    s = before(rec, 2)
    y_node = only_labelled(s, "y")
    assert y_node.name == "MulBackward0"
    assert rec.backwards[1].failed_at == y_node.id
    assert all(b.state == "freed" and b.released_by == 1 for b in y_node.saved)
    # loss1 -> x_out1 -> y -> a
    #    loss0 -> x_out0 ↑
    loss0_node, loss1_node = only_labelled(s, "loss0"), only_labelled(s, "loss1")
    x0, x1 = only_labelled(s, "x_out0"), only_labelled(s, "x_out1")
    assert x0.id != x1.id
    assert y_node.id in x0.next and y_node.id in x1.next
    assert set(y_node.roots) == {loss0_node.id, loss1_node.id}
    assert y_node.shared
    assert not x0.shared and not x1.shared
    assert s.prediction is not None and s.prediction.will_fail
    assert s.prediction.node == y_node.id


def test_seed000_forward_after_backward_works_backward_would_not() -> None:
    with record() as rec:
        # the seed has torch.tensor(1, requires_grad=True): an integer tensor cannot require grad
        a = torch.tensor(1.0, requires_grad=True)
        b = a * torch.tensor(2)
        c = b * torch.tensor(3)

        c.backward()

        d = b * torch.tensor(4)
        e = c * torch.tensor(5)
        print('d = ', d)
        print('e = ', e)
        s = rec.snapshot("after d and e")
        with pytest.raises(RuntimeError, match=BACKWARD_TWICE):
            d.backward()

    assert d.item() == 8.0 and e.item() == 30.0
    assert s.kind == "manual"
    b_node, c_node = only_labelled(s, "b"), only_labelled(s, "c")
    d_node, e_node = only_labelled(s, "d"), only_labelled(s, "e")
    assert all(x.state == "freed" and x.released_by == 1 for x in b_node.saved)
    assert all(x.state == "alive" for x in d_node.saved)
    assert b_node.id in d_node.next and c_node.id in e_node.next
    # the new graphs are built on freed nodes: a backward from d or e would fail there
    by_root = {p.root: p for p in s.predictions}
    assert by_root[d_node.id].will_fail and by_root[d_node.id].node == b_node.id
    assert by_root[e_node.id].will_fail and by_root[e_node.id].node == c_node.id
    assert b_node.shared and c_node.shared
    # ... and the backward from d does fail at b's node
    assert rec.backwards[1].failed_at == b_node.id
    assert before(rec, 2).prediction is not None
    assert before(rec, 2).prediction.node == b_node.id


def test_seed000_del_b_then_backward_still_works() -> None:
    with record() as rec:
        a = torch.tensor(1.0, requires_grad=True)
        b = a * torch.tensor(2)
        c = b * torch.tensor(3)
        b_id = only_labelled(rec.snapshot("b and c"), "b").id
        del b
        s = rec.snapshot("after del b")
        c.backward()

    # b the tensor is gone; b's node is not: it belongs to c's graph
    assert b_id not in s.collected
    assert b_id in only_labelled(s, "c").next
    assert s.nodes_labelled("b") == []
    assert all(x.state == "alive" for x in s.node(b_id).saved)
    assert rec.backwards[0].error is None
    assert a.grad is not None and a.grad.item() == 6.0
    n = after(rec, 1).node(b_id)
    assert n.executed_by == [1]
    assert all(x.state == "freed" and x.released_by == 1 for x in n.saved)


def test_seed000_retain_graph_five_times_then_del_b() -> None:
    with record() as rec:
        a = torch.tensor(1., requires_grad=True)
        b = torch.tensor(2., requires_grad=True)
        c = a * b

        grads = []
        for _ in range(5):
            print(c.backward(retain_graph=True))
            grads.append((a.grad.item(), b.grad.item()))

        del b
        a_grads = []
        for _ in range(3):
            c.backward(retain_graph=True)
            a_grads.append(a.grad.item())

    assert grads == [(2.0, 1.0), (4.0, 2.0), (6.0, 3.0), (8.0, 4.0), (10.0, 5.0)]
    assert a_grads == [12.0, 14.0, 16.0]
    assert len(rec.backwards) == 8 and all(x.error is None for x in rec.backwards)
    assert len(rec.snapshots) == 16
    assert [s.kind for s in rec.snapshots] == ["before_backward", "after_backward"] * 8

    first = before(rec, 1)
    c_id = only_labelled(first, "c").id
    alive = first.memory["saved_bytes_alive"]
    assert alive > 0
    for k in range(1, 9):
        s = after(rec, k)
        n = s.node(c_id)
        assert n.executed_by == list(range(1, k + 1))
        assert {x.name for x in n.saved} == {"self", "other"}
        assert all(x.state == "alive" and x.released_by is None for x in n.saved)
        assert s.memory["saved_bytes_alive"] == alive
        assert s.memory["saved_bytes_freed"] == 0
    # after `del b`, b's accumulator (and b, its variable) live on in c's graph, unnamed
    last = after(rec, 8)
    assert last.nodes_labelled("b") == []
    accs = [last.node(m) for m in last.node(c_id).next if m is not None]
    assert len(accs) == 2 and all(is_accumulate(n) for n in accs)
    assert all(n.executed_by == list(range(1, 9)) for n in accs)


# -- seed 001: retain_graph=True then a plain backward ---------------------------------------------
def test_seed001_retain_graph_then_plain_backward() -> None:
    with record() as rec:
        x = torch.tensor(2.0, requires_grad=True)
        y = x * x  # y = x^2
        # First backward pass
        y.backward(retain_graph=True)
        first = x.grad.item()
        # Second backward pass on the same graph
        y.backward()
        second = x.grad.item()
        with pytest.raises(RuntimeError, match=BACKWARD_TWICE):
            y.backward()

    assert (first, second) == (4.0, 8.0)
    y_id = only_labelled(before(rec, 1), "y").id
    # alive after #1 (retained), freed by #2
    n1 = after(rec, 1).node(y_id)
    assert n1.saved and all(b.state == "alive" and b.released_by is None for b in n1.saved)
    assert after(rec, 1).memory["saved_bytes_alive"] > 0
    n2 = after(rec, 2).node(y_id)
    assert all(b.state == "freed" and b.released_by == 2 for b in n2.saved)
    assert n2.executed_by == [1, 2]
    assert after(rec, 2).memory["saved_bytes_alive"] == 0
    # a third backward is predicted to fail at y's node: right after #2, and just before #3
    for s in (after(rec, 2), before(rec, 3)):
        assert s.prediction is not None and s.prediction.will_fail
        assert s.prediction.node == y_id
    assert not after(rec, 1).prediction.will_fail  # type: ignore[union-attr]
    assert rec.backwards[2].failed_at == y_id
    assert after(rec, 3).kind == "backward_failed"


# -- seed 002: d and e over one c ------------------------------------------------------------------
def test_seed002_second_loss_without_retain_fails() -> None:
    Variable = torch.autograd.Variable
    with record() as rec:
        a = Variable(torch.rand(1, 4), requires_grad=True)
        b = a**2
        c = b*2
        d = c.mean()
        e = c.sum()

        d.backward()
        with pytest.raises(RuntimeError, match=BACKWARD_TWICE):
            e.backward()

    s = before(rec, 2)
    c_node, d_node, e_node = (only_labelled(s, n) for n in ("c", "d", "e"))
    assert rec.backwards[1].failed_at == c_node.id
    assert all(x.state == "freed" and x.released_by == 1 for x in c_node.saved)
    assert set(c_node.roots) == {d_node.id, e_node.id} and c_node.shared
    assert s.prediction is not None and s.prediction.node == c_node.id
    (diag,) = diagnose(rec)
    assert diag.node == c_node.id and "c" in diag.built_by["labels"]
    assert diag.freed_by == [1]
    assert fix_keys(diag)[:2] == ["sum_losses", "retain_graph"]


def test_seed002_retain_sequence() -> None:
    Variable = torch.autograd.Variable
    with record() as rec:
        a = Variable(torch.rand(1, 4), requires_grad=True)
        b = a**2
        c = b*2
        d = c.mean()
        e = c.sum()

        d.backward(retain_graph=True) # fine
        e.backward(retain_graph=True) # fine
        d.backward() # also fine
        with pytest.raises(RuntimeError, match=BACKWARD_TWICE):
            e.backward() # error will occur!

    assert [x.error is None for x in rec.backwards] == [True, True, True, False]
    s = before(rec, 1)
    c_id, b_id = only_labelled(s, "c").id, only_labelled(s, "b").id
    for k in (1, 2):
        for nid in (b_id, c_id):
            assert all(x.state == "alive" for x in after(rec, k).node(nid).saved)
    for nid in (b_id, c_id):
        n = after(rec, 3).node(nid)
        assert all(x.state == "freed" and x.released_by == 3 for x in n.saved)
        assert n.executed_by == [1, 2, 3]
    assert before(rec, 4).prediction is not None and before(rec, 4).prediction.will_fail
    assert before(rec, 4).prediction.node == c_id
    assert rec.backwards[3].failed_at == c_id
    (diag,) = diagnose(rec)
    assert diag.backward == 4 and diag.freed_by == [3]
    assert "retain_graph" in fix_keys(diag)


def test_seed002_two_headed_network() -> None:
    nn = torch.nn
    torch.manual_seed(0)
    with record() as rec:
        trunk = nn.Sequential(nn.Linear(8, 16), nn.ReLU(), nn.Linear(16, 16), nn.ReLU())
        cat_head = nn.Sequential(nn.Linear(16, 8), nn.ReLU(), nn.Linear(8, 1))
        car_head = nn.Sequential(nn.Linear(16, 8), nn.ReLU(), nn.Linear(8, 1))
        criterion = nn.MSELoss()
        params = (list(trunk.parameters()) + list(cat_head.parameters())
                  + list(car_head.parameters()))
        optimizer = torch.optim.SGD(params, lr=0.01)
        image = torch.randn(4, 8)
        is_cat, is_car = torch.ones(4, 1), torch.zeros(4, 1)

        features = trunk(image)
        loss1 = criterion(cat_head(features), is_cat)
        loss2 = criterion(car_head(features), is_car)
        # suppose you first back-propagate loss1, then loss2 (you can also do the reverse)
        loss1.backward(retain_graph=True)
        loss2.backward() # now the graph is freed, and next process of batch gradient descent is
        # ready

        optimizer.step() # update the network parameters

    assert [x.error for x in rec.backwards] == [None, None]
    s = before(rec, 1)
    r1, r2 = only_labelled(s, "loss1").id, only_labelled(s, "loss2").id
    trunk_top = only_labelled(s, "features")
    assert trunk_top.name == "ReluBackward0"
    trunk_ops = [n for n in reachable(s, trunk_top.id) if not is_accumulate(n)]
    assert len(trunk_ops) >= 4
    for n in trunk_ops:
        assert set(n.roots) == {r1, r2} and n.shared
    # each head belongs to one root
    head1 = [n for n in reachable(s, r1) if n.id not in {m.id for m in reachable(s, trunk_top.id)}]
    assert head1 and all(n.roots == [r1] and not n.shared for n in head1)
    # the trunk: kept by #1, freed by #2; loss1's head stays retained (only #1 ran it)
    for n in trunk_ops:
        assert all(x.state == "alive" for x in after(rec, 1).node(n.id).saved)
        done = after(rec, 2).node(n.id)
        assert all(x.state == "freed" and x.released_by == 2 for x in done.saved)
        assert done.executed_by == [1, 2]
    for n in head1:
        kept = after(rec, 2).node(n.id)
        assert kept.executed_by == [1]
        assert all(x.state == "alive" for x in kept.saved)
    assert diagnose(rec) == []


# -- seed 003: an intermediate kept for the next iteration ----------------------------------------
def _seed003_setup() -> tuple:
    nn = torch.nn
    torch.manual_seed(0)
    # 定义输入输出
    a = torch.Tensor([1, 2, 3])
    t = torch.Tensor([1])
    # 定义网络结构
    fc1 = nn.Linear(3, 5)
    fc2 = nn.Linear(5, 1)
    loss_func = nn.MSELoss()
    # 定义优化器
    sgd = torch.optim.SGD(params=list(fc1.parameters()) + list(fc2.parameters()), lr=0.01)
    return a, t, fc1, fc2, loss_func, sgd


def test_seed003_temp_append_h_fails_in_the_second_iteration() -> None:
    Variable = torch.autograd.Variable
    a, t, fc1, fc2, loss_func, sgd = _seed003_setup()
    losses = []
    failed_in = None
    with record() as rec:
        # 记录一个临时值
        temp = []

        # 执行10次循环
        for i in range(10):
            input = Variable(a)
            target = Variable(t)
            h = fc1(input)
            out = fc2(h)
            temp.append(h) # 把中间结果存一下用于下次forward
            if i != 0:
                out = out + temp[0].mean() # 第二次开始就使用temp中的变量计算
            loss = loss_func(out, target)
            sgd.zero_grad()
            try:
                loss.backward()
            except RuntimeError as e:
                assert str(e).startswith(BACKWARD_TWICE)
                failed_in = i
                break
            sgd.step()
            losses.append(loss.item())   # the seed's loss.data[0]: a 0-dim tensor now

    assert failed_in == 1 and len(losses) == 1
    s = before(rec, 2)
    failing = rec.backwards[1].failed_at
    assert failing is not None
    # the failing node is in temp[0]'s graph (iteration 0's h), freed by backward #1
    temp0 = only_labelled(s, "temp[0]")
    assert failing in {n.id for n in reachable(s, temp0.id)}
    n = s.node(failing)
    assert n.saved and all(x.state == "freed" and x.released_by == 1 for x in n.saved)
    assert n.executed_by == [1]
    assert n.source is not None and n.source["code"] == "h = fc1(input)"
    assert s.prediction is not None and s.prediction.will_fail and s.prediction.node == failing
    (diag,) = diagnose(rec)
    assert diag.node == failing and diag.freed_by == [1]
    # the story's fix first: `temp.append(h.detach())`; then the read of `temp[0]` detached
    assert fix_keys(diag)[:3] == ["detach", "detach", "retain_graph"]
    assert diag.fixes[0].title == "Keep `h.detach()` in `temp`"
    assert diag.fixes[0].detail.startswith("`temp.append(h.detach())` at line ")
    assert "`out = out + temp[0].detach().mean()`" in diag.fixes[1].detail
    # the diagnosis names the variable that holds the old graph
    assert "temp[0]" in diag.built_by["labels"] or "temp[0]" in diag.summary


def test_seed003_temp_append_h_detach_works() -> None:
    Variable = torch.autograd.Variable
    a, t, fc1, fc2, loss_func, sgd = _seed003_setup()
    losses = []
    with record() as rec:
        temp = []
        for i in range(10):
            input = Variable(a)
            target = Variable(t)
            h = fc1(input)
            out = fc2(h)
            temp.append(h.detach())
            if i != 0:
                out = out + temp[0].mean()
            loss = loss_func(out, target)
            sgd.zero_grad()
            loss.backward()
            sgd.step()
            losses.append(loss.item())

    assert len(losses) == 10 and len(rec.backwards) == 10
    assert all(x.error is None for x in rec.backwards)
    for k in range(1, 11):
        p = before(rec, k).prediction
        assert p is not None and not p.will_fail
    # nothing is kept from one iteration to the next: the saved memory does not grow
    alive = {before(rec, k).memory["saved_bytes_alive"] for k in range(2, 11)}
    assert len(alive) == 1
    assert not any(n.shared for k in range(1, 11) for n in before(rec, k).nodes)
    assert diagnose(rec) == []
