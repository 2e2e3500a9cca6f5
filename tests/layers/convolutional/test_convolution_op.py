"""``convolution_op(inputs, kernel)``: Keras's documented hook for custom convolutions (its
example standardizes the kernel), on Conv1D, Conv2D and Conv3D (issue 22, cause 3)."""
import numpy as np
import pytest

import lamina
from lamina import layers, ops


def _standardized(base):
    class Standardized(base):
        def convolution_op(self, inputs, kernel):
            mean = ops.mean(kernel, axis=tuple(range(kernel.ndim - 1)), keepdims=True)
            var = ops.var(kernel, axis=tuple(range(kernel.ndim - 1)), keepdims=True)
            return super().convolution_op(inputs, (kernel - mean) / ops.sqrt(var + 1e-5))
    return Standardized


@pytest.mark.parametrize("base, shape", [(layers.Conv1D, (2, 9, 3)),
                                         (layers.Conv2D, (2, 7, 7, 3)),
                                         (layers.Conv3D, (2, 5, 5, 5, 3))])
@pytest.mark.parametrize("data_format", ["channels_last", "channels_first"])
def test_an_override_changes_the_kernel_used(base, shape, data_format):
    x = np.random.default_rng(0).normal(size=shape).astype("float32")
    if data_format == "channels_first":
        x = np.moveaxis(x, -1, 1).copy()
    custom = _standardized(base)(4, 3, data_format=data_format, activation="relu")
    y = custom(x).numpy()
    plain = base(4, 3, data_format=data_format, activation="relu")
    plain(x)
    kernel = custom.kernel.numpy()
    axes = tuple(range(kernel.ndim - 1))
    standard = (kernel - kernel.mean(axis=axes, keepdims=True)) / np.sqrt(
        kernel.var(axis=axes, keepdims=True) + 1e-5)
    plain.kernel.assign(standard)
    plain.bias.assign(custom.bias.numpy())
    np.testing.assert_allclose(y, plain(x).numpy(), rtol=1e-5, atol=1e-5)
    assert not np.allclose(kernel, standard)


def test_the_default_hook_is_the_layer_convolution():
    conv = layers.Conv2D(2, 3, use_bias=False)
    x = np.ones((1, 5, 5, 1), "float32")
    y = conv(x)
    np.testing.assert_allclose(conv.convolution_op(x, conv.kernel).numpy(), y.numpy())


def test_an_override_trains_in_graph_mode():
    model = lamina.Sequential([lamina.Input((6, 6, 1)), _standardized(layers.Conv2D)(2, 3),
                               layers.Flatten(), layers.Dense(1)])
    model.compile("sgd", "mse")
    x = np.random.default_rng(1).normal(size=(8, 6, 6, 1)).astype("float32")
    history = model.fit(x, np.zeros((8, 1), "float32"), epochs=2, verbose=0)
    assert np.isfinite(history.history["loss"]).all()
