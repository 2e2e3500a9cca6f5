import numpy as np
import pytest

import lamina
from lamina import layers, ops
from tests.layers.harness import LayerCase, case_id, run_layer_case
from tests.layers.recurrent.helpers import Make, fresh

CASES = [
    LayerCase(layers.TimeDistributed, dict(layer=Make(layers.Dense, 3)), (2, 5, 4), (2, 5, 3),
              trainable_weights=2, weight_shapes={"kernel": (4, 3), "bias": (3,)}, params=15),
    LayerCase(layers.TimeDistributed, dict(layer=Make(layers.Dense, 2, activation="relu")),
              (2, 3, 4, 5), (2, 3, 4, 2), params=12),
    LayerCase(layers.TimeDistributed, dict(layer=Make(layers.LSTM, 2)), (2, 3, 4, 5), (2, 3, 2),
              params=4 * 2 * (5 + 2 + 1), id="TimeDistributed(LSTM)"),
]


@pytest.mark.parametrize("case", CASES, ids=case_id)
def test_time_distributed_harness(case, backend):
    run_layer_case(fresh(case))


def test_time_distributed_dense_matches_numpy(backend):
    layer = layers.TimeDistributed(layers.Dense(3, activation="tanh"))
    x = np.random.default_rng(0).standard_normal((2, 5, 4)).astype("float32")
    y = layer(x).numpy()
    kernel, bias = layer.get_weights()
    for t in range(5):
        np.testing.assert_allclose(y[:, t], np.tanh(x[:, t] @ kernel + bias), rtol=1e-5,
                                   atol=1e-6)
    assert [w.path for w in layer.weights] == [f"{layer.name}/{layer.layer.name}/kernel",
                                               f"{layer.name}/{layer.layer.name}/bias"]


def test_unknown_number_of_timesteps(backend):
    inputs = lamina.Input((None, 4))
    layer = layers.TimeDistributed(layers.Dense(3))
    outputs = layer(inputs)
    assert outputs.shape == (None, None, 3)
    model = lamina.Model(inputs, outputs)
    x = np.random.default_rng(1).standard_normal((2, 6, 4)).astype("float32")
    np.testing.assert_allclose(model(x).numpy(), layer(x).numpy(), rtol=1e-6)
    fixed = lamina.Input((7, 4))
    assert lamina.Model(fixed, layer(fixed)).output_shape == (None, 7, 3)


def test_mask_passes_through_and_reaches_the_inner_layer(backend):
    seen = []

    class Recorder(layers.Layer):
        def call(self, inputs, mask=None):
            seen.append(mask)
            return inputs

    mask = ops.convert_to_tensor(np.array([[1, 0, 1], [1, 1, 0]], bool))
    out = layers.TimeDistributed(Recorder())(np.ones((2, 3, 4), "float32"), mask=mask)
    assert out._keras_mask is mask
    np.testing.assert_array_equal(seen[-1].numpy(), [1, 0, 1, 1, 1, 0])


def test_time_distributed_rejects_bad_arguments():
    with pytest.raises(ValueError, match=r"time_distributed\w*: argument 'layer' must be a "
                                         r"Layer instance \(e.g. Dense\(8\)\); received 'dense'"):
        layers.TimeDistributed("dense")
    with pytest.raises(ValueError, match=r"expects input of rank at least 3 \(batch, "
                                         r"timesteps, ...\); received shape \(2, 4\)"):
        layers.TimeDistributed(layers.Dense(2))(np.ones((2, 4), "float32"))
    with pytest.raises(ValueError, match=r"td_m: argument 'mask' must have shape \(batch, "
                                         r"timesteps, ...\) = \(2, 3\); received shape \(2, 4\)"):
        layers.TimeDistributed(layers.Dense(2), name="td_m")(
            np.ones((2, 3, 4), "float32"), mask=np.ones((2, 4), bool))


def test_time_distributed_needs_one_output():
    with pytest.raises(ValueError, match=r"td_s: the wrapped layer lstm\w* must return one "
                                         r"tensor; it returned tuple"):
        layers.TimeDistributed(layers.LSTM(2, return_state=True), name="td_s")(
            np.ones((2, 3, 4, 5), "float32"))
