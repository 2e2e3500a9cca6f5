import numpy as np
import pytest

import lamina
from lamina import layers
from tests.layers.harness import LayerCase, case_id, run_layer_case

CASES = [
    LayerCase(layers.Flatten, {}, (2, 3, 4), (2, 12), trainable_weights=0, params=0,
              weight_shapes={}),
    LayerCase(layers.Flatten, dict(data_format="channels_first"), (2, 3, 4, 5), (2, 60),
              trainable_weights=0, params=0),
    LayerCase(layers.Flatten, {}, (3,), (3, 1), trainable_weights=0, params=0),
]


@pytest.mark.parametrize("case", CASES, ids=case_id)
def test_flatten_harness(case, backend):
    run_layer_case(case)


def test_flatten_matches_numpy(backend):
    x = np.random.default_rng(0).standard_normal((2, 3, 4, 5)).astype("float32")
    np.testing.assert_array_equal(layers.Flatten()(x).numpy(), x.reshape(2, -1))


def test_flatten_channels_first_moves_channels_last_first(backend):
    # Keras: a channels-first input is flattened in channels-last order, so the features
    # reach a following Dense in the same order as for the channels-last model
    x = np.random.default_rng(1).standard_normal((2, 3, 4, 5)).astype("float32")
    y = layers.Flatten(data_format="channels_first")(x).numpy()
    np.testing.assert_array_equal(y, np.transpose(x, (0, 2, 3, 1)).reshape(2, -1))


def test_flatten_symbolic_shape():
    out = layers.Flatten()(lamina.layers.Input(shape=(4, 5)))
    assert out.shape == (None, 20)
    assert layers.Flatten().compute_output_shape((None, 4, 5)) == (None, 20)


def test_flatten_symbolic_unknown_sizes_as_keras():
    # Keras 3.15.1: unknown sizes flatten to an unknown feature count.
    assert layers.Flatten()(lamina.layers.Input(batch_shape=(5, 2, None))).shape == (5, None)
    assert layers.Flatten()(lamina.layers.Input(shape=(None, 3))).shape == (None, None)
    x = lamina.layers.Input(shape=(2, None))
    model = lamina.Model(x, layers.Flatten()(x))
    data = np.arange(24, dtype="float32").reshape(3, 2, 4)
    np.testing.assert_array_equal(model.predict(data, verbose=0), data.reshape(3, 8))
    np.testing.assert_array_equal(model(data[:, :, :3]).numpy(), data[:, :, :3].reshape(3, 6))


def test_flatten_rejects_bad_data_format():
    with pytest.raises(ValueError, match=r"argument 'data_format' must be 'channels_last', "
                                         r"'channels_first' or None; received 'nhwc'"):
        layers.Flatten(data_format="nhwc")
