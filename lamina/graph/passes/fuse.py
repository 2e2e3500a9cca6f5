"""Fusion: ``matmul``/``conv2d`` -> ``add(bias)`` -> activation become one fused node.

The fused ops (``lamina/ops/fused.py``) run the bias add and the activation in place on the
GEMM's output buffer (Grappler's remapper: ``_FusedConv2D``, ``_FusedMatMul``). A chain is
fused only where that is legal (reference/graph.md §0.4): every absorbed intermediate value
has no reader outside the chain and is neither a graph output nor an update, and no op in
it is stateful. The bias must be one value per output channel.

After autodiff the relu's pre-activation has more readers: its gradient's
``greater(pre, 0)``. Since ``pre > 0`` exactly where ``relu(pre) > 0``, those readers are
rewired: a ``cast`` of the comparison to the activation's dtype becomes the fused op's
saved mask (``save_mask=True``; the forward computes it anyway), any other reader compares
the relu's output instead. Sigmoid and tanh gradients read only the output.
"""
from __future__ import annotations

from ...core.tensor import TensorBase
from ...ops.fused import Conv2DBiasAct, DenseBiasAct
from ..rewrite import is_constant_value, readers_of, substitute
from ...core.symbolic import symbolic_apply
from . import register

ACTIVATIONS = ("relu", "sigmoid", "tanh")
_CONV_ATTRS = ("strides", "padding", "dilation", "groups")


@register("fuse")
def fuse(graph):
    readers = graph.consumers()
    roots = {id(r) for r in graph.roots()}
    mapping: dict[int, object] = {}
    created: list = []
    for node in list(graph.nodes):
        chain = _match(node, readers, roots)
        if chain is not None:
            created.append(_rewrite(chain, readers, mapping))
    if created:
        substitute(graph, mapping, created)
    return graph


# --------------------------------------------------------------------------- helpers
def copy_layer(source, node) -> None:
    """Errors and ``to_dot`` name the layer a node came from: keep it on new nodes."""
    if hasattr(node, "layer"):
        node.layer = getattr(source, "layer", None)


# --------------------------------------------------------------------------- matching
def _fusable_linear(node) -> bool:
    if node.op.stateful or len(node.outputs) != 1 or len(node.inputs) != 2:
        return False
    if not all(isinstance(x, TensorBase) for x in node.inputs):
        return False
    x, w = node.inputs
    if node.op.name == "conv2d":
        return True
    return node.op.name == "matmul" and len(w.shape) == 2 and len(x.shape) >= 2


def _bias_of(add, value):
    """The other operand of ``add(value, bias)`` when it is a per-channel vector."""
    if add.op.name != "add" or len(add.inputs) != 2:
        return None
    a, b = add.inputs
    other = b if a is value else a if b is value else None
    if other is None or other is value or not isinstance(other, TensorBase):
        return None
    if tuple(other.shape) != (value.shape[-1],) or other.dtype != value.dtype:
        return None
    return other if tuple(add.outputs[0].shape) == tuple(value.shape) else None


def _is_zero_comparison(node, value) -> bool:
    return (node.op.name == "greater" and len(node.inputs) == 2 and node.inputs[0] is value
            and is_constant_value(node.inputs[1], 0))


def _match(node, readers, roots):
    """(linear node, bias, pre-activation value, activation node, comparisons) or None."""
    if not _fusable_linear(node):
        return None
    value, bias = node.outputs[0], None
    users = readers_of(readers, value)
    if id(value) not in roots and len(users) == 1:
        bias = _bias_of(users[0], value)
        if bias is not None:
            value = users[0].outputs[0]
    activation, comparisons = None, []
    users = readers_of(readers, value)
    acts = [u for u in users if u.op.name in ACTIVATIONS and len(u.inputs) == 1]
    if id(value) not in roots and len(acts) == 1 and not acts[0].op.stateful:
        others = [u for u in users if u is not acts[0]]
        if not others:
            activation = acts[0]
        elif acts[0].op.name == "relu" and all(_is_zero_comparison(u, value) for u in others):
            activation, comparisons = acts[0], others
    if bias is None and activation is None:
        return None
    return node, bias, value, activation, comparisons


# --------------------------------------------------------------------------- rewriting
def _rewrite(chain, readers, mapping):
    linear, bias, pre_activation, activation, comparisons = chain
    dtype = linear.outputs[0].dtype
    mask_casts = [r for c in comparisons for r in readers_of(readers, c.outputs[0])
                  if r.op.name == "cast" and r.attrs.get("dtype") == dtype]
    attrs = {"activation": activation.op.name if activation is not None else "linear",
             "save_mask": bool(mask_casts)}
    if linear.op.name == "conv2d":
        op = Conv2DBiasAct
        attrs.update({k: linear.attrs[k] for k in _CONV_ATTRS})
    else:
        op = DenseBiasAct
    inputs = tuple(linear.inputs) + (() if bias is None else (bias,))
    result = symbolic_apply(op, inputs, attrs)
    y = result[0] if attrs["save_mask"] else result
    copy_layer(linear, y.node)
    if activation is None:
        mapping[id(pre_activation)] = y
        return y.node
    mapping[id(activation.outputs[0])] = y
    for cast in mask_casts:
        mapping[id(cast.outputs[0])] = result[1]
    for comparison in comparisons:       # any reader left compares the relu's output
        comparison.inputs = (activation.outputs[0],) + tuple(comparison.inputs[1:])
    return y.node
