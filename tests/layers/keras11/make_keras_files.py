"""Writes layers11_k3.keras, layers11_k3.weights.h5 and layers11_k3_ref.npz with Keras
3.15.1 (run by hand: ``KERAS_BACKEND=jax /work/kerasenv/bin/python
tests/layers/keras11/make_keras_files.py``); test_keras_files.py loads them in Lamina."""
import pathlib

import keras
import numpy as np
from keras import layers

HERE = pathlib.Path(__file__).parent


def build():
    a = keras.Input((3, 4, 4, 1))
    h = layers.ConvLSTM2D(2, 2, name="clstm")(a)
    h = layers.Reshape((9, 2))(h)
    h = layers.RMSNormalization(name="rms")(h)
    h = layers.GroupQueryAttention(2, 2, 1, name="gqa")(h, h)
    h = layers.SpectralNormalization(layers.Dense(3, name="d"), name="sn")(h)
    h = layers.Conv1D(2, 1)(h)
    v = layers.Reshape((9, 2, 1, 1))(h)
    v = layers.Conv3DTranspose(1, 2, name="c3t")(v)
    return keras.Model(a, v)
m = build()
rng = np.random.default_rng(0)
m.set_weights([rng.standard_normal(w.shape).astype("float32") * 0.3 for w in m.weights])
x = rng.standard_normal((2, 3, 4, 4, 1)).astype("float32")
np.savez_compressed(f"{HERE}/layers11_k3_ref.npz", x=x, y=np.asarray(m(x)))
m.save_weights(f"{HERE}/layers11_k3.weights.h5")
m.save(f"{HERE}/layers11_k3.keras")
