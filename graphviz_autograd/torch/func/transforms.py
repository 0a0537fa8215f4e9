"""``torch.func``'s transforms: ``grad``, ``grad_and_value``, ``vjp``, ``jacrev``, ``jacfwd``,
``hessian`` and ``jvp``, computed with the engine's ``autograd.grad`` and its forward mode.

Each call lifts its differentiated inputs to fresh tensors that require grad (a detached copy, or
a ``view_as`` alias of an input that already requires grad, so an enclosing transform or graph
still reaches it), runs the function under ``enable_grad`` and differentiates. The gradients are
built with ``create_graph=True`` only when something outside can differentiate them (an input
that requires grad, or an enclosing transform): ``jacrev(jacrev(f))`` and ``hessian`` compose.

``jvp`` and ``jacfwd`` run in forward mode (a dual level, one column per input element for
``jacfwd``), as PyTorch does, where no dual level is open yet; inside one (the engine has a single
level) and where a tangent's dtype differs from its primal's, from the reverse-mode Jacobian.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

from ...engine import forward_ad as fw
from ...engine import functional as F
from ...engine.executor import grad as autograd_grad
from ...engine.factories import zeros, zeros_like
from ...engine.grad_mode import enable_grad
from ...engine.grad_mode import state as grad_state
from ...engine.tensor import Tensor
from .pytree import flatten, tree_map, unflatten

__all__ = ["grad", "grad_and_value", "vjp", "jacrev", "jacfwd", "hessian", "jvp", "linearize"]

# how many differentiating transforms are running (an inner one then keeps its graph)
_depth = [0]


def _check_argnums(argnums: Any, n: int) -> tuple[int, ...]:
    nums = argnums if isinstance(argnums, tuple) else (argnums,)
    if not nums or not all(isinstance(a, int) and not isinstance(a, bool) for a in nums):
        if isinstance(argnums, tuple) and not nums:
            raise RuntimeError("argnums must be non-empty")
        raise RuntimeError(f"argnums must be int or Tuple[int, ...], got: {type(argnums)}")
    out = []
    for a in nums:
        if not -n <= a < n:
            raise RuntimeError(f"Got argnum={a}, but only {n} positional inputs")
        out.append(a % n)
    if len(set(out)) != len(out):
        raise RuntimeError(f"argnums must be unique, got {argnums}")
    return tuple(out)


def _lift(t: Any) -> Tensor:
    if not isinstance(t, Tensor):
        raise ValueError(f"Thing passed to transform API must be Tensor, got {type(t)}")
    if t.requires_grad:
        return t.view_as(t)          # NB: an alias, not t itself: a closure over t stays apart
    if grad_state.dual and fw.tangent_of(t) is not None:
        # NB: a view keeps the tangent an enclosing forward transform gave (detach drops it)
        return t.view_as(t).requires_grad_(True)
    return t.detach().requires_grad_(True)


class _Lifted:
    """The positional arguments with those in ``argnums`` lifted (each a tree of tensors)."""

    def __init__(self, args: tuple[Any, ...], argnums: Any) -> None:
        self.nums = _check_argnums(argnums, len(args))
        self.single = not isinstance(argnums, tuple)
        new = list(args)
        self.trees = []
        for i in self.nums:
            leaves, spec = flatten(args[i])
            lifted = [_lift(v) for v in leaves]
            self.trees.append((lifted, spec))
            new[i] = unflatten(lifted, spec)
        self.args = tuple(new)
        outer = [v for i in self.nums for v in flatten(args[i])[0]]
        self.create_graph = grad_state.enabled and (
            _depth[0] > 0 or any(isinstance(v, Tensor) and v.requires_grad for v in outer))

    @property
    def inputs(self) -> list[Tensor]:
        return [v for leaves, _ in self.trees for v in leaves]

    def pack(self, flat: list[Any]) -> Any:
        """Per-input results (in ``inputs`` order) back in the arguments' structure."""
        out, at = [], 0
        for leaves, spec in self.trees:
            out.append(unflatten(flat[at:at + len(leaves)], spec))
            at += len(leaves)
        return out[0] if self.single else tuple(out)


