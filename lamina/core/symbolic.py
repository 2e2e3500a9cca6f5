"""Spec-only tensors: a shape (None for unknown sizes), a dtype and the node that made them.

Running an op on a symbolic tensor computes no values: it calls the op's ``output_spec``
(with the same checks and errors as eager mode) and records a :class:`Node`. Keras's
``KerasTensor`` plays this role for the functional API; here the graph tracer uses the same
type, so building a functional model is already tracing.
"""
from __future__ import annotations

import itertools

from ..core.tensor import TensorBase
from ..dtypes import standardize
from ..errors import LaminaError
from .layer_path import current_layer_path


_node_counter = itertools.count()


class Node:
    """One application of an op: its inputs (symbolic or concrete constants) and outputs.

    ``layer`` is the path of the layer whose ``call`` was running when the node was traced
    (``"model/dense_1"``; None outside any layer): error messages and ``to_dot`` name it.
    ``several``: the op returns a tuple of outputs (its ``output_spec`` gave a tuple), even
    a tuple of one (``scan_grad`` for one variable, ``unstack`` of a size-1 axis), so that
    whoever runs the node unpacks what ``forward`` returns.
    """
    __slots__ = ("op", "inputs", "attrs", "outputs", "layer", "several", "seq")

    def __init__(self, op, inputs, attrs, layer: str | None = None, several: bool = False):
        # creation order: the order the traced program ran its ops, which the eager tape
        # records (graph autodiff accumulates gradients in the tape's order, autodiff.py)
        self.seq = next(_node_counter)
        self.op = op
        self.inputs = tuple(inputs)
        self.attrs = dict(attrs)
        self.outputs: tuple = ()
        self.layer = layer
        self.several = several

    def __repr__(self) -> str:
        return f"<Node {self.op.name} inputs={len(self.inputs)} outputs={len(self.outputs)}>"


class SymbolicTensor(TensorBase):
    """A tensor known only by shape and dtype, produced by ``node`` (None for a graph input).

    Args:
        shape: a tuple of ints, None for an unknown size.
        dtype: the dtype name (default ``"float32"``).
        sparse: must be False (Lamina has no sparse tensors; True raises ValueError).
        ragged: must be False (Lamina has no ragged tensors; True raises ValueError).
        record_history: bool; record the operation that produced the tensor
            (default True).
        name: an optional name.
        **kwargs: Lamina's own ``node`` and ``index`` (the producing node and output
            position); anything else raises TypeError.


    Example:

    >>> import lamina as keras
    >>> keras.KerasTensor((None, 3)).shape
    (None, 3)
    """
    # ``history``: (layer, node index, output index) when a layer call made this tensor
    # (the functional API's graph); ``node``: the op node, for ops applied between layers.
    is_symbolic_tensor = True      # what keras.backend.is_keras_tensor asks (backend/)
    sparse = ragged = False        # KerasTensor's flags: Lamina has neither kind
    __slots__ = ("shape", "dtype", "node", "index", "name", "history", "record_history",
                 "_keras_mask",
                 "__weakref__")

    def __init__(self, shape, dtype="float32", sparse=False, ragged=False, record_history=True,
                 name: str | None = None, **kwargs):
        # Keras's signature; Lamina's graph bookkeeping (the producing node and output
        # index) travels as the keywords ``node`` and ``index``.
        node, index = kwargs.pop("node", None), kwargs.pop("index", 0)
        if kwargs:
            raise TypeError(f"KerasTensor: unrecognized keyword arguments {sorted(kwargs)}")
        if sparse or ragged:
            raise ValueError(f"KerasTensor: sparse and ragged tensors are not supported; "
                             f"received sparse={sparse!r}, ragged={ragged!r}")
        self.shape = tuple(None if d is None else int(d) for d in shape)
        self.dtype = standardize(dtype)
        self.node = node
        self.index = index
        self.name = name
        self.record_history = record_history
        self.history = None

    @property
    def _keras_history(self):
        """Keras's ``(operation, node_index, tensor_index)`` for a tensor an op or layer made.

        A layer call's ``history`` as it is; for an op applied to symbolic tensors,
        ``(op, None, output index)`` (Lamina's ops keep no list of their calls, so there is
        no node index). A tensor nothing made has no such attribute, as in Keras.
        """
        if self.history is not None:
            return self.history
        if self.node is not None:
            return (self.node.op, None, self.index)
        raise AttributeError("'SymbolicTensor' object has no attribute '_keras_history': "
                             "no op or layer made this tensor")

    def numpy(self):
        raise LaminaError(f"symbolic tensor {self.name or ''} (shape {self.shape}, "
                          f"{self.dtype}) has no value: it only describes a shape and dtype")

    def __bool__(self):
        raise TypeError("a symbolic tensor has no truth value; use lamina.ops.where or "
                        "lamina.ops.cond-style ops instead of Python `if`")

    def __repr__(self) -> str:
        made_by = f" from {self.node.op.name}" if self.node is not None else ""
        label = f" '{self.name}'" if self.name else ""
        return f"<SymbolicTensor{label} shape={self.shape} dtype={self.dtype}{made_by}>"


def symbolic_apply(op, inputs, attrs):
    spec = op.output_spec(*inputs, **attrs)
    several = isinstance(spec, tuple) and not hasattr(spec, "dtype")
    node = Node(op, inputs, attrs, layer=current_layer_path(), several=several)
    if several:
        node.outputs = tuple(SymbolicTensor(s.shape, s.dtype, node=node, index=i)
                             for i, s in enumerate(spec))
        return node.outputs
    node.outputs = (SymbolicTensor(spec.shape, spec.dtype, node=node, index=0),)
    return node.outputs[0]
