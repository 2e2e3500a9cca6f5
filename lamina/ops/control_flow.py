"""Branches and data-dependent loops: Keras's ``cond``, ``switch``, ``while_loop`` and
``fori_loop``.

With a concrete predicate (or index) a branch is chosen in Python and only it runs, as in
Keras's eager backends. With a symbolic one (a graph traced by ``lamina.jit`` or ``fit``)
every branch is traced and the results are selected when the graph runs (``where``), so
the choice is made per run. Side effects of branches under a symbolic predicate: variable
assignments are selected the same way (a variable keeps the value the chosen branch gives
it, or its old value), while Python side effects (printing, appending to a list) happen
for every branch, once, while tracing. Gradients flow into the chosen branch only.

``while_loop`` traced with ``maximum_iterations`` runs as a ``scan`` of that many steps
whose steps after the condition first fails keep the loop variables unchanged: one loop
node. Without ``maximum_iterations`` the trip count is data: one ``while`` node, whose
gradient (``lamina/ops/while_grad.py``) runs the loop again to learn it. Both are
differentiable, as Keras's TensorFlow and torch backends are (its JAX backend cannot
reverse-differentiate ``while_loop``); eagerly the loop is Python and the tape
differentiates it.
"""
from __future__ import annotations

from .. import tree
from ..core.symbolic import SymbolicTensor
from ..dtypes import is_float
from ..errors import ShapeError, describe_shape
from .compare import equal, logical_and
from .core import arange, cast
from .loop_tracing import (active_trace, any_symbolic, check_carry, check_same_specs,
                           placeholders, tensors_of, writes)
from .loops import scan
from .where_clip import clip, where
from ..core.op import Op, Spec, register_op
from .step_body import capture_step
from .refused import refused
from .while_grad import WhileGrad, while_gradient

__all__ = ["cond", "switch", "while_loop", "fori_loop"]


def cond(pred, true_fn, false_fn):
    """``true_fn()`` if ``pred`` else ``false_fn()``; see the module docstring for a
    symbolic ``pred``.

    Args:
        pred: A bool (a Python bool or a scalar tensor).
        true_fn: A function of no arguments, called when ``pred`` is true.
        false_fn: A function of no arguments, called otherwise; it returns the same
            structure as ``true_fn``.

    Returns:
        The output of the branch taken.
    """
    p = tensors_of("cond", pred)[0]
    if not isinstance(p, SymbolicTensor):
        return true_fn() if bool(p.numpy()) else false_fn()
    if tuple(p.shape) not in ((), (1,)):
        raise ShapeError(f"cond: argument 'pred' must be a scalar; received shape "
                         f"{describe_shape(tuple(p.shape))}")
    p = cast(p, "bool")
    return _select("cond", "true_fn and false_fn", [true_fn, false_fn], (),
                   lambda i: p if i == 0 else None)


def switch(index, branches, *operands):
    """``branches[index](*operands)``, ``index`` clamped to ``[0, len(branches) - 1]``.

    Args:
        index: An int (or int scalar tensor) choosing the branch.
        branches: A sequence of functions, each taking ``*operands``.
        *operands: The arguments passed to the branch.

    Returns:
        The output of the chosen branch.
    """
    branches = list(branches)
    if not branches or not all(callable(b) for b in branches):
        raise ValueError(f"switch: argument 'branches' must be a non-empty sequence of "
                         f"callables; received {branches!r}")
    i = tensors_of("switch", index)[0]
    last = len(branches) - 1
    if not isinstance(i, SymbolicTensor):
        return branches[min(max(int(i.numpy()), 0), last)](*operands)
    if tuple(i.shape) != ():
        raise ShapeError(f"switch: argument 'index' must be a scalar; received shape "
                         f"{describe_shape(tuple(i.shape))}")
    i = clip(cast(i, "int32"), 0, last)
    return _select("switch", "every branch", branches, operands,
                   lambda k: equal(i, k) if k < last else None)


