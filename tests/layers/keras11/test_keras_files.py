"""Keras-written files (Keras 3.15.1, tests/layers/keras11/make_keras_files.py) with
ConvLSTM2D, RMSNormalization, GroupQueryAttention, SpectralNormalization and
Conv3DTranspose load into Lamina and predict Keras's numbers."""
import pathlib

import numpy as np

import lamina
from lamina import layers

HERE = pathlib.Path(__file__).parent


def _model():
    a = lamina.Input((3, 4, 4, 1))
    h = layers.ConvLSTM2D(2, 2, name="clstm")(a)
    h = layers.Reshape((9, 2))(h)
    h = layers.RMSNormalization(name="rms")(h)
    h = layers.GroupQueryAttention(2, 2, 1, name="gqa")(h, h)
    h = layers.SpectralNormalization(layers.Dense(3, name="d"), name="sn")(h)
    h = layers.Conv1D(2, 1)(h)
    v = layers.Reshape((9, 2, 1, 1))(h)
    v = layers.Conv3DTranspose(1, 2, name="c3t")(v)
    return lamina.Model(a, v)


def test_keras_weights_h5_loads():
    ref = np.load(HERE / "layers11_k3_ref.npz")
    model = _model()
    model.load_weights(HERE / "layers11_k3.weights.h5")
    np.testing.assert_allclose(model.predict(ref["x"], verbose=0), ref["y"], rtol=1e-5,
                               atol=1e-5)


def test_keras_archive_loads():
    ref = np.load(HERE / "layers11_k3_ref.npz")
    model = lamina.saving.load_model(HERE / "layers11_k3.keras")
    np.testing.assert_allclose(model.predict(ref["x"], verbose=0), ref["y"], rtol=1e-5,
                               atol=1e-5)
