"""Writes tests/ops/image_reference.npz with Keras 3.15.1 (numpy backend):

    KERAS_BACKEND=numpy /work/kerasenv/bin/python tests/ops/image_reference_make.py

Never imported by the tests (they read the .npz)."""
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(__file__))
from image_calls import CALLS  # noqa: E402

import keras  # noqa: E402

out = {}
for label, name, args, kwargs in CALLS:
    out[label] = np.asarray(getattr(keras.ops.image, name)(*args, **kwargs))
np.savez_compressed(os.path.join(os.path.dirname(__file__), "image_reference.npz"), **out)
print(len(out), "references")
