"""The op contract: one definition serves eager mode, the tape and (later) graph mode.

An op is a subclass of :class:`Op` registered with ``@register_op``; the decorator returns
the op's single instance, which is called like a function. It has three parts:

* ``output_spec(*inputs, **attrs)`` -> a :class:`Spec` (or a tuple of them). Inputs are
  anything with ``.shape`` and ``.dtype`` (concrete or symbolic tensors). All shape and dtype
  checking happens here, with errors that name the op and the argument.
* ``forward(backend, *arrays, out=None, **attrs)`` -> array(s), calling backend kernels
  only. When ``out`` is given the result is written into it.
* ``gradient(ctx, *output_grads)`` -> one gradient (a Tensor) or None per input, written
  with other ops, so the backward pass can itself be differentiated and traced.
  ``ctx.inputs``/``ctx.outputs`` are the op's tensors, ``ctx.attrs`` its attributes and
  ``ctx.needs_grad[i]`` says whether input ``i`` needs a gradient at all.

Attributes are static Python values (ints, tuples, strings): they are part of a graph
node's identity. Anything that changes while training is an input tensor instead.
"""
from __future__ import annotations

from typing import Any, NamedTuple

from .. import settings
from ..errors import ShapeError, describe_shape
from ..traceback_filter import filtered_error
from . import mode
from .symbolic import SymbolicTensor, symbolic_apply

OP_REGISTRY: dict[str, "Op"] = {}


class Spec(NamedTuple):
    """The static description of a tensor: shape (ints, or None for unknown) and dtype."""
    shape: tuple
    dtype: str

    @property
    def ndim(self) -> int:
        return len(self.shape)


class Context:
    """What an op's ``gradient`` sees of one application."""
    __slots__ = ("inputs", "outputs", "attrs", "needs_grad")

    def __init__(self, inputs, outputs, attrs, needs_grad):
        self.inputs = inputs
        self.outputs = outputs
        self.attrs = attrs
        self.needs_grad = needs_grad


class Op:
    """Base class of primitive ops. See the module docstring for the contract."""

    name: str = ""
    differentiable: bool = True
    # Ops with random or external effects must never be merged or folded by graph passes.
    stateful: bool = False
    # The graph executor's memory plan (lamina/graph/memory_plan.py) reads these two:
    # ``writes_out``: forward(..., out=buffer) writes the whole result into ``buffer`` (a
    # C-contiguous array of the output spec's shape and dtype; a tuple of them for several
    # outputs) and returns it, and with out=None returns new arrays, never views of its
    # inputs. Other ops (reshape, transpose, getitem, ...) may return arrays that alias
    # their inputs, and the plan assumes they do. Every mode gives a ``writes_out`` op's
    # result in C order (see :func:`c_ordered`).
    writes_out: bool = False
    # ``inplace``: ``out`` may also be one of the inputs (of the same shape and dtype): the
    # op reads each input element before it writes the output element in its place.
    inplace: bool = False
    # ``onednn_primitives``: the op's kernels make oneDNN primitives on backends that have
    # them; a graph plan has them made when it is built (Backend.prepare_kernel).
    onednn_primitives: bool = False

    def output_spec(self, *inputs, **attrs) -> Spec | tuple[Spec, ...]:
        raise NotImplementedError(f"op {self.name!r} defines no output_spec")

    def forward(self, backend, *arrays, out=None, **attrs):
        raise NotImplementedError(f"op {self.name!r} defines no forward")

    def gradient(self, ctx: Context, *grads):
        raise NotImplementedError(f"op {self.name!r} defines no gradient")

    def __call__(self, *inputs, **attrs):
        try:
            return apply(self, inputs, attrs)
        except Exception as exc:           # an entry point: Keras's traceback filtering
            if not settings.is_traceback_filtering_enabled():
                raise
            raise filtered_error(exc)

    def __repr__(self) -> str:
        return f"<op {self.name}>"


def register_op(cls: type[Op]) -> Op:
    """Class decorator: registers the op under ``cls.name`` and returns its instance."""
    if not cls.name:
        raise ValueError(f"register_op: {cls.__name__} must set a non-empty `name`")
    if cls.name in OP_REGISTRY:
        raise ValueError(f"register_op: an op named {cls.name!r} is already registered")
    instance = cls()
    OP_REGISTRY[cls.name] = instance
    return instance


