"""Arithmetic simplification: peephole rules on the rewrite engine (Grappler's arithmetic
optimizer, trimmed to what Keras-style graphs contain).

- identities: reshape/expand_dims/squeeze, transpose, broadcast_to and cast that change
  nothing; reductions over size-1 axes only (a reshape); ``stop_gradient`` (passes run
  after autodiff, so it has done its work);
- chains: reshape-likes of reshape-likes (one reshape), transpose of transpose (one
  permutation), broadcast of broadcast, a broadcast of a reshape that only adds leading
  unit axes, cast of an exact widening cast (one cast);
- constants: ``x * 1``, ``x + 0``, ``x - 0``, ``x / 1`` (a ``fill_like`` counts as a
  constant); ``-(-x)``; ``a + (-b)`` and ``a - (-b)``;
- a ``broadcast_to`` feeding a broadcasting elementwise op is dropped where the op
  broadcasts to the same shape by itself;
- the loss rules of ``simplify_losses.py`` (log(softmax), fused crossentropies) run first.

A rule that hands back a value computed another way (``x`` for ``x * 1``) fires only where
that keeps the layout its readers see (graph/layout.py): ``x`` C-ordered, or only
elementwise ops reading the result.
"""
from __future__ import annotations

from ... import ops
from ...ops.elementwise import Binary
from ...core.op import OP_REGISTRY, broadcast_shapes
from ..layout import layout_kept
from ..rewrite import Const, Pat, Rule, rewrite
from ...core.symbolic import symbolic_apply
from . import register
from .simplify_losses import RULES as LOSS_RULES

RESHAPES = ("reshape", "expand_dims", "squeeze")
REDUCTIONS = ("sum", "mean", "max", "min", "prod", "any", "all")
_X = Pat(name="x")
# mantissa bits of the float dtypes: integers up to 2**bits are exact in them
_MANTISSA = {"float16": 11, "float32": 24, "float64": 53}


def _known(shape) -> bool:
    return None not in tuple(shape)


def _same_spec(a, b) -> bool:
    return tuple(a.shape) == tuple(b.shape) and a.dtype == b.dtype


def _input(m):
    return m["x"] if _same_spec(m["x"], m.root) else None


def _if_layout_kept(m, new):
    """``new`` in place of the computed ``m.root`` where that changes no layout a reader
    sees (graph/layout.py: a matmul of a transposed view rounds differently)."""
    return new if new is not None and layout_kept(m.uses, m.root, new) else None


def _computed_input(m):
    return _if_layout_kept(m, _input(m))


def _reshape_chain(m):
    if not (_known(m.root.shape) and _known(m["x"].shape)):
        return None
    return _if_layout_kept(m, ops.reshape(m["x"], m.root.shape))


def _identity_transpose(m):
    axes = m.root.node.attrs["axes"]
    return m["x"] if tuple(axes) == tuple(range(len(axes))) else None


def _transpose_pair(m):
    inner = m["t"].node.attrs["axes"]
    outer = m.root.node.attrs["axes"]
    return ops.transpose(m["x"], tuple(inner[a] for a in outer))


def _broadcast(m):
    return ops.broadcast_to(m["x"], m.root.shape) if _known(m.root.shape) else None


def _strip_ones(shape) -> tuple:
    shape = tuple(shape)
    while shape and shape[0] == 1:
        shape = shape[1:]
    return shape


def _broadcast_of_reshape(m):
    x, target = m["x"], m.root.shape
    if len(x.shape) > len(target) or _strip_ones(x.shape) != _strip_ones(m["r"].shape):
        return None
    return _broadcast(m)


def _exact(src: str, mid: str) -> bool:
    """True when dtype ``mid`` holds every value of dtype ``src`` exactly."""
    if src == mid or src == "bool":
        return True
    if mid == "bool" or src.startswith("float") and not mid.startswith("float"):
        return False
    bits = lambda d: int("".join(c for c in d if c.isdigit()))   # noqa: E731
    if src.startswith("float"):
        return bits(mid) >= bits(src)
    magnitude = bits(src) - (0 if src.startswith("u") else 1)
    if mid.startswith("float"):
        return magnitude <= _MANTISSA[mid]
    if mid.startswith("u"):
        return src.startswith("u") and bits(mid) >= bits(src)
    return bits(mid) - 1 >= magnitude


