import numpy as np
import pytest

from lamina import layers
from tests.layers.harness import LayerCase, case_id, run_layer_case
from tests.layers.keras11.reference import check_against_keras

CASES = [
    LayerCase(layers.MelSpectrogram, dict(fft_length=16, sequence_stride=4, num_mel_bins=5,
                                          sampling_rate=1000, power_to_db=False),
              (2, 40), (2, 5, 11), trainable_weights=0, rtol=1e-4, atol=1e-5),
    LayerCase(layers.MelSpectrogram, dict(fft_length=16, sequence_stride=8, num_mel_bins=4,
                                          sampling_rate=2000, top_db=30.0),
              (2, 32), (2, 4, 5), trainable_weights=0, rtol=1e-4, atol=1e-4),
]


@pytest.mark.parametrize("case", CASES, ids=case_id)
def test_mel_spectrogram_harness(case):
    run_layer_case(case)


@pytest.mark.parametrize("key, kwargs", [
    ("mel_default_small", dict(fft_length=64, sequence_stride=16, num_mel_bins=10,
                               sampling_rate=8000)),
    ("mel_no_db_hamming", dict(fft_length=32, sequence_stride=10, sequence_length=20,
                               window="hamming", num_mel_bins=6, sampling_rate=4000,
                               min_freq=100.0, max_freq=1500.0, power_to_db=False,
                               mag_exp=1.0)),
    ("mel_db_top", dict(fft_length=32, sequence_stride=8, num_mel_bins=8, top_db=20.0,
                        ref_power=0.5, sampling_rate=16000)),
])
def test_matches_keras(key, kwargs):
    check_against_keras(key, layers.MelSpectrogram(**kwargs), rtol=1e-4, atol=2e-4)


def test_single_signal_config_and_errors():
    layer = layers.MelSpectrogram(fft_length=16, sequence_stride=8, num_mel_bins=3)
    assert layer.get_config()["max_freq"] == 8000 and layer.sequence_length == 16
    y = layer(np.sin(np.arange(48, dtype="float32")))
    assert y.shape == (3, 7) == layer.compute_output_shape((48,))
    assert layers.MelSpectrogram.from_config(layer.get_config()).get_config() == \
        layer.get_config()
    with pytest.raises(ValueError, match="`fft_length` must be greater than or equal to "
                                         "`sequence_length`; received sequence_length=32"):
        layers.MelSpectrogram(fft_length=16, sequence_length=32)
    with pytest.raises(ValueError, match="argument 'window' must be 'hann', 'hamming'"):
        layers.MelSpectrogram(window="blackman")
    with pytest.raises(ValueError, match="argument 'num_mel_bins' must be a positive int"):
        layers.MelSpectrogram(num_mel_bins=0)