def _run(lifted: _Lifted, func: Callable[..., Any], kwargs: dict[str, Any]) -> Any:
    _depth[0] += 1
    try:
        with enable_grad():
            return func(*lifted.args, **kwargs)
    finally:
        _depth[0] -= 1


def _grads(outs: list[Tensor], ins: list[Tensor], gos: list[Any] | None,
           create_graph: bool, retain: bool = False) -> list[Tensor]:
    """d(outs)/d(ins) weighted by ``gos``; zeros for an input the outputs do not reach."""
    given: list[Any] = gos or [None] * len(outs)
    pairs = [(o, g) for o, g in zip(outs, given, strict=True)
             if o.requires_grad]
    if not pairs:
        found: tuple[Any, ...] = (None,) * len(ins)
    else:
        found = autograd_grad([o for o, _ in pairs], ins,
                              None if gos is None else [g for _, g in pairs],
                              retain_graph=retain or create_graph, create_graph=create_graph,
                              allow_unused=True)
    return [zeros_like(t) if g is None else g for t, g in zip(ins, found, strict=True)]


def _out(t: Any, keep: bool) -> Any:
    return t if keep or not isinstance(t, Tensor) else t.detach()


def _split_aux(out: Any, has_aux: bool, what: str) -> tuple[Any, Any]:
    if not has_aux:
        return out, None
    if not (isinstance(out, tuple) and len(out) == 2):
        raise RuntimeError(f"{what}: output of function f should be a tuple: (output, aux) "
                           "if has_aux is True")
    return out


def grad_and_value(func: Callable[..., Any], argnums: Any = 0,
                   has_aux: bool = False) -> Callable[..., Any]:
    """``torch.func.grad_and_value``: ``(gradient, value)`` of a function returning a scalar.

    >>> import graphviz_autograd.torch as torch
    >>> g, v = grad_and_value(lambda x: (x ** 2).sum())(torch.tensor([1.0, 2.0]))
    >>> g, v
    (tensor([2., 4.]), tensor(5.))
    """
    @functools.wraps(func)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        lifted = _Lifted(args, argnums)
        out, aux = _split_aux(_run(lifted, func, kwargs), has_aux,
                              "grad_and_value(f)(*args)")
        if not isinstance(out, Tensor):
            raise RuntimeError("grad_and_value(f)(*args): Expected f(*args) to return a Tensor, "
                               f"got {type(out)}")
        if out.dim() != 0:
            raise RuntimeError("grad_and_value(f)(*args): Expected f(*args) to return a scalar "
                               f"Tensor, got tensor with {out.dim()} dims. Maybe you wanted to "
                               "use the vjp or jacrev APIs instead?")
        keep = lifted.create_graph
        gs = _grads([out], lifted.inputs, None, keep)
        g = lifted.pack([_out(v, keep) for v in gs])
        value = _out(out, keep)
        if has_aux:
            return g, (value, tree_map(lambda v: _out(v, keep), aux))
        return g, value
    return wrapper


def grad(func: Callable[..., Any], argnums: Any = 0, has_aux: bool = False) -> Callable[..., Any]:
    """``torch.func.grad``: the gradient of a function returning a scalar tensor.

    >>> import graphviz_autograd.torch as torch
    >>> grad(lambda x: x.sin().sum())(torch.tensor([0.0]))
    tensor([1.])
    """
    gv = grad_and_value(func, argnums, has_aux)

    @functools.wraps(func)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        g, value = gv(*args, **kwargs)
        return (g, value[1]) if has_aux else g
    return wrapper


def _tensor_outputs(out: Any, what: str) -> tuple[list[Tensor], Any]:
    leaves, spec = flatten(out)
    for v in leaves:
        if not isinstance(v, Tensor):
            raise RuntimeError(f"{what}: expected f(*primals) to return only tensors, got "
                               f"unsupported type {type(v)}")
    return leaves, spec