def _cast_chain(m):
    x = m["x"]
    if not _exact(x.dtype, m["c"].dtype):
        return None
    return ops.cast(x, m.root.dtype)


def _drop_constant(m):
    """``x`` for ``x op c`` when ``c`` is the op's identity element."""
    x, out = m["x"], m.root
    if x.dtype != out.dtype or not _known(out.shape):
        return None
    return _if_layout_kept(m, x if tuple(x.shape) == tuple(out.shape)
                           else ops.broadcast_to(x, out.shape))


def _add_negative(m):
    return ops.subtract(m["a"], m["b"])


def _subtract_negative(m):
    return ops.add(m["a"], m["b"])


def _trivial_reduction(m):
    x, out = m["x"], m.root
    axis = out.node.attrs.get("axis")
    axes = range(len(x.shape)) if axis is None else axis
    if x.dtype != out.dtype or not _known(x.shape) or any(x.shape[a] != 1 for a in axes):
        return None
    return _if_layout_kept(m, ops.reshape(x, out.shape))


def _unbroadcast_operands(m):
    node, out = m.root.node, m.root
    inputs = list(node.inputs)
    for i, x in enumerate(inputs):
        if getattr(x, "node", None) is not None and x.node.op.name == "broadcast_to" \
                and not x.node.op.stateful:
            inputs[i] = x.node.inputs[0]
    if all(a is b for a, b in zip(inputs, node.inputs)):
        return None
    try:
        shape = broadcast_shapes(node.op.name, *(x.shape for x in inputs))
    except ValueError:
        return None
    if tuple(shape) != tuple(out.shape):
        return None
    return symbolic_apply(node.op, inputs, node.attrs)


def _binary_ops() -> tuple:
    return tuple(name for name, op in OP_REGISTRY.items() if isinstance(op, Binary))


def rules() -> list:
    """The pass's rules, loss rules first (built when called: ops register on import)."""
    return LOSS_RULES + [
        Rule("identity_reshape", Pat(RESHAPES, _X), _input),
        Rule("reshape_chain", Pat(RESHAPES, Pat(RESHAPES, _X)), _reshape_chain),
        Rule("identity_transpose", Pat("transpose", _X), _identity_transpose),
        Rule("transpose_pair", Pat("transpose", Pat("transpose", _X, name="t")),
             _transpose_pair),
        Rule("identity_broadcast", Pat("broadcast_to", _X), _input),
        Rule("broadcast_chain", Pat("broadcast_to", Pat("broadcast_to", _X)), _broadcast),
        Rule("broadcast_of_reshape", Pat("broadcast_to", Pat(RESHAPES, _X, name="r")),
             _broadcast_of_reshape),
        Rule("identity_cast", Pat("cast", _X), _computed_input),
        Rule("stop_gradient", Pat("stop_gradient", _X), lambda m: m["x"]),
        Rule("cast_chain", Pat("cast", Pat("cast", _X, name="c")), _cast_chain),
        Rule("multiply_by_one", Pat("multiply", _X, Const(1), commutative=True),
             _drop_constant),
        Rule("add_zero", Pat("add", _X, Const(0), commutative=True), _drop_constant),
        Rule("subtract_zero", Pat("subtract", _X, Const(0)), _drop_constant),
        Rule("divide_by_one", Pat("divide", _X, Const(1)), _drop_constant),
        Rule("double_negation", Pat("negative", Pat("negative", _X)),
             lambda m: _if_layout_kept(m, m["x"])),
        Rule("add_negative", Pat("add", Pat(name="a"), Pat("negative", Pat(name="b")),
                                 commutative=True), _add_negative),
        Rule("subtract_negative", Pat("subtract", Pat(name="a"), Pat("negative",
                                                                      Pat(name="b"))),
             _subtract_negative),
        Rule("trivial_reduction", Pat(REDUCTIONS, _X), _trivial_reduction),
        Rule("unbroadcast_operands", Pat(_binary_ops()), _unbroadcast_operands),
    ]


@register("simplify")
def simplify(graph):
    graph.simplified = rewrite(graph, rules())
    return graph
