"""Writes augment_reference.npz with Keras 3.15.1 (numpy backend):

    KERAS_BACKEND=numpy /work/kerasenv/bin/python tests/layers/preprocessing/augment_reference_make.py

Never imported by the tests (they read the .npz)."""
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(__file__))
from augment_calls import CALLS  # noqa: E402

import keras  # noqa: E402

out = {}
for label, name, kwargs, x, training in CALLS:
    layer = getattr(keras.layers, name)(**kwargs)
    out[label] = np.asarray(layer(x, training=training))
np.savez_compressed(os.path.join(os.path.dirname(__file__), "augment_reference.npz"), **out)
print(len(out), "references")
