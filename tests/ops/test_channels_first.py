"""``data_format="channels_first"`` in Keras's conv, depthwise_conv, conv_transpose and
pooling ops (issue 22, cause 9): the same numbers as channels-last with the channel axis
moved, eagerly, in graphs and in gradients."""
import numpy as np
import pytest

import lamina
from lamina import ops


def _rng(*shape):
    return np.random.default_rng(sum(shape)).normal(size=shape).astype("float32")


def _first(x):
    return np.moveaxis(x, -1, 1)


_LAYOUT_CASES = [
    ("conv 1-D", lambda x, fmt: ops.conv(x, _rng(3, 2, 4), 1, "same", data_format=fmt),
     (2, 7, 2)),
    ("conv 2-D", lambda x, fmt: ops.conv(x, _rng(3, 3, 2, 4), 2, "valid", data_format=fmt),
     (2, 7, 7, 2)),
    ("conv 3-D", lambda x, fmt: ops.conv(x, _rng(2, 2, 2, 2, 3), 1, "valid",
                                         data_format=fmt), (1, 4, 4, 4, 2)),
    ("depthwise", lambda x, fmt: ops.depthwise_conv(x, _rng(3, 3, 2, 2), 1, "same",
                                                    data_format=fmt), (2, 6, 6, 2)),
    ("transpose", lambda x, fmt: ops.conv_transpose(x, _rng(3, 3, 4, 2), 2, "same",
                                                    data_format=fmt), (2, 5, 5, 2)),
    ("max pool", lambda x, fmt: ops.max_pool(x, 2, data_format=fmt), (2, 6, 6, 3)),
    ("average pool", lambda x, fmt: ops.average_pool(x, 3, 1, "same", data_format=fmt),
     (2, 6, 6, 3)),
]


@pytest.mark.parametrize("name, fn, shape", _LAYOUT_CASES, ids=[c[0] for c in _LAYOUT_CASES])
def test_channels_first_is_channels_last_with_the_axis_moved(name, fn, shape):
    x = _rng(*shape)
    last = fn(x, "channels_last").numpy()
    first = fn(_first(x), "channels_first").numpy()
    np.testing.assert_allclose(first, _first(last), rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("name, fn, shape", _LAYOUT_CASES[:5], ids=[c[0] for c in _LAYOUT_CASES[:5]])
def test_graph_and_gradient_agree_with_eager(name, fn, shape):
    x = lamina.Variable(_first(_rng(*shape)))

    def loss():
        return ops.sum(ops.square(fn(x, "channels_first")))

    with lamina.GradientTape() as tape:
        eager = loss()
    grad = tape.gradient(eager, x).numpy()

    @lamina.jit
    def step():
        with lamina.GradientTape() as t:
            value = loss()
        return value, t.gradient(value, x)

    traced, traced_grad = step()
    np.testing.assert_allclose(traced.numpy(), eager.numpy(), rtol=1e-5)
    np.testing.assert_allclose(traced_grad.numpy(), grad, rtol=1e-4, atol=1e-5)
