"""A weights file in the legacy HDF5 layout of Keras's published ImageNet files, written by
Keras 3 (tests/fixtures/applications/make_mobilenet_legacy_h5_fixture.py), loads by layer
name, from a path or as weights="imagenet" from $LAMINA_HOME/models, and gives Keras's
features."""
import os
import shutil

import numpy as np
import pytest

from lamina.applications import MobileNet

from .weights_by_formula import FIXTURES

FILE = "mobilenet_2_5_128_tf_no_top.h5"


@pytest.fixture(scope="module")
def expected():
    with np.load(os.path.join(FIXTURES, "mobilenet_2_5_128_expected.npz")) as data:
        return data["features"]


def _image():
    return np.random.default_rng(9).uniform(-1.0, 1.0, (1, 128, 128, 3)).astype("float32")


def _model(weights):
    return MobileNet(alpha=0.25, include_top=False, pooling="avg", input_shape=(128, 128, 3),
                     weights=weights)


def test_path_to_a_keras_h5_file(expected):
    features = _model(os.path.join(FIXTURES, FILE)).predict(_image(), verbose=0)
    assert np.abs(expected).max() > 0.1
    np.testing.assert_allclose(features, expected, rtol=1e-4, atol=1e-5)


def test_imagenet_reads_the_file_from_the_models_folder(expected, tmp_path, monkeypatch):
    monkeypatch.setenv("LAMINA_HOME", str(tmp_path))
    os.makedirs(tmp_path / "models")
    shutil.copy(os.path.join(FIXTURES, FILE), tmp_path / "models" / FILE)
    features = _model("imagenet").predict(_image(), verbose=0)
    np.testing.assert_allclose(features, expected, rtol=1e-4, atol=1e-5)
    assert np.abs(_model(None).predict(_image(), verbose=0) - expected).max() > 1e-2
