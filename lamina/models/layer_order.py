"""Keras's order of a functional model's ``layers``: by depth from the outputs (deepest,
i.e. nearest the inputs, first), ties broken by when a depth-first walk from the outputs
first meets the layer. Keras 3's ``.weights.h5`` paths (``layers/conv2d_3``) number layers
in this order, so a branched model (a residual block's shortcut) must list its layers the
same way for Keras's files to load; execution order is separate (``Functional._steps``).
"""
from __future__ import annotations

__all__ = ["keras_layer_order"]


def _operation(step):
    """The operation a step runs: a layer (possibly shared by several steps) or an op."""
    return getattr(step, "layer", None) or step.node


def _key(step) -> int:
    return id(step.node) if not hasattr(step, "layer") else id(step)


def keras_layer_order(inputs, outputs, producer) -> list:
    """Every operation between ``inputs`` and ``outputs`` in Keras's ``map_graph`` order;
    ``producer(tensor)`` is the step that computed ``tensor`` (None for none)."""
    input_ids = {id(x) for x in inputs}
    post_order, index, parents, finished = [], {}, {}, set()
    for out in outputs:
        stack = [(out, None)]
        while stack:                        # an explicit stack: models may be very deep
            tensor, pending = stack.pop()
            if pending is not None:         # all parents done: the step itself
                step = pending
                finished.add(_key(step))
                post_order.append(step)
                continue
            step = producer(tensor)
            if step is None or _key(step) in finished:
                continue
            if id(tensor) in input_ids and step.input_tensors:
                finished.add(_key(step))
                continue
            index.setdefault(id(_operation(step)), len(index))
            parent_steps = [producer(x) for x in step.input_tensors]
            parents[_key(step)] = [p for p in parent_steps if p is not None]
            stack.append((None, step))
            for parent in reversed(step.input_tensors):
                stack.append((parent, None))
    depth_of_node, depth_of_op, operations = {}, {}, {}
    in_graph = {_key(step) for step in post_order}
    for step in reversed(post_order):
        op = _operation(step)
        operations[id(op)] = op
        depth = max(depth_of_node.setdefault(_key(step), 0), depth_of_op.get(id(op), 0))
        depth_of_op[id(op)] = depth
        depth_of_node[_key(step)] = depth
        for parent in parents.get(_key(step), []):
            if _key(parent) in in_graph:
                depth_of_node[_key(parent)] = max(depth + 1,
                                                  depth_of_node.get(_key(parent), 0))
    for x in inputs:
        layer = x.history[0] if x.history is not None else None
        if layer is not None and id(layer) not in depth_of_op:
            operations[id(layer)] = layer
            depth_of_op[id(layer)] = 0
            index[id(layer)] = -1
    return sorted(operations.values(),
                  key=lambda op: (-depth_of_op[id(op)], index[id(op)]))
