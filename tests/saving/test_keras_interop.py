"""Keras 3 itself reads what Lamina writes, and Lamina reads what that Keras writes back.

Runs only where ``keras`` and ``jax`` are installed (they are not Lamina's dependencies):
``pip install keras==3.15.1 jax`` in the test environment to run it.
"""
import importlib.util
import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import lamina
from lamina.saving import load_model

from .helpers import BUILDERS, assert_identical, reference, snapshot

pytestmark = pytest.mark.skipif(
    importlib.util.find_spec("keras") is None or importlib.util.find_spec("jax") is None,
    reason="needs keras 3 and jax installed")

KERAS_SIDE = textwrap.dedent("""
    import sys
    import numpy as np
    import keras
    folder, name = sys.argv[1], sys.argv[2]
    model = keras.saving.load_model(f"{folder}/{name}.keras")
    x = np.load(f"{folder}/x.npy")
    print(float(np.abs(model.predict(x, verbose=0) - np.load(f"{folder}/pred.npy")).max()))
    print(int(model.optimizer.iterations))
    model.load_weights(f"{folder}/{name}.weights.h5")
    model.save(f"{folder}/{name}_keras.keras")
""")


@pytest.mark.parametrize("name", sorted(BUILDERS))
def test_keras_loads_lamina_files(name, tmp_path):
    model = BUILDERS[name]()
    x0, _ = reference(name)
    model.compile(optimizer="adam", loss="sparse_categorical_crossentropy")
    model.fit(x0, np.arange(len(x0)) % 2, epochs=1, batch_size=8, verbose=0)
    model.save(tmp_path / f"{name}.keras")
    model.save_weights(tmp_path / f"{name}.weights.h5")
    np.save(tmp_path / "x.npy", x0)
    np.save(tmp_path / "pred.npy", model.predict(x0, verbose=0))
    result = subprocess.run([sys.executable, "-c", KERAS_SIDE, str(tmp_path), name],
                            capture_output=True, text=True,
                            env={**os.environ, "KERAS_BACKEND": "jax"})
    assert result.returncode == 0, result.stderr[-3000:]
    difference, iterations = result.stdout.split()[-2:]
    assert float(difference) < 1e-5 and int(iterations) == 4
    back = load_model(tmp_path / f"{name}_keras.keras")
    assert_identical(snapshot(back), snapshot(model))
    assert isinstance(back.optimizer, lamina.optimizers.Adam)