def vjp(func: Callable[..., Any], *primals: Any, has_aux: bool = False) -> Any:
    """``torch.func.vjp``: ``(func(*primals), vjp_fn)``; ``vjp_fn(cotangents)`` gives one
    gradient per primal.

    >>> import graphviz_autograd.torch as torch
    >>> out, fn = vjp(lambda x: x * 3, torch.tensor([1.0, 2.0]))
    >>> fn(torch.tensor([1.0, 1.0]))
    (tensor([3., 3.]),)
    """
    lifted = _Lifted(primals, tuple(range(len(primals)))) if primals else None
    if lifted is None:
        raise RuntimeError("vjp(f, *primals): expected at least one primal")
    out, aux = _split_aux(_run(lifted, func, {}), has_aux, "vjp(f, *primals)")
    outs, spec = _tensor_outputs(out, "vjp(f, *primals)")
    keep = lifted.create_graph

    def vjp_fn(cotangents: Any, *, retain_graph: bool = True,
               create_graph: bool | None = None) -> tuple[Any, ...]:
        cots, cspec = flatten(cotangents)
        if cspec != spec:
            raise RuntimeError("Expected pytree structure of cotangents to be the same as "
                               f"pytree structure of outputs to the function. cotangents: "
                               f"{cspec}, primal output: {spec}")
        cg = keep if create_graph is None else create_graph
        gs = _grads(outs, lifted.inputs, cots, cg, retain=retain_graph)
        packed = lifted.pack([_out(v, cg) for v in gs])
        return packed
    result = unflatten([_out(v, keep) for v in outs], spec)
    if has_aux:
        return result, vjp_fn, tree_map(lambda v: _out(v, keep), aux)
    return result, vjp_fn


def _jacobian(outs: list[Tensor], ins: list[Tensor], keep: bool) -> list[list[Tensor]]:
    """``jac[o][i]``: d outs[o] / d ins[i], of shape ``outs[o].shape + ins[i].shape``,
    one backward pass per output element."""
    jac = []
    for o in outs:
        n = o.numel()
        rows: list[list[Tensor]] = [[] for _ in ins]
        for k in range(n):
            basis = zeros_like(o).reshape(-1)
            basis._data[k] = 1
            gs = _grads([o], ins, [basis.reshape(o.shape)], keep, retain=True)
            for r, g in zip(rows, gs, strict=True):
                r.append(g)
        per_in = []
        for t, r in zip(ins, rows, strict=True):
            shape = (*o.shape, *t.shape)
            if not r:
                per_in.append(zeros(shape, dtype=t.dtype))
            else:
                per_in.append(_out(F.stack(r).reshape(shape), keep))
        jac.append(per_in)
    return jac


def jacrev(func: Callable[..., Any], argnums: Any = 0, *, has_aux: bool = False,
           chunk_size: int | None = None, _preallocate_and_copy: bool = False
           ) -> Callable[..., Any]:
    """``torch.func.jacrev``: the Jacobian of ``func`` w.r.t. the ``argnums`` inputs.

    >>> import graphviz_autograd.torch as torch
    >>> jacrev(lambda x: x * x)(torch.tensor([1.0, 2.0]))
    tensor([[2., 0.],
            [0., 4.]])
    """
    if chunk_size is not None and not (isinstance(chunk_size, int) and chunk_size > 0):
        raise ValueError("jacrev: `chunk_size` should be greater than 0.")

    @functools.wraps(func)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        lifted = _Lifted(args, argnums)
        out, aux = _split_aux(_run(lifted, func, kwargs), has_aux, "jacrev(f, ...)(*args)")
        outs, spec = _tensor_outputs(out, "jacrev(f, ...)(*args)")
        keep = lifted.create_graph
        jac = _jacobian(outs, lifted.inputs, keep)
        result = unflatten([lifted.pack(row) for row in jac], spec)
        if has_aux:
            return result, tree_map(lambda v: _out(v, keep), aux)
        return result
    return wrapper


