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


def test_a_variable_argument_is_read_and_written_by_the_graph():
    """As with tf.function and a tf.Variable argument: the graph reads the variable's
    current value at every call and its assigns write the variable; keyed by identity."""
    @lamina.jit
    def step(v, x):
        v.assign_add(x)
        return ops.sum(v)
    a = lamina.Variable(np.zeros(3, "float32"))
    b = lamina.Variable(np.full(3, 10.0, "float32"))
    x = np.ones(3, "float32")
    assert float(step(a, x).numpy()) == 3.0
    assert float(step(a, x).numpy()) == 6.0
    assert float(step(b, x).numpy()) == 33.0
    np.testing.assert_array_equal(a.numpy(), [2.0, 2.0, 2.0])
    np.testing.assert_array_equal(b.numpy(), [11.0, 11.0, 11.0])
    assert step.trace_count == 2                     # one graph per variable
    a.assign(np.full(3, 5.0, "float32"))             # an eager write is seen
    assert float(step(a, x).numpy()) == 18.0
    assert step.trace_count == 2


def test_threads_calling_one_function_with_several_shapes_get_serial_results():
    import threading

    @lamina.jit
    def f(x):
        return ops.sum(ops.exp(x * 0.5), axis=0)
    inputs = [np.random.default_rng(k).standard_normal((k % 5 + 1, 3)).astype("float32")
              for k in range(40)]
    expected = [np.exp(x * 0.5).sum(axis=0) for x in inputs]
    results, errors = {}, []

    def work(offset):
        try:
            for k in range(offset, 40, 4):
                results[k] = f(inputs[k]).numpy()
        except Exception as error:      # reported below, with the thread's traceback lost
            errors.append(error)
    threads = [threading.Thread(target=work, args=(t,)) for t in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert not errors, errors
    for k in range(40):
        np.testing.assert_allclose(results[k], expected[k], rtol=1e-5)
    assert f.trace_count == 5                        # one per shape, never twice