def _select(op, what, branches, operands, chosen):
    """Trace every branch, check they agree, select their results and variable writes:
    ``chosen(k)`` is the boolean that picks branch ``k`` over the later ones (None for the
    last)."""
    trace = active_trace()
    current = dict(trace.current) if trace is not None else {}
    updates = dict(trace.updates) if trace is not None else {}
    results, written = [], []
    for branch in branches:
        out = branch(*operands)
        results.append(tree.pack_sequence_as(out, tensors_of(op, out)) if out is not None
                       else out)
        if trace is not None:
            written.append({k: v for k, v in trace.updates.items() if updates.get(k) != v})
            trace.current.clear()
            trace.current.update(current)
            trace.updates.clear()
            trace.updates.update(updates)
    for other in results[1:]:
        check_same_specs(op, what, results[0], other)
    merged = tree.flatten(results[-1])
    for k in range(len(branches) - 2, -1, -1):
        pick = chosen(k)
        merged = [None if b is None else where(pick, a, b)
                  for a, b in zip(tree.flatten(results[k]), merged)]
    for key in {k for w in written for k in w}:
        variable = next(w[key][0] for w in written if key in w)
        values = [w[key][1] if key in w else trace.read(variable) for w in written]
        value = values[-1]
        for k in range(len(branches) - 2, -1, -1):
            value = where(chosen(k), values[k], value)
        trace.assign(variable, value)
    return tree.pack_sequence_as(results[0], merged)


def while_loop(cond, body, loop_vars, maximum_iterations=None):
    """``loop_vars = body(*loop_vars)`` while ``cond(*loop_vars)`` (a single non-sequence
    ``loop_vars`` is passed as one argument), at most ``maximum_iterations`` times; returns
    the final loop variables (a tuple for a tuple or list ``loop_vars``).

    Args:
        cond: A function of the loop variables returning a bool.
        body: A function of the loop variables returning new ones of the same structure.
        loop_vars: The initial loop variables: a tensor or a tuple/list of them.
        maximum_iterations: Optional cap on the number of iterations.

    Returns:
        The final loop variables.
    """
    is_tuple = isinstance(loop_vars, (tuple, list))
    state = tuple(loop_vars) if is_tuple else (loop_vars,)
    state = tree.pack_sequence_as(state, tensors_of("while_loop", state))
    limit = _iterations(maximum_iterations)

    def call_cond(s):
        return cond(*s)

    def call_body(s):
        out = body(*s)
        if is_tuple:
            if not isinstance(out, (tuple, list)):
                raise ValueError(f"while_loop: body must return a tuple or list like "
                                 f"loop_vars; received {out!r}")
            out = tuple(out)
        else:
            out = (out,)
        out = tree.pack_sequence_as(out, tensors_of("while_loop", out, like=s)) \
            if len(tree.flatten(out)) == len(tree.flatten(s)) else out
        check_carry("while_loop", "the loop_vars body returns", s, out)
        return out

    leaves = tree.flatten(state)
    if not any_symbolic(*leaves):
        steps = 0
        while (limit is None or steps < limit) and bool(
                _predicate(call_cond(state)).numpy().reshape(())):
            state = call_body(state)
            steps += 1
    else:
        try:
            state = _bounded(call_cond, call_body, state, limit) if limit is not None \
                else _unbounded(call_cond, call_body, state)
        except _NonScalarCondition as error:   # Keras's symbolic rule: the loop_vars' specs
            specs = [(tuple(x.shape), x.dtype) for x in leaves]
            state = tree.pack_sequence_as(state, list(refused(ShapeError, str(error), leaves,
                                                              specs)))
    return state if is_tuple else state[0]


class _NonScalarCondition(ShapeError):
    """``cond`` returned a non-scalar: refused at once in eager mode, when run if traced."""


def traced_while(cond, body, loop_vars: tuple):
    """``while_loop`` as one ``while`` node whatever its inputs (concrete ones run it now):
    ``cond(*loop_vars)``, ``body(*loop_vars) -> tuple``."""
    state = tuple(tensors_of("while_loop", loop_vars))
    return _unbounded(lambda s: cond(*s), lambda s: tuple(body(*s)), state)


def _iterations(maximum_iterations):
    if maximum_iterations is None:
        return None
    value = maximum_iterations
    if not isinstance(value, int):
        leaf = tensors_of("while_loop", value)[0]
        value = None if isinstance(leaf, SymbolicTensor) or is_float(leaf.dtype) or \
            tuple(leaf.shape) != () else int(leaf.numpy())
    if value is None or isinstance(value, bool) or value < 0:
        raise ValueError(f"while_loop: argument 'maximum_iterations' must be a "
                         f"non-negative int known when the loop is built, or None; "
                         f"received maximum_iterations={maximum_iterations!r}")
    return value


def _predicate(value):
    p = tensors_of("while_loop", value)[0]
    if tuple(p.shape) not in ((), (1,)):
        raise _NonScalarCondition(f"while_loop: cond must return a scalar; received "
                                  f"shape {describe_shape(tuple(p.shape))}")
    return cast(p, "bool")


