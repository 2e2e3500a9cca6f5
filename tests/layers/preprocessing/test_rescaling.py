import numpy as np
import pytest

import lamina
from lamina import layers
from tests.layers.harness import LayerCase, case_id, run_layer_case


def _pixels(rng, shape):
    return rng.integers(0, 256, size=shape).astype("uint8")


CASES = [
    LayerCase(layers.Rescaling, dict(scale=1 / 255.0), (2, 4, 4, 3), (2, 4, 4, 3),
              trainable_weights=0, params=0, make_input=_pixels, output_dtype="float32"),
    LayerCase(layers.Rescaling, dict(scale=2.0, offset=-1.0), (2, 3), (2, 3),
              trainable_weights=0, params=0),
    LayerCase(layers.Rescaling, dict(scale=[1.0, 0.5, 0.25], offset=[0.0, 1.0, 2.0]),
              (2, 5, 3), (2, 5, 3), trainable_weights=0, params=0, id="Rescaling(per-channel)"),
]


@pytest.mark.parametrize("case", CASES, ids=case_id)
def test_rescaling_harness(case, backend):
    run_layer_case(case)


def test_rescaling_matches_numpy(backend):
    x = np.arange(12, dtype="uint8").reshape(2, 2, 3)
    out = layers.Rescaling(scale=np.array([1.0, 2.0, 3.0]), offset=0.5)(x)
    assert out.dtype == "float32"
    np.testing.assert_allclose(out.numpy(), x * np.array([1.0, 2.0, 3.0]) + 0.5, rtol=1e-6)


def test_rescaling_config_holds_plain_values():
    config = layers.Rescaling(scale=np.array([0.5, 0.25]), offset=np.float32(1.0)).get_config()
    assert config["scale"] == [0.5, 0.25] and config["offset"] == 1.0


def test_rescaling_rejects_non_numbers():
    with pytest.raises(TypeError, match=r"r: argument 'scale' must be a number or a "
                                        r"sequence of numbers; received 'big'"):
        layers.Rescaling("big", name="r")


def test_vector_scale_follows_channels_first_format():
    # Keras 3.15.1: with image_data_format 'channels_first' a per-channel scale multiplies
    # axis -3 (the offset is added as given).
    previous = lamina.config.image_data_format()
    lamina.config.set_image_data_format("channels_first")
    try:
        x = np.arange(2 * 3 * 2 * 2, dtype="float32").reshape(2, 3, 2, 2)
        y = layers.Rescaling(scale=[1.0, 2.0, 3.0], offset=0.5)(x).numpy()
    finally:
        lamina.config.set_image_data_format(previous)
    np.testing.assert_allclose(y, x * np.array([1.0, 2.0, 3.0])[:, None, None] + 0.5)
