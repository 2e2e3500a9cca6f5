"""A Keras-written MobileNetV2 weights file (alpha 0.35, 96x96, 10 classes, every variable
random; tests/fixtures/applications/make_mobilenet_v2_fixture.py) loads by Keras's layer
names and predicts what Keras predicted, eagerly and through predict's compiled graph."""
import os

import numpy as np
import pytest

import lamina
from lamina.applications import MobileNetV2

from .weights_by_formula import FIXTURES

WEIGHTS = os.path.join(FIXTURES, "mobilenet_v2_035_96.weights.h5")


@pytest.fixture(scope="module")
def expected():
    with np.load(os.path.join(FIXTURES, "mobilenet_v2_035_96_expected.npz")) as data:
        return {key: data[key] for key in data.files}


def _model(activation):
    return MobileNetV2(alpha=0.35, input_shape=(96, 96, 3), classes=10, weights=WEIGHTS,
                       classifier_activation=activation)


def test_parameter_count_equals_keras(expected):
    assert _model(None).count_params() == int(expected["param_count"]) == 423018


def test_eager_call_predicts_what_keras_predicted(expected):
    logits = lamina.ops.convert_to_numpy(_model(None)(expected["x"]))
    assert np.abs(expected["logits"]).max() > 1.0  # the fixture's logits are not flat
    np.testing.assert_allclose(logits, expected["logits"], rtol=1e-4, atol=1e-4)


def test_predict_graph_predicts_what_keras_predicted(expected):
    logits = _model(None).predict(expected["x"], batch_size=2, verbose=0)
    np.testing.assert_allclose(logits, expected["logits"], rtol=1e-4, atol=1e-4)


def test_softmax_head_gives_keras_probabilities(expected):
    probabilities = _model("softmax").predict(expected["x"], verbose=0)
    shifted = np.exp(expected["logits"] - expected["logits"].max(axis=1, keepdims=True))
    np.testing.assert_allclose(probabilities, shifted / shifted.sum(axis=1, keepdims=True),
                               rtol=1e-4, atol=1e-6)


def test_random_weights_do_not_predict_keras_logits(expected):
    """The comparison above can fail: the same model without the file predicts otherwise."""
    model = MobileNetV2(alpha=0.35, input_shape=(96, 96, 3), classes=10, weights=None,
                        classifier_activation=None)
    logits = model.predict(expected["x"], verbose=0)
    assert np.abs(logits - expected["logits"]).max() > 0.5