def jacfwd(func: Callable[..., Any], argnums: Any = 0, has_aux: bool = False, *,
           randomness: str = "error") -> Callable[..., Any]:
    """``torch.func.jacfwd``: the Jacobian in forward mode, one input element at a time.

    >>> import graphviz_autograd.torch as torch
    >>> jacfwd(lambda x: x.sum())(torch.tensor([1.0, 2.0]))
    tensor([1., 1.])
    """
    if randomness not in ("error", "different", "same"):
        raise RuntimeError("Only allowed values for randomness are 'error', 'different', or "
                           f"'same'. Got {randomness}")
    backward = jacrev(func, argnums, has_aux=has_aux)

    @functools.wraps(func)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        lifted = _Lifted(args, argnums)
        leaves = [v for i in lifted.nums for v in flatten(args[i])[0]]
        if not _forward_mode(leaves, leaves):
            return backward(*args, **kwargs)
        where = "jacfwd(f, ...)(*args)"
        keep = lifted.create_graph
        cols: list[list[list[Tensor]]] = []         # per input, per element: outputs' tangents
        got = None
        for i, v in enumerate(leaves):
            cols.append([])
            for k in range(v.numel()):
                tans: list[Tensor | None] = [None] * len(leaves)
                basis = zeros_like(v).reshape(-1)
                basis._data[k] = 1
                tans[i] = basis.reshape(v.shape)
                got = _in_dual(func, args, lifted.nums, tans, kwargs, has_aux, where)
                cols[i].append(got[2])
        if got is None:
            got = _in_dual(func, args, lifted.nums, [None] * len(leaves), kwargs, has_aux, where)
        outs, spec, _, aux = got
        jac = []
        for o_nr, o in enumerate(outs):
            per_in = []
            for v, col in zip(leaves, cols, strict=True):
                shape = (*o.shape, *v.shape)
                if not col:
                    per_in.append(zeros(shape, dtype=o.dtype))
                else:
                    stacked = F.stack([c[o_nr] for c in col], o.dim())
                    per_in.append(_out(stacked.reshape(shape), keep))
            jac.append(per_in)
        result = unflatten([lifted.pack(row) for row in jac], spec)
        if has_aux:
            return result, tree_map(lambda v: _out(v, keep), aux)
        return result
    return wrapper


def _forward_mode(primals: list[Any], tangents: list[Any]) -> bool:
    """Whether forward mode gives PyTorch's values: no dual level open yet (the engine has one),
    floating primals, each tangent of its primal's dtype."""
    return not grad_state.dual and all(
        isinstance(p, Tensor) and isinstance(t, Tensor) and p.is_floating_point()
        and t.dtype == p.dtype for p, t in zip(primals, tangents, strict=True))


def _in_dual(func: Callable[..., Any], args: tuple[Any, ...], nums: tuple[int, ...],
             tans: list[Tensor | None], kwargs: dict[str, Any], has_aux: bool, where: str
             ) -> tuple[list[Tensor], Any, list[Tensor], Any]:
    """``func(*args)`` in a dual level, the leaves of ``args[nums]`` given ``tans`` (in order;
    None: none): the outputs' primals, their structure, their tangents (zeros where none), and
    the aux output's primals."""
    new = list(args)
    at = 0
    _depth[0] += 1
    try:
        with fw.dual_level():
            for i in nums:
                leaves, spec = flatten(args[i])
                duals = []
                for v in leaves:
                    t = tans[at]
                    at += 1
                    duals.append(v if t is None else fw.make_dual(v, t))
                new[i] = unflatten(duals, spec)
            out, aux = _split_aux(func(*new, **kwargs), has_aux, where)
            outs, spec = _tensor_outputs(out, where)
            primals, tangents = [], []
            for o in outs:
                p, t = fw.unpack_dual(o)
                primals.append(p)
                tangents.append(zeros_like(o) if t is None else t)
            aux = tree_map(lambda v: fw.unpack_dual(v).primal if isinstance(v, Tensor) else v,
                           aux)
            return primals, spec, tangents, aux
    finally:
        _depth[0] -= 1


def hessian(func: Callable[..., Any], argnums: Any = 0) -> Callable[..., Any]:
    """``torch.func.hessian``: ``jacfwd(jacrev(func, argnums), argnums)``.

    >>> import graphviz_autograd.torch as torch
    >>> hessian(lambda x: (x ** 3).sum())(torch.tensor([1.0, 2.0]))
    tensor([[ 6.,  0.],
            [ 0., 12.]])
    """
    return jacfwd(jacrev(func, argnums), argnums)


def _contract(outs: list[Tensor], jac: list[list[Tensor]], tans: list[Tensor]) -> list[Tensor]:
    """``J @ t`` for each output, summed over the inputs (in the tangents' dtype)."""
    res = []
    for o, row in zip(outs, jac, strict=True):
        total = None
        for t, j in zip(tans, row, strict=True):
            flat = j.to(t.dtype).reshape(o.numel(), -1) @ t.reshape(-1)
            total = flat if total is None else total + flat
        assert total is not None
        res.append(total.reshape(o.shape))
    return res


