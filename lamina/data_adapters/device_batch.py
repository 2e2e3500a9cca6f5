"""A host batch as tensors on the active backend: what every train / test / predict step
receives (the loops, compiled steps and the models' graph methods share it). SciPy sparse
matrices in a batch (a generator may yield them, as Keras's tests do) are densified:
Lamina's tensors are dense."""
from __future__ import annotations

from .. import ops, tree
from ..core.tensor import TensorBase


def is_scipy_sparse(x) -> bool:
    """Keras's test: a ``scipy.sparse`` matrix or array (it has ``tocoo``)."""
    return type(x).__module__.startswith("scipy.sparse") and hasattr(x, "tocoo")


def to_device(batch):
    """A host batch ``(x, y, sample_weight)`` as tensors on the active backend."""
    def convert(a):
        if a is None or isinstance(a, TensorBase):
            return a
        if is_scipy_sparse(a):
            a = a.toarray()
        return ops.convert_to_tensor(a)
    x, y, sample_weight = batch
    x = tree.map_structure(convert, x)
    if y is None:
        return (x,) if sample_weight is None else (x, None, convert(sample_weight))
    y = tree.map_structure(convert, y)
    if sample_weight is None:
        return (x, y)
    return (x, y, convert(sample_weight))
