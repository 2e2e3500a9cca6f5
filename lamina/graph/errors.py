"""Errors of compiled graphs, named after the layer and op a failing node came from.

A kernel that fails inside a compiled step would otherwise surface as a bare numpy error
from deep inside the executor. The executor catches it and raises
``describe_failure(node, arrays, exc)`` instead: a :class:`GraphExecutionError` that names
the layer whose ``call`` traced the node (``Node.layer``), the op, its attributes and the
shapes and dtypes of the arrays it received, with the original error as ``__cause__``.
"""
from __future__ import annotations

from ..errors import LaminaError, describe_shape

_MAX_ATTR_CHARS = 120


class GraphExecutionError(LaminaError, RuntimeError):
    """A kernel failed while a compiled graph ran.

    Attributes: ``layer`` (the layer path, or None for nodes traced outside any layer:
    losses, metrics, gradients, optimizer updates), ``op`` (the op's registry name),
    ``input_shapes`` (one shape per array input, None for non-array inputs), ``original``
    (the kernel's exception, also the ``__cause__``).
    """

    def __init__(self, message: str, layer: str | None = None, op: str | None = None,
                 input_shapes: tuple = (), original: BaseException | None = None):
        super().__init__(message)
        self.layer = layer
        self.op = op
        self.input_shapes = tuple(input_shapes)
        self.original = original


class ExportError(LaminaError, ValueError):
    """A graph cannot be exported, or an exported file cannot be loaded."""


def describe_failure(node, arrays, exc: BaseException) -> GraphExecutionError:
    """The error to raise (``from exc``) when ``node``'s kernel failed on ``arrays``.

    An error that is already a :class:`GraphExecutionError` (a node of a sub-graph, such
    as a loop body, failed) is returned unchanged: the innermost node is the useful one.
    """
    if isinstance(exc, GraphExecutionError):
        return exc
    op = node.op.name
    layer = getattr(node, "layer", None)
    shapes = tuple(_shape(a) for a in arrays)
    where = f"in layer '{layer}'" if layer else \
        "outside any layer (loss, metric, gradient or optimizer code)"
    received = ", ".join(_describe_array(a) for a in arrays) or "no inputs"
    attrs = _describe_attrs(node.attrs)
    message = (f"op '{op}' {where} failed while running a compiled graph: "
               f"{type(exc).__name__}: {exc}\n"
               f"  inputs: {received}\n"
               f"{'  attributes: ' + attrs + chr(10) if attrs else ''}"
               f"  run eagerly (compile(run_eagerly=True), or call the function without "
               f"lamina.jit) to see the failing line of the layer's code")
    return _error_type(type(exc))(message, layer=layer, op=op, input_shapes=shapes,
                                  original=exc)


_TYPES: dict = {}


def _error_type(original: type) -> type:
    """GraphExecutionError, also of the kernel error's type when that is one of Lamina's
    typed errors: ``except IndexRangeError`` (or ``IndexError``, ``ShapeError``) catches a
    bad label in graph mode as it does eagerly."""
    if not issubclass(original, LaminaError) or issubclass(original, GraphExecutionError):
        return GraphExecutionError
    if original not in _TYPES:
        try:
            _TYPES[original] = type("GraphExecutionError", (GraphExecutionError, original),
                                    {"__module__": __name__,
                                     "__doc__": GraphExecutionError.__doc__})
        except TypeError:                  # bases that cannot be combined: the plain one
            _TYPES[original] = GraphExecutionError
    return _TYPES[original]


def _shape(value):
    shape = getattr(value, "shape", None)
    return None if shape is None else tuple(shape)


def _describe_array(value) -> str:
    shape = _shape(value)
    if shape is None:
        return repr(value)
    return f"{describe_shape(shape)} {getattr(value, 'dtype', '')}".rstrip()


def _describe_attrs(attrs: dict) -> str:
    text = ", ".join(f"{key}={value!r}" for key, value in attrs.items())
    return text if len(text) <= _MAX_ATTR_CHARS else text[:_MAX_ATTR_CHARS - 3] + "..."
