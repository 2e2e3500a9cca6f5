import numpy as np
import pytest

from lamina import layers, ops
from lamina.errors import DTypeError
from tests.layers.harness import LayerCase, case_id, run_layer_case
from tests.layers.keras11.reference import check_against_keras, keras_weights

CASES = [
    LayerCase(layers.STFTSpectrogram, dict(frame_length=8, frame_step=4), (2, 24, 1),
              (2, 5, 5), trainable_weights=2, params=80, rtol=1e-4, atol=1e-5,
              weight_shapes={"real_kernel": (8, 1, 5), "imag_kernel": (8, 1, 5)}),
    LayerCase(layers.STFTSpectrogram, dict(mode="psd", frame_length=6, frame_step=3,
                                           fft_length=8, padding="same", expand_dims=True),
              (2, 12, 2), (2, 4, 5, 2), trainable_weights=2, rtol=1e-4, atol=1e-5),
    LayerCase(layers.STFTSpectrogram, dict(mode="real", frame_length=4,
                                           data_format="channels_first"),
              (2, 2, 10), (2, 6, 4), trainable_weights=1, weight_shapes={"real_kernel":
                                                                         (4, 1, 3)}),
]


@pytest.mark.parametrize("case", CASES, ids=case_id)
def test_stft_spectrogram_harness(case):
    run_layer_case(case)


KERAS = {
    "stft_log": dict(frame_length=16, frame_step=5),
    "stft_magnitude_same_expand": dict(mode="magnitude", frame_length=10, frame_step=4,
                                       fft_length=16, padding="same", expand_dims=True,
                                       window="hamming", periodic=True),
    "stft_psd_cf": dict(mode="psd", frame_length=8, data_format="channels_first",
                        scaling="spectrum"),
    "stft_stft_none": dict(mode="stft", frame_length=8, frame_step=8, window=None,
                           scaling=None),
    "stft_real_cf_expand": dict(mode="real", frame_length=6, frame_step=3, fft_length=8,
                                expand_dims=True, data_format="channels_first"),
    "stft_imag": dict(mode="imag", frame_length=4, frame_step=2),
}


@pytest.mark.parametrize("key", sorted(KERAS))
def test_matches_keras(key):
    layer = layers.STFTSpectrogram(**KERAS[key])
    layer.build((None, None, None))
    for weight, expected in zip(layer.weights, keras_weights(key)):   # Keras's own kernels
        np.testing.assert_allclose(weight.numpy(), expected, rtol=1e-5, atol=1e-5)
    check_against_keras(key, layer, rtol=1e-4, atol=1e-4)


def test_angle_mode():
    if not hasattr(ops, "arctan2"):
        with pytest.raises(ValueError, match="mode='angle' needs lamina.ops.arctan2"):
            layers.STFTSpectrogram(mode="angle")
        return
    layer = layers.STFTSpectrogram(mode="angle", frame_length=4)
    x = np.sin(np.arange(12, dtype="float32"))[None, :, None]
    assert layer(x).shape == (1, 5, 3)


def test_config_and_errors():
    layer = layers.STFTSpectrogram(frame_length=100)
    assert layer._fft_length == 128 and layer._frame_step == 50
    assert layers.STFTSpectrogram.from_config(layer.get_config()).get_config() == \
        layer.get_config()
    with pytest.raises(ValueError, match="'frame_step' must be a positive int not greater"):
        layers.STFTSpectrogram(frame_length=8, frame_step=9)
    with pytest.raises(ValueError, match="'fft_length' must be an int not less than"):
        layers.STFTSpectrogram(frame_length=8, fft_length=4)
    with pytest.warns(UserWarning, match="'fft_length' is recommended to be a power of two"):
        layers.STFTSpectrogram(frame_length=8, fft_length=12)
    with pytest.raises(ValueError, match="argument 'mode' must be one of"):
        layers.STFTSpectrogram(mode="power")
    with pytest.raises(ValueError, match="argument 'scaling' must be None"):
        layers.STFTSpectrogram(scaling="l2")
    with pytest.raises(ValueError, match="argument 'padding' must be 'valid' or 'same'"):
        layers.STFTSpectrogram(padding="causal")
    with pytest.raises(ValueError, match="argument 'window' must be None, an array"):
        layers.STFTSpectrogram(window="kaiser")
    with pytest.raises(DTypeError, match="the input must be float16, float32 or float64"):
        layers.STFTSpectrogram(frame_length=4)(np.ones((1, 8, 1), "int32"))
