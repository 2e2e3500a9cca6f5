"""Keras 3's rule for random augmentation layers called outside ``fit``: their ``call``
defaults to ``training=True``, so a direct call, or a model called without ``training=``,
augments (the transfer-learning guide's ``data_augmentation(images)``); predict, evaluate
and an explicit or inherited ``training=False`` do not."""
import numpy as np
import pytest

import lamina
from lamina import layers

RANDOM_LAYERS = [
    lambda: layers.RandomFlip("horizontal", seed=1),
    lambda: layers.RandomRotation(0.3, seed=1),
    lambda: layers.RandomTranslation(0.3, 0.3, seed=1),
    lambda: layers.RandomZoom(0.4, seed=1),
    lambda: layers.RandomBrightness(0.5, seed=1),
    lambda: layers.RandomContrast(0.5, seed=1),
    lambda: layers.RandomCrop(4, 4, seed=1),
    lambda: layers.MixUp(seed=1),
    lambda: layers.CutMix(seed=1),
    lambda: layers.RandomInvert(0.5, seed=1),
    lambda: layers.RandomGrayscale(0.5, seed=1),
    lambda: layers.RandomHue(0.5, seed=1),
    lambda: layers.RandomSaturation(0.5, seed=1),
    lambda: layers.RandomColorDegeneration(0.5, seed=1),
    lambda: layers.Solarization(0.3, 0.5, seed=1),
    lambda: layers.RandomColorJitter(brightness_factor=0.3, seed=1),
    lambda: layers.RandomPosterization(3, seed=1),
    lambda: layers.RandomSharpness(0.9, seed=1),
    lambda: layers.RandomErasing(seed=1),
    lambda: layers.RandomGaussianBlur(seed=1),
    lambda: layers.RandomShear(0.3, 0.3, seed=1),
    lambda: layers.RandomPerspective(seed=1),
    lambda: layers.RandAugment(seed=1),
    lambda: layers.RandomElasticTransform(seed=1),
    lambda: layers.AugMix(seed=1),
]


def _images():
    rng = np.random.default_rng(0)
    return rng.uniform(0, 255, size=(8, 6, 6, 3)).astype("float32")


def _inference(layer, x):
    return np.asarray(layer(x, training=False))


def _changed(layer, x, y):
    return not np.allclose(np.asarray(y), _inference(layer, x))


@pytest.mark.parametrize("make", RANDOM_LAYERS, ids=lambda m: type(m()).__name__)
def test_a_direct_call_augments(make):
    layer, x = make(), _images()
    assert _changed(layer, x, layer(x))


@pytest.mark.parametrize("make", RANDOM_LAYERS, ids=lambda m: type(m()).__name__)
def test_a_model_called_without_training_augments_and_predict_does_not(make):
    layer, x = make(), _images()
    inputs = lamina.Input((6, 6, 3))
    model = lamina.Model(inputs, layer(inputs))
    assert _changed(layer, x, model(x))
    np.testing.assert_allclose(model.predict(x, verbose=0), _inference(layer, x))
    np.testing.assert_allclose(np.asarray(model(x, training=False)), _inference(layer, x))


def test_a_sequential_augmentation_block_inside_a_model_follows_the_outer_flag():
    augment = lamina.Sequential([layers.RandomFlip("horizontal", seed=3),
                                 layers.RandomRotation(0.2, seed=3)])
    x = _images()
    assert not np.allclose(np.asarray(augment(x)), x)
    np.testing.assert_allclose(np.asarray(augment(x, training=False)), x)


def test_dropout_keeps_keras_default_of_inference_outside_fit():
    layer, x = layers.Dropout(0.5, seed=1), np.ones((4, 10), "float32")
    np.testing.assert_allclose(np.asarray(layer(x)), x)
