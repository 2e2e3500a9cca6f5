"""lamina.jit keys host arrays as tensors (shape and dtype) and static values by hash/eq."""
import numpy as np
import pytest

import lamina
from lamina import ops


def test_host_arrays_are_inputs_not_constants_keyed_by_their_text():
    f = lamina.jit(lambda a, b: ops.sum(a * b))
    a = np.ones(5000, "float32")
    b = a.copy()
    b[2500] = 100.0                      # numpy's repr abbreviates this element away
    assert repr(a) == repr(b)
    np.testing.assert_allclose(f(a, a).numpy(), 5000.0)
    np.testing.assert_allclose(f(a, b).numpy(), 5099.0)
    for _ in range(3):
        f(np.random.rand(5000).astype("float32"), a)
    assert f.trace_count == 1            # a new array of the same shape does not retrace
    f(a.astype("float64"), a.astype("float64"))
    assert f.trace_count == 2            # a new dtype does


def test_numpy_scalars_are_tensors_and_python_scalars_static_by_value():
    g = lamina.jit(lambda x, k: x * k)
    x = np.ones(2, "float32")
    np.testing.assert_allclose(g(x, np.float32(2.0)).numpy(), [2.0, 2.0])
    np.testing.assert_allclose(g(x, np.float32(3.0)).numpy(), [3.0, 3.0])
    assert g.trace_count == 1
    np.testing.assert_allclose(g(x, 2).numpy(), [2.0, 2.0])
    np.testing.assert_allclose(g(x, 3).numpy(), [3.0, 3.0])
    np.testing.assert_allclose(g(x, 3).numpy(), [3.0, 3.0])
    assert g.trace_count == 3
    g(x, 3.0)                            # 3 == 3.0, but a float is another static value
    assert g.trace_count == 4


def test_structures_of_arrays_are_inputs():
    h = lamina.jit(lambda xs, d: ops.sum(xs[0] + xs[1]) * d["scale"])
    xs = [np.ones(3, "float32"), np.full(3, 2.0, "float32")]
    np.testing.assert_allclose(h(xs, {"scale": 2.0}).numpy(), 18.0)
    xs[1] = np.zeros(3, "float32")
    np.testing.assert_allclose(h(xs, {"scale": 2.0}).numpy(), 6.0)
    assert h.trace_count == 1


def test_hashable_static_objects_are_keyed_by_equality():
    class Mode:
        def __init__(self, factor):
            self.factor = factor

        def __eq__(self, other):
            return isinstance(other, Mode) and other.factor == self.factor

        def __hash__(self):
            return hash(self.factor)

        def __repr__(self):
            return "Mode"                # the same text for different values

    f = lamina.jit(lambda x, mode: x * mode.factor)
    x = np.ones(2, "float32")
    np.testing.assert_allclose(f(x, Mode(2.0)).numpy(), [2.0, 2.0])
    np.testing.assert_allclose(f(x, Mode(5.0)).numpy(), [5.0, 5.0])
    f(x, Mode(5.0))
    assert f.trace_count == 2


def test_unhashable_static_argument_is_refused_by_name():
    def scale(x, options):
        return x
    f = lamina.jit(scale)
    with pytest.raises(TypeError, match=r"lamina.jit: scale: argument 'options' must be a "
                                        r"tensor.*received an unhashable set"):
        f(np.ones(2, "float32"), options={1, 2})
    with pytest.raises(TypeError, match=r"scale: argument 1 \(positional\).*unhashable "
                                        r"bytearray"):
        f(np.ones(2, "float32"), bytearray(b"x"))
