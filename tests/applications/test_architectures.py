"""The applications are Keras's networks: same layers (names, classes, weight shapes, in
Keras's order), same parameter counts, same outputs for the same weights, and Keras-written
weight files of Keras's own bricks load by layer name and predict what Keras predicted."""
import os

import numpy as np
import pytest

import lamina
from lamina import applications, layers
from lamina.applications import densenet, resnet
from lamina.applications.weights import load_application_weights

from .keras_reference import AUTO, FIXTURES, fill, fixture, image_batch, structure

STRUCTURE = fixture("structure.json")
# Keras's documented parameter counts (keras.io/api/applications).
DOCUMENTED = {"VGG16": 138_357_544, "VGG19": 143_667_240, "ResNet50": 25_636_712,
              "ResNet50V2": 25_613_800, "DenseNet121": 8_062_504,
              "ResNet101": 44_707_176, "ResNet152": 60_419_944, "ResNet101V2": 44_675_560,
              "ResNet152V2": 60_380_648, "DenseNet169": 14_307_880,
              "DenseNet201": 20_242_984}


@pytest.mark.parametrize("name", sorted(STRUCTURE))
@pytest.mark.usefixtures("no_initial_draws")
def test_layers_and_parameter_count_equal_keras(name):
    model = getattr(applications, name)(weights=None)
    assert model.count_params() == DOCUMENTED[name] == STRUCTURE[name]["params"]
    assert len(model.layers) == STRUCTURE[name]["layers"]
    assert structure(model) == STRUCTURE[name]["sha256"]
    assert model.name == name.lower()


@pytest.mark.parametrize("name", ["VGG16", "ResNet50", "ResNet50V2", "DenseNet121"])
def test_outputs_equal_keras_for_the_same_weights(name):
    reference = fixture("deterministic.json")[name]
    model = getattr(applications, name)(weights=None, include_top=False,
                                        input_shape=(32, 32, 3), pooling="avg")
    fill(model)
    y = np.asarray(model.predict(image_batch(), verbose=0), dtype="float64")
    assert list(y.shape) == reference["shape"]
    scale = np.abs(np.asarray(reference["abs_sum"])).max() / y.shape[1]
    np.testing.assert_allclose(y[:, :8], reference["first"], rtol=1e-4, atol=1e-5 * scale)
    np.testing.assert_allclose(y.sum(axis=1), reference["sum"], rtol=1e-5)
    np.testing.assert_allclose(np.abs(y).sum(axis=1), reference["abs_sum"], rtol=1e-5)


def tiny_model():
    """The fixture script's model, from Lamina's bricks of the same names."""
    inputs = lamina.Input((16, 16, 3))
    x = layers.Conv2D(4, 3, activation="relu", padding="same", name="block1_conv1")(inputs)
    x = layers.MaxPooling2D(2, strides=2, name="block1_pool")(x)
    x = resnet.residual_block_v1(x, 2, name="conv2_block1")
    x = resnet.residual_block_v1(x, 2, conv_shortcut=False, name="conv2_block2")
    x = resnet.residual_block_v2(x, 2, conv_shortcut=True, name="conv3_block1")
    x = resnet.residual_block_v2(x, 2, stride=2, name="conv3_block2")
    x = densenet.conv_block(x, 4, name="conv4_block1")
    x = densenet.transition_block(x, 0.5, name="pool4")
    x = layers.GlobalAveragePooling2D(name="avg_pool")(x)
    x = layers.Dense(5, activation="softmax", name="predictions")(x)
    return lamina.Model(inputs, x, name="tiny")


@pytest.mark.parametrize("file", ["tiny.weights.h5", "tiny.h5"])
def test_keras_written_weights_predict_what_keras_predicted(file):
    reference = fixture("tiny_output.json")
    model = tiny_model()
    assert [(AUTO.sub("<auto>", layer.name), type(layer).__name__) for layer in model.layers] \
        == [(AUTO.sub("<auto>", name), kind) for name, kind in reference["layers"]]
    before = model.predict(image_batch()[:, :16, :16], verbose=0)
    load_application_weights(model, os.path.join(FIXTURES, file))
    y = model.predict(image_batch()[:, :16, :16], verbose=0)
    np.testing.assert_allclose(y, reference["output"], rtol=1e-5, atol=1e-6)
    assert not np.allclose(before, reference["output"], atol=1e-3)


def test_functional_layers_are_listed_in_keras_order():
    # Keras lists a residual block's main path before its shortcut convolution (by depth
    # from the output), which is the order its .weights.h5 paths number layers by.
    names = [layer.name for layer in tiny_model().layers]
    assert names[3:13] == ["conv2_block1_1_conv", "conv2_block1_1_bn", "conv2_block1_1_relu",
                           "conv2_block1_2_conv", "conv2_block1_2_bn", "conv2_block1_2_relu",
                           "conv2_block1_0_conv", "conv2_block1_3_conv", "conv2_block1_0_bn",
                           "conv2_block1_3_bn"]
