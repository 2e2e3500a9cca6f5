"""Keras's tensor helpers in ``keras.utils``: symbolic (Keras) tensors, their source
inputs, and dtype names."""
from __future__ import annotations

from ..core.symbolic import SymbolicTensor
from ..dtypes import floatx, standardize
from ..layers.core.input_layer import InputLayer


def is_keras_tensor(x) -> bool:
    """Whether ``x`` is a symbolic tensor (from ``lamina.Input`` or a layer called on one).

    Args:
        x: any object.

    Returns:
        A bool.

    Example:

    >>> import lamina as keras
    >>> keras.utils.is_keras_tensor(keras.Input((3,)))
    True
    """
    return isinstance(x, SymbolicTensor)


def get_source_inputs(tensor) -> list:
    """The ``Input`` tensors that ``tensor`` is computed from (a list, without repeats).
    A tensor with no history (a concrete tensor) is returned as it is.

    Args:
        tensor: a symbolic tensor.

    Returns:
        A list of ``Input`` tensors.
    """
    if not isinstance(tensor, SymbolicTensor):
        return tensor
    sources: list = []

    def add(x):
        for found in _sources(x):
            if all(found is not s for s in sources):
                sources.append(found)
    add(tensor)
    return sources


def _sources(x) -> list:
    if x.history is not None:
        layer, node_index, _ = x.history
        if isinstance(layer, InputLayer):
            return [x]
        node = layer._inbound_nodes[node_index]
        inputs = node.input_tensors
    elif x.node is not None:
        inputs = [i for i in x.node.inputs if isinstance(i, SymbolicTensor)]
    else:
        return [x]
    found: list = []
    for parent in inputs:
        for s in _sources(parent):
            if all(s is not f for f in found):
                found.append(s)
    return found


_PYTHON_TYPES = {bool: "bool", int: "int32", float: "float32", "int": "int32"}


def standardize_dtype(dtype) -> str:
    """A dtype's name as Keras writes it: None is ``floatx()``, Python ``int``/``float``
    are int32/float32, numpy dtypes and types by their name.

    Args:
        dtype: a dtype name, numpy dtype, Python type or None.

    Returns:
        A string such as ``"float32"``.

    Example:

    >>> import lamina as keras
    >>> keras.utils.standardize_dtype(int)
    'int32'
    """
    if dtype is None:
        return floatx()
    if isinstance(dtype, str) and dtype == "float":
        raise ValueError(f"Invalid dtype: {dtype}")
    try:
        if dtype in _PYTHON_TYPES:
            return _PYTHON_TYPES[dtype]
    except TypeError:
        pass
    return standardize(dtype)
