"""A float reduction gives the same bits whether or not it lists axes of size 1.

Reducing over an axis of size 1 changes no value, but it changed the summation: the
backend sums leading or trailing axes as a matrix-vector product and any other set of axes
with numpy's loop, so ``sum(x, (0, 1, 2))`` and ``sum(x, (1, 2))`` of an ``x`` of shape
``(1, 4, 6, 1)`` rounded differently. A batch-polymorphic graph must reduce a gradient over
the batch axis (its size is unknown when tracing) where eager mode, seeing a batch of one,
does not: the differential fuzzer's seed 926 (a batch of one at the end of ``fit``).
"""
import numpy as np
import pytest

import lamina
from lamina import ops
from lamina.backend import get_backend

SHAPE = (1, 4, 6, 1)


def _x():
    return np.random.default_rng(3).standard_normal(SHAPE).astype("float32")


@pytest.mark.parametrize("fn", ["sum", "mean"])
@pytest.mark.parametrize("keepdims", [True, False])
def test_listing_a_unit_axis_changes_no_bit(fn, keepdims):
    backend = get_backend("numpy")
    x = _x()
    with_unit = backend.reduce(fn, x, (0, 1, 2), keepdims)
    without = backend.reduce(fn, x, (1, 2), keepdims)
    assert with_unit.shape == ((1, 1, 1, 1) if keepdims else (1,))
    assert without.shape == ((1, 1, 1, 1) if keepdims else (1, 1))
    np.testing.assert_array_equal(with_unit.reshape(-1), without.reshape(-1))
    # the full reduction of the same values (what both become) agrees too
    np.testing.assert_array_equal(with_unit.reshape(-1),
                                  backend.reduce(fn, x.reshape(4, 6), None, False).reshape(-1))


@pytest.mark.parametrize("keepdims", [True, False])
def test_unit_axes_dropped_keep_the_out_contract(keepdims):
    backend = get_backend("numpy")
    x = _x()
    expected = backend.reduce("sum", x, (0, 1, 2), keepdims)
    out = np.empty_like(expected)
    assert backend.reduce("sum", x, (0, 1, 2), keepdims, out=out) is out
    np.testing.assert_array_equal(out, expected)


def test_reducing_only_unit_axes_returns_the_values_in_a_new_array():
    backend = get_backend("numpy")
    x = _x()
    result = backend.reduce("sum", x, (0, 3), False)
    assert result.shape == (4, 6)
    np.testing.assert_array_equal(result, x.reshape(4, 6))
    assert not np.shares_memory(result, x)
    np.testing.assert_array_equal(backend.reduce("mean", x, 0, True), x)
    np.testing.assert_array_equal(backend.reduce("prod", x, (0, 3), False), x.reshape(4, 6))


def test_batch_polymorphic_gradient_of_a_batch_of_one_equals_eager():
    """The gradient of a per-channel weight broadcast over a batch of one: the polymorphic
    graph reduces axes (0, 1, 2), eager mode (1, 2); the bits must agree."""
    w = lamina.Variable(np.full((1, 1, 1, 1), 0.25, "float32"))

    def grad(x):
        with lamina.GradientTape() as tape:
            loss = ops.sum(ops.multiply(ops.add(x, w), ops.convert_to_tensor(_x() * 3)))
        return tape.gradient(loss, [w])[0]

    x = ops.convert_to_tensor(_x())
    eager = grad(x).numpy()
    graph = lamina.jit(grad, batch_polymorphic=True)(x).numpy()
    np.testing.assert_array_equal(graph, eager)
