"""Masked inputs for the merge tests: the two sequences of Keras's own merging tests
(``keras/src/layers/merging/merging_test.py``), as ``Masking()`` would leave them."""
import numpy as np

from lamina import ops


def masked(values, mask=None):
    """A float32 tensor of ``values``, with ``mask`` as its Keras mask when given."""
    tensor = ops.convert_to_tensor(np.asarray(values, "float32"))
    if mask is not None:
        tensor._keras_mask = ops.convert_to_tensor(np.asarray(mask, bool))
    return tensor


X1 = [[[0, 0], [1, 2], [0, 0], [3, 4]]]
X1_MASK = [[0, 1, 0, 1]]
X2 = [[[0, 0], [0, 0], [1, 2], [3, 4]]]
X2_MASK = [[0, 0, 1, 1]]


def output_mask(tensor):
    mask = getattr(tensor, "_keras_mask", None)
    return None if mask is None else mask.numpy()