def c_ordered(result):
    """A ``writes_out`` op's result (an array or a tuple of them) in C order, as a graph
    plan's buffers hold it. numpy's kernels lay a new array out as their inputs are (an
    elementwise op or a cast of a transposed view comes out in Fortran order), and BLAS
    sums a product of the same values in another order for another layout: eager mode,
    the graph and constant folding all pass such results through here, so a value has one
    layout in every mode and a matmul reading it rounds the same (fuzzer seed 15: a cast
    of a transposed gradient, then its matmul). A copy only where the kernel chose
    another order."""
    if isinstance(result, (tuple, list)):
        return type(result)(c_ordered(r) for r in result)
    flags = getattr(result, "flags", None)
    if flags is None or flags.c_contiguous:
        return result
    return result.copy(order="C")


# --------------------------------------------------------------------------- dispatch
def apply(op: Op, inputs: tuple, attrs: dict[str, Any]):
    """Run ``op`` on tensors: as a graph node when any input is symbolic, else now (the
    eager engine ``lamina/autograd`` registered with ``core/mode``). The open scopes and
    trace of this thread rewrite the inputs first (``core/mode.py``)."""
    inputs = mode.rewrite_inputs(op, inputs)
    for x in inputs:
        if isinstance(x, SymbolicTensor):
            return symbolic_apply(op, inputs, attrs)
    return mode.engines.eager_apply(op, inputs, attrs)


# --------------------------------------------------------------------------- spec helpers
def shape_from_like(op: str, shape: tuple, like: tuple) -> tuple:
    """``shape`` with its unknown (None) sizes taken from the optional ``like`` input, a
    tensor of the same rank: how an op traced with an unknown batch size learns it when the
    graph runs (``broadcast_like``, random ops' shapes)."""
    if not like:
        return tuple(shape)
    if len(like) != 1 or len(like[0].shape) != len(shape):
        raise ShapeError(f"{op}: argument 'like' must be one tensor of rank {len(shape)}; "
                         f"received " + ", ".join(describe_shape(t.shape) for t in like))
    return tuple(t if d is None else d for d, t in zip(shape, like[0].shape))


def check_rank(op: str, arg: str, x, ranks, meaning: str = "") -> None:
    """Raise ShapeError unless ``x.ndim`` is one of ``ranks``."""
    ranks = (ranks,) if isinstance(ranks, int) else tuple(ranks)
    if len(x.shape) not in ranks:
        expected = " or ".join(str(r) for r in ranks)
        extra = f" {meaning}" if meaning else ""
        raise ShapeError(f"{op}: argument '{arg}' must have rank {expected}{extra}; "
                         f"received shape {describe_shape(x.shape)}")


def normalize_axis(op: str, axis: int, ndim: int, arg: str = "axis") -> int:
    if not isinstance(axis, int) or isinstance(axis, bool):
        raise TypeError(f"{op}: argument '{arg}' must be an int; received {axis!r}")
    if not -ndim <= axis < max(ndim, 1):
        raise ShapeError(f"{op}: argument '{arg}' must be in [{-ndim}, {ndim}) for an input "
                         f"of rank {ndim}; received {axis} (axis {axis} is out of bounds for "
                         f"array of dimension {ndim})")
    return axis % ndim if ndim else 0


def normalize_axes(op: str, axis, ndim: int, arg: str = "axis") -> tuple[int, ...] | None:
    """None -> None (all axes); int or sequence -> sorted tuple of non-negative axes."""
    if axis is None:
        return None
    axes = (axis,) if isinstance(axis, int) else tuple(axis)
    out = tuple(sorted(normalize_axis(op, a, ndim, arg) for a in axes))
    if len(set(out)) != len(out):
        raise ShapeError(f"{op}: argument '{arg}' repeats an axis; received {axis!r}")
    return out


def broadcast_shapes(op: str, *shapes, args: tuple[str, ...] = ()) -> tuple:
    """numpy's broadcasting rule, with None for unknown sizes and an error naming the op."""
    if len(shapes) == 2 and shapes[0] == shapes[1]:
        return tuple(shapes[0])
    ndim = max(len(s) for s in shapes)
    result = []
    for i in range(-ndim, 0):
        size = 1
        for s in shapes:
            d = s[i] if -i <= len(s) else 1
            if d == 1:
                continue
            if size == 1:
                size = d
            elif d is None or size is None:
                size = d if size is None else size
            elif d != size:
                names = " and ".join(f"'{a}'" for a in args) if args else "the inputs"
                raise ShapeError(
                    f"{op}: cannot broadcast {names} together; received shapes "
                    + ", ".join(describe_shape(s) for s in shapes))
        result.append(size)
    return tuple(result)
