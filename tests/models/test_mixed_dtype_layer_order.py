"""A layer's autocast belongs to the layer: a functional model whose layers compute in
different dtypes has Keras's layer order (and so Keras's weight order) whatever floatx is;
the casts are no graph steps of their own. Found by fuzzer seed 79 (float64 twin of a
float32 model listed its weights in another order)."""
import pytest

import lamina
from lamina import layers

# Keras 3.15.1 (JAX) gives this order for both floatx values
KERAS_ORDER = ["input_layer", "permute", "unit_normalization", "lambda", "lstm", "conv1d",
               "dot"]


def _model():
    x0 = lamina.Input((4, 4))
    h = layers.Permute((2, 1))(x0)
    norm = layers.UnitNormalization()
    h = norm(norm(h))
    a = layers.LSTM(5, return_sequences=True, go_backwards=True, use_bias=False)(h)
    b = layers.Lambda(lambda t: t * 2)(h)
    b = layers.Conv1D(5, 1, padding="same", dtype="float64")(b)
    return lamina.Model(x0, layers.Dot(axes=(2, 2), normalize=True)([a, b]))


@pytest.mark.parametrize("floatx", ["float32", "float64"])
def test_layer_order_is_keras_s_whatever_floatx(floatx):
    lamina.backend.clear_session()
    previous = lamina.config.floatx()
    lamina.config.set_floatx(floatx)
    try:
        model = _model()
    finally:
        lamina.config.set_floatx(previous)
    assert [layer.name for layer in model.layers] == KERAS_ORDER
    assert {type(step).__name__ for step in model._steps} == {"LayerNode"}
    assert [w.path for w in model.weights][:2] == ["lstm/lstm_cell/kernel",
                                                   "lstm/lstm_cell/recurrent_kernel"]
