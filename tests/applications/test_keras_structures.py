"""Each model has Keras's name, parameter count and layers (name, class, weight shapes, in
order: what loading a Keras weights file by layer name needs), and with the same weights
computes Keras's outputs, eagerly and through predict's compiled graph. Reference numbers:
tests/fixtures/applications/keras_references.json (make_keras_references.py, Keras 3.15.1)."""
import numpy as np
import pytest

import lamina
from lamina.applications import (EfficientNetB0, EfficientNetB1, EfficientNetB2,
                                 EfficientNetB3, EfficientNetB4, EfficientNetB5,
                                 EfficientNetB6, EfficientNetB7, MobileNet, MobileNetV2,
                                 MobileNetV3Large, MobileNetV3Small)

from .weights_by_formula import (keras_references, layers_of, set_weights_by_formula,
                                without_counters)

REFERENCES = keras_references()

STRUCTURES = {
    "MobileNet()": lambda: MobileNet(weights=None),
    "MobileNet(alpha=0.5, depth_multiplier=2, include_top=False, pooling='max', "
    "input_shape=(128, 128, 3))": lambda: MobileNet(
        alpha=0.5, depth_multiplier=2, include_top=False, pooling="max",
        input_shape=(128, 128, 3), weights=None),
    "MobileNetV2()": lambda: MobileNetV2(weights=None),
    "MobileNetV2(alpha=1.4, include_top=False, pooling='avg')": lambda: MobileNetV2(
        alpha=1.4, include_top=False, pooling="avg", weights=None),
    "MobileNetV3Small()": lambda: MobileNetV3Small(weights=None),
    "MobileNetV3Large()": lambda: MobileNetV3Large(weights=None),
    "MobileNetV3Small(alpha=0.75, minimalistic=True, include_top=False, pooling='avg', "
    "input_shape=(96, 96, 3))": lambda: MobileNetV3Small(
        alpha=0.75, minimalistic=True, include_top=False, pooling="avg",
        input_shape=(96, 96, 3), weights=None),
    "EfficientNetB0()": lambda: EfficientNetB0(weights=None),
    "EfficientNetB3(include_top=False, pooling='max')": lambda: EfficientNetB3(
        include_top=False, pooling="max", weights=None),
}
COUNTS = {"EfficientNetB1()": EfficientNetB1, "EfficientNetB2()": EfficientNetB2,
          "EfficientNetB4()": EfficientNetB4, "EfficientNetB5()": EfficientNetB5,
          "EfficientNetB6()": EfficientNetB6, "EfficientNetB7()": EfficientNetB7}
FORWARD = {
    "MobileNet(alpha=0.25, input_shape=(64, 64, 3), classes=10, classifier_activation=None)":
        lambda: MobileNet(alpha=0.25, input_shape=(64, 64, 3), classes=10, weights=None,
                          classifier_activation=None),
    "EfficientNetB0(input_shape=(64, 64, 3), classes=10, classifier_activation=None)":
        lambda: EfficientNetB0(input_shape=(64, 64, 3), classes=10, weights=None,
                               classifier_activation=None),
    "MobileNetV3Small(input_shape=(64, 64, 3), classes=10, classifier_activation=None)":
        lambda: MobileNetV3Small(input_shape=(64, 64, 3), classes=10, weights=None,
                                 classifier_activation=None),
    "MobileNetV3Large(alpha=0.75, minimalistic=True, include_top=False, pooling='avg', "
    "input_shape=(64, 64, 3))":
        lambda: MobileNetV3Large(alpha=0.75, minimalistic=True, include_top=False,
                                 pooling="avg", input_shape=(64, 64, 3), weights=None),
}


def test_documented_parameter_counts():
    """Keras's documentation: MobileNet 4,253,864; MobileNetV2 3,538,984; EfficientNetB0
    5,330,571 (the reference file holds the same numbers, computed by Keras)."""
    structures = REFERENCES["structures"]
    assert structures["MobileNet()"]["params"] == 4253864
    assert structures["MobileNetV2()"]["params"] == 3538984
    assert structures["EfficientNetB0()"]["params"] == 5330571


@pytest.mark.parametrize("key", sorted(STRUCTURES))
@pytest.mark.usefixtures("no_initial_draws")
def test_name_parameters_and_layers_equal_keras(key):
    expected = REFERENCES["structures"][key]
    model = STRUCTURES[key]()
    assert model.name == expected["name"]
    assert model.count_params() == expected["params"]
    assert without_counters(layers_of(model)) == without_counters(expected["layers"])


@pytest.mark.parametrize("key", sorted(COUNTS))
@pytest.mark.usefixtures("no_initial_draws")
def test_efficientnet_scaling_gives_keras_parameter_counts(key):
    expected = REFERENCES["counts"][key]
    model = COUNTS[key](weights=None)
    assert (model.name, model.count_params()) == (expected["name"], expected["params"])


@pytest.mark.parametrize("key", sorted(FORWARD))
def test_same_weights_compute_keras_outputs_eager_and_graph(key):
    reference = REFERENCES["forward"][key]
    expected = np.asarray(reference["output"], dtype="float32")
    model = FORWARD[key]()
    set_weights_by_formula(model)
    x = np.random.default_rng(5).uniform(reference["low"], reference["high"],
                                         (2, 64, 64, 3)).astype("float32")
    scale = max(1.0, float(np.abs(expected).max()))
    rtol, atol = 1e-4, 1e-5 * scale
    # the two inputs' outputs differ by far more than the tolerance: the comparison can fail
    assert np.abs(expected[0] - expected[1]).max() > 10 * (atol + rtol * scale)
    eager = lamina.ops.convert_to_numpy(model(x))
    np.testing.assert_allclose(eager, expected, rtol=rtol, atol=atol)
    graph = model.predict(x, batch_size=2, verbose=0)
    np.testing.assert_allclose(graph, expected, rtol=rtol, atol=atol)
