import numpy as np
import pytest

from lamina import ops
from lamina.errors import LaminaError, ShapeError
from lamina.graph import SymbolicTensor


def test_ops_on_symbolic_tensors_infer_shapes_and_record_nodes():
    x = SymbolicTensor((None, 8), "float32", name="x")
    y = ops.add(x * 2.0, ops.ones((8,)))
    assert y.shape == (None, 8) and y.dtype == "float32"
    assert y.node.op.name == "add"
    mul = y.node.inputs[0]
    assert isinstance(mul, SymbolicTensor) and mul.node.op.name == "multiply"
    s = ops.sum(y, axis=1)
    assert s.shape == (None,)


def test_symbolic_shape_errors_are_the_eager_errors():
    x = SymbolicTensor((None, 8), "float32")
    with pytest.raises(ShapeError, match="add: cannot broadcast 'x1' and 'x2' together"):
        ops.add(x, ops.ones((3,)))


def test_symbolic_tensors_have_no_value():
    x = SymbolicTensor((2,), "float32", name="x")
    with pytest.raises(LaminaError, match="has no value"):
        x.numpy()
    with pytest.raises(TypeError, match="no truth value"):
        bool(x)
    assert "SymbolicTensor 'x'" in repr(x)
    assert np.dtype(x.dtype) == np.float32
