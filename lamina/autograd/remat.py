"""Rematerialization (gradient checkpointing): Keras 3's ``keras.remat``.

``remat(f)(*args)`` computes ``f(*args)`` without keeping its intermediate values for the
backward pass; the backward pass runs ``f`` again and differentiates that recomputation.

- Eagerly, the forward runs under ``no_grad`` (no tape keeps its intermediates); one
  ``custom_gradient`` node links the tensor arguments and the trainable variables ``f``
  read to the outputs, and its gradient recomputes ``f`` under a fresh tape.
- While a graph is traced, the forward nodes feed only the outputs; the gradient emits a
  second copy of ``f``'s nodes whose inputs pass through ``recompute_barrier`` (with the
  upstream gradients as extra inputs), so the copy runs in the backward pass and the
  graph passes cannot merge it into the forward one: the memory plan frees the forward's
  intermediates once the outputs are computed.

The recomputation reads every variable with the value ``f`` read the first time (captured
as ``f`` runs) inside a StatelessScope, so state that ``f`` updates (a seed generator, a
batch normalization's moving statistics) is neither updated twice nor read changed: the
recomputation draws the same dropout masks and gives the same values as the forward.
"""
from __future__ import annotations

import functools

from .. import tree
from ..dtypes import is_float
from ..core import mode
from ..core.op import OP_REGISTRY
from ..ops.gradient_override import _Backward
from ..ops.loop_tracing import tensors_of
from ..core.stateless_scope import StatelessScope, get_stateless_scope
from .tape import GradientTape, no_grad
from ..core.tensor import Tensor, TensorBase
from ..core.variable import Variable



class _Reads:
    """The variables a function read, each with the value it read first."""

    def __init__(self):
        self.values: dict[int, tuple] = {}          # id(variable) -> (variable, value)

    def note(self, variable) -> None:
        if id(variable) in self.values:
            return
        scope = get_stateless_scope()
        value = scope.get_current_value(variable) if scope is not None else None
        if value is None:
            recording = mode.active_trace()
            value = recording.read(variable) if recording is not None else \
                Tensor._wrap(variable.data.copy(), variable.backend)
        self.values[id(variable)] = (variable, value)

    def note_inputs(self, inputs: tuple) -> None:
        """Called by ``core/mode`` with every op's inputs while this function runs."""
        for x in inputs:
            if isinstance(x, Variable):
                self.note(x)

    def __enter__(self):
        mode.enter("reads", self)
        return self

    def __exit__(self, *exc) -> None:
        mode.leave("reads", self)


def remat(f):
    """``f`` with rematerialization: the same values and gradients, with ``f``'s
    intermediates recomputed in the backward pass instead of kept from the forward.

    Args:
        f: the function to rematerialize.

    Returns:
        A function with the signature and results of ``f``.

    Example:

    >>> import lamina as keras
    >>> f = keras.remat(lambda x: keras.ops.sin(x) * 2)
    >>> f(keras.ops.convert_to_tensor([0.0])).numpy()
    array([0.], dtype=float32)
    """
    if not callable(f):
        raise TypeError(f"remat: argument 'f' must be callable; received {f!r}")

    @functools.wraps(f)
    def rematerialized(*args, **kwargs):
        leaves = tree.flatten(args)
        positions = [i for i, x in enumerate(leaves) if isinstance(x, TensorBase)]
        with _Reads() as reads:
            if mode.active_trace() is None:
                with no_grad():
                    output = f(*args, **kwargs)
            else:
                output = f(*args, **kwargs)
        snapshots = list(reads.values.values())
        trained = [(v, value) for v, value in snapshots if v.trainable and _is_float(v)]
        scope = get_stateless_scope()
        sources = [value if scope is not None and scope.get_current_value(v) is value
                   else v for v, value in trained]       # mapped values get the gradient
        arguments = [leaves[i] for i in positions]

        def backward(upstream):
            after = [g for g in tree.flatten(upstream) if isinstance(g, TensorBase)]
            fenced = [OP_REGISTRY["recompute_barrier"](x, *after) for x in arguments]
            new_leaves = list(leaves)
            for i, x in zip(positions, fenced):
                new_leaves[i] = x
            replay = StatelessScope()
            replay.state_mapping = {id(v): value for v, value in snapshots}
            with replay, GradientTape(watch_accessed_variables=False) as tape:
                tape.watch([value for _, value in trained] + fenced)
                again = f(*tree.pack_sequence_as(args, new_leaves), **kwargs)
            grads = tape.gradient(tree.flatten(again), fenced + [v for _, v in trained],
                                  output_gradients=tree.flatten(upstream))
            return grads

        node = OP_REGISTRY["custom_gradient"]
        outputs = tensors_of("remat", output)
        inputs = arguments + sources
        values = node(*inputs, *outputs,
                      grad_fn=_Backward(backward, output, len(inputs),
                                        list(range(len(inputs))), _name(f)))
        values = values if isinstance(values, (tuple, list)) else (values,)
        return tree.pack_sequence_as(output, list(values))
    return rematerialized


def _is_float(variable) -> bool:
    return is_float(variable.dtype)


def _name(f) -> str:
    return getattr(f, "__name__", type(f).__name__)
