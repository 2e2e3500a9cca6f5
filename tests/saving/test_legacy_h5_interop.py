"""Keras 3 reads the legacy .h5 files Lamina writes, and Lamina reads the ones that Keras
then writes. Runs only where ``keras`` and ``jax`` are installed (they are not Lamina's
dependencies): ``pip install keras==3.15.1 jax`` to run it."""
import importlib.util
import os
import subprocess
import sys
import textwrap
import warnings

import numpy as np
import pytest

import lamina
from lamina.models import load_model

from .helpers import BUILDERS, assert_identical, reference

pytestmark = pytest.mark.skipif(
    importlib.util.find_spec("keras") is None or importlib.util.find_spec("jax") is None,
    reason="needs keras 3 and jax installed")

KERAS_SIDE = textwrap.dedent("""
    import sys
    import numpy as np
    import keras
    folder, name = sys.argv[1], sys.argv[2]
    model = keras.saving.load_model(f"{folder}/{name}.h5")
    x = np.load(f"{folder}/x.npy")
    print(float(np.abs(model.predict(x, verbose=0) - np.load(f"{folder}/pred.npy")).max()))
    print(int(model.optimizer.iterations), type(model.optimizer).__name__)
    model.save(f"{folder}/{name}_keras.h5")
""")


@pytest.mark.parametrize("name", sorted(BUILDERS))
def test_keras_loads_lamina_h5_files(name, tmp_path):
    model = BUILDERS[name]()
    x0, _ = reference(name)
    # Keras 3.15 cannot compile from its own .h5 files with loss='mse' (keras.md §5.1).
    model.compile(optimizer="adam", loss="sparse_categorical_crossentropy")
    model.fit(x0, np.arange(len(x0)) % 2, epochs=1, batch_size=8, verbose=0)
    model.save(tmp_path / f"{name}.h5")
    np.save(tmp_path / "x.npy", x0)
    np.save(tmp_path / "pred.npy", model.predict(x0, verbose=0))
    result = subprocess.run([sys.executable, "-c", KERAS_SIDE, str(tmp_path), name],
                            capture_output=True, text=True,
                            env={"KERAS_BACKEND": "jax", **os.environ})
    assert result.returncode == 0, result.stderr[-3000:]
    difference, iterations, optimizer = result.stdout.split()[-3:]
    assert float(difference) < 1e-5 and int(iterations) == 4 and optimizer == "Adam"
    # Keras 3.15 loads the optimizer state of a legacy .h5 file but builds the optimizer
    # for the model's own (empty) variable list, so the file it writes back holds only
    # `iteration` and `learning_rate`: Lamina skips that state, with a warning.
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message="Skipping variable loading")
        back = load_model(tmp_path / f"{name}_keras.h5")
    assert_identical([w.numpy() for w in back.weights], [w.numpy() for w in model.weights])
    assert isinstance(back.optimizer, lamina.optimizers.Adam)