def jvp(func: Callable[..., Any], primals: Any, tangents: Any, *, strict: bool = False,
        has_aux: bool = False) -> Any:
    """``torch.func.jvp``: ``(func(*primals), J @ tangents)``, in forward mode.

    >>> import graphviz_autograd.torch as torch
    >>> jvp(lambda x: x * 2, (torch.tensor([1.0]),), (torch.tensor([3.0]),))
    (tensor([2.]), tensor([6.]))
    """
    where = "jvp(f, primals, tangents)"
    if not isinstance(primals, tuple):
        raise RuntimeError(f"{where}: Expected primals to be a tuple. E.g. it should be valid to "
                           "call f(*primals).")
    pleaves, pspec = flatten(primals)
    tleaves, tspec = flatten(tangents)
    if tspec != pspec:
        raise RuntimeError(f"{where}: Expected primals and tangents to have the same python "
                           "structure. For example, if primals is a tuple of 3 tensors, tangents "
                           f"also must be. Got primals with structure {pspec} and tangents with "
                           f"structure {tspec}")
    for p, t in zip(pleaves, tleaves, strict=True):
        if not isinstance(p, Tensor):
            raise RuntimeError(f"{where}: Expected primals to only contain Tensors, got "
                               f"{type(p)}")
        if not isinstance(t, Tensor):
            raise RuntimeError(f"{where}: Expected tangents to only contain Tensors, got "
                               f"{type(t)}")
        if tuple(t.shape) != tuple(p.shape):
            raise RuntimeError("Trying to set a forward gradient that has a different size than "
                               "that of the original Tensor, this is not supported. Tensor is of "
                               f"size {list(p.shape)} while the given forward gradient is of "
                               f"size {list(t.shape)}.")
    lifted = _Lifted(primals, tuple(range(len(primals))))
    keep = lifted.create_graph
    if _forward_mode(pleaves, tleaves):
        outs, spec, tans, aux = _in_dual(func, primals, lifted.nums, tleaves, {}, has_aux, where)
        pair = (unflatten([_out(v, keep) for v in outs], spec),
                unflatten([_out(v, keep) for v in tans], spec))
        if has_aux:
            return (*pair, tree_map(lambda v: _out(v, keep), aux))
        return pair
    out, aux = _split_aux(_run(lifted, func, {}), has_aux, where)
    outs, spec = _tensor_outputs(out, where)
    res = _contract(outs, _jacobian(outs, lifted.inputs, keep), tleaves)
    pair = (unflatten([_out(v, keep) for v in outs], spec), unflatten(res, spec))
    if has_aux:
        return (*pair, tree_map(lambda v: _out(v, keep), aux))
    return pair


def linearize(func: Callable[..., Any], *primals: Any) -> tuple[Any, Callable[..., Any]]:
    """``torch.func.linearize``: ``(func(*primals), jvp_fn)``, ``jvp_fn(*tangents)`` giving
    ``J @ tangents`` at ``primals`` (the Jacobian computed once).

    >>> import graphviz_autograd.torch as torch
    >>> out, jvp_fn = linearize(torch.sin, torch.tensor([0.0]))
    >>> jvp_fn(torch.tensor([2.0]))
    tensor([2.])
    """
    lifted = _Lifted(primals, tuple(range(len(primals))))
    outs, spec = _tensor_outputs(_run(lifted, func, {}), "linearize(f, *primals)")
    keep = lifted.create_graph
    jac = _jacobian(outs, lifted.inputs, keep)
    pleaves = flatten(primals)[0]

    def jvp_fn(*tangents: Any) -> Any:
        tleaves = flatten(tangents)[0]
        for i, (p, t) in enumerate(zip(pleaves, tleaves, strict=True)):
            if tuple(t.shape) != tuple(p.shape):
                raise RuntimeError(f"tangent:{i} with shape {t.shape} in flattened pytree "
                                   f"doesn't match the shape {p.shape} of the corresponding "
                                   "primal.")
        return unflatten(_contract(outs, jac, tleaves), spec)
    return unflatten([_out(v, keep) for v in outs], spec), jvp_fn
