"""Model-specific arguments: MobileNet's dropout, MobileNetV3's include_preprocessing,
dropout_rate and minimalistic, EfficientNet's extra ImageNet rescaling."""
import math
import os

import numpy as np
import pytest

from lamina import layers
from lamina.applications import EfficientNetB0, MobileNet, MobileNetV3Small
from lamina.applications.model_setup import PretrainedWeightsUnavailableError


def _of_class(model, cls):
    return [layer for layer in model.layers if isinstance(layer, cls)]


def test_mobilenet_dropout_rate():
    model = MobileNet(alpha=0.25, input_shape=(32, 32, 3), dropout=0.3, weights=None)
    assert model.get_layer("dropout").rate == 0.3


def test_v3_include_preprocessing_rescales_pixels_to_minus_one_one():
    x = np.random.default_rng(1).uniform(0, 255, (2, 32, 32, 3)).astype("float32")
    with_rescaling = MobileNetV3Small(input_shape=(32, 32, 3), weights=None, classes=5)
    without = MobileNetV3Small(input_shape=(32, 32, 3), weights=None, classes=5,
                               include_preprocessing=False)
    without.set_weights(with_rescaling.get_weights())
    assert len(_of_class(with_rescaling, layers.Rescaling)) == 1
    assert _of_class(without, layers.Rescaling) == []
    np.testing.assert_allclose(without.predict(x / 127.5 - 1.0, verbose=0),
                               with_rescaling.predict(x, verbose=0), rtol=1e-5, atol=1e-6)


def test_v3_dropout_rate_and_minimalistic():
    assert [l.rate for l in _of_class(MobileNetV3Small(weights=None, dropout_rate=0.4),
                                      layers.Dropout)] == [0.4]
    assert _of_class(MobileNetV3Small(weights=None, dropout_rate=0.0), layers.Dropout) == []
    minimal = MobileNetV3Small(weights=None, minimalistic=True)
    assert not any("squeeze_excite" in layer.name for layer in minimal.layers)
    assert any("squeeze_excite" in layer.name
               for layer in MobileNetV3Small(weights=None).layers)


def test_efficientnet_imagenet_adds_keras_stddev_rescaling(tmp_path, monkeypatch):
    monkeypatch.setenv("LAMINA_HOME", str(tmp_path))
    source = EfficientNetB0(include_top=False, input_shape=(32, 32, 3), weights=None)
    assert len(_of_class(source, layers.Rescaling)) == 1
    os.makedirs(tmp_path / "models")
    source.save(str(tmp_path / "models" / "efficientnetb0_notop.h5"))
    model = EfficientNetB0(include_top=False, input_shape=(32, 32, 3), weights="imagenet")
    first, second = _of_class(model, layers.Rescaling)
    assert first.scale == pytest.approx(1 / 255)
    assert second.scale == pytest.approx([1 / math.sqrt(s) for s in (0.229, 0.224, 0.225)])
    assert all(np.array_equal(a, b) for a, b in zip(source.get_weights(), model.get_weights()))


def test_efficientnet_name_picks_the_imagenet_file(tmp_path, monkeypatch):
    monkeypatch.setenv("LAMINA_HOME", str(tmp_path))
    with pytest.raises(PretrainedWeightsUnavailableError, match="'mine.h5'"):
        EfficientNetB0(name="mine")