def _bounded(call_cond, call_body, state, limit):
    """``limit`` steps of one scan node; a step after the condition failed is a no-op."""
    def step(carry, _):
        running, s = carry
        go = logical_and(running, _predicate(call_cond(s)))
        new = call_body(s)
        kept = [None if a is None else where(go, a, b)
                for a, b in zip(tree.flatten(new), tree.flatten(s))]
        return (go, tree.pack_sequence_as(s, kept)), None
    if limit == 0:
        return state
    (_, final), _ = scan(step, (cast(1, "bool"), state), length=limit)
    return final


def _unbounded(call_cond, call_body, state):
    leaves = tree.flatten(state)
    trace = active_trace()
    before = writes(trace)
    cond_ph = placeholders(leaves, "loop_var")
    pred = _predicate(call_cond(tree.pack_sequence_as(state, cond_ph)))
    body_ph = placeholders(leaves, "loop_var")
    new = tree.flatten(call_body(tree.pack_sequence_as(state, body_ph)))
    if writes(trace) != before:
        raise ValueError("while_loop: a body or cond that assigns variables cannot run as a "
                         "traced loop without a bound; pass maximum_iterations")
    cond_step = capture_step([], [], [], [pred], constants=cond_ph)
    body_step = capture_step([], body_ph, new, [])
    if cond_step is None or body_step is None:
        raise ValueError("while_loop: a body or cond that draws random numbers cannot run "
                         "as a traced loop without a bound; pass maximum_iterations")
    (cond_body, cond_consts), (loop_body, body_consts) = cond_step, body_step
    results = While(*leaves, *cond_consts, *body_consts, cond=cond_body, body=loop_body,
                    n_cond=len(cond_consts))
    return tree.pack_sequence_as(state, list(results))


def fori_loop(lower, upper, body_fun, init_val):
    """``val = body_fun(i, val)`` for ``i`` in ``[lower, upper)``. Bounds known when the
    loop is built (Python ints, concrete tensors) make a ``scan`` (differentiable);
    symbolic bounds make a ``while_loop``.

    Args:
        lower: The first index (an int or an int scalar tensor).
        upper: The end index, excluded (an int or an int scalar tensor).
        body_fun: A function ``(i, val) -> val``.
        init_val: The initial value (a tensor or a nested structure).

    Returns:
        The final value.
    """
    low, high = _static_int(lower), _static_int(upper)
    if low is None or high is None:
        def below(i, val):
            return i < upper
        return while_loop(below, lambda i, val: (i + 1, body_fun(i, val)),
                          (tensors_of("fori_loop", lower)[0], init_val))[1]
    if high <= low:
        return init_val
    indices = arange(low, high, dtype="int32")
    return scan(lambda val, i: (body_fun(i, val), None), init_val, indices)[0]


def _static_int(x):
    if isinstance(x, bool) or x is None:
        return None
    if isinstance(x, int):
        return x
    leaf = tensors_of("fori_loop", x)[0]
    return None if isinstance(leaf, SymbolicTensor) else int(leaf.numpy())


@register_op
class While(Op):
    """``while_loop`` with a data-dependent trip count: inputs are the loop variables, the
    values the condition reads, then those the body reads; outputs the final loop
    variables. ``cond`` and ``body`` are step sub-graphs (``lamina/ops/step_body.py``)."""
    name = "while"

    def output_spec(self, *inputs, cond=None, body=None, n_cond=0):
        n = body.n_carry
        if len(inputs) != n + n_cond + body.n_const:
            raise ValueError(f"{self.name}: expected {n} loop variables, {n_cond} values of "
                             f"the condition and {body.n_const} of the body; received "
                             f"{len(inputs)} inputs")
        return tuple(Spec(tuple(x.shape), x.dtype) for x in inputs[:n])

    def forward(self, backend, *arrays, out=None, cond=None, body=None, n_cond=0):
        n = body.n_carry
        values = list(arrays[:n])
        cond_inputs, body_inputs = list(arrays[n:n + n_cond]), list(arrays[n + n_cond:])
        while bool(backend.to_host(cond.forward(backend, values + cond_inputs)[0][0])):
            values = list(body.forward(backend, values + body_inputs)[0])
        return tuple(values)

    def gradient(self, ctx, *grads):
        return while_gradient(ctx, grads, WhileGrad)
