"""``python -m lamina.export MODEL.keras OUT.onnx [--opset N]``, run as a subprocess."""
import os
import pathlib
import subprocess
import sys

import numpy as np

from tests.export.onnx_helpers import onnx, run
import lamina
from lamina import layers

ROOT = pathlib.Path(__file__).resolve().parents[2]


def _cli(*args):
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    return subprocess.run([sys.executable, "-m", "lamina.export", *map(str, args)],
                          capture_output=True, text=True, env=env, cwd=ROOT, timeout=120)


def test_cli_writes_an_onnx_file_that_predicts_as_the_model(tmp_path):
    model = lamina.Sequential([layers.Input((6,)), layers.Dense(8, activation="relu"),
                               layers.Dense(3, activation="softmax")])
    model.save(tmp_path / "m.keras")
    result = _cli(tmp_path / "m.keras", tmp_path / "m.onnx", "--opset", 15)
    assert result.returncode == 0, result.stderr
    assert "Saved ONNX model" in result.stdout
    assert onnx.load(str(tmp_path / "m.onnx")).opset_import[0].version == 15
    x = np.random.default_rng(0).normal(size=(7, 6)).astype("float32")
    np.testing.assert_allclose(run(tmp_path / "m.onnx", x)[0], model.predict(x, verbose=0),
                               rtol=1e-5, atol=1e-6)


def test_cli_errors_are_one_line_and_a_nonzero_status(tmp_path):
    result = _cli(tmp_path / "missing.keras", tmp_path / "m.onnx")
    assert result.returncode == 1
    assert result.stderr.startswith("python -m lamina.export: error:")
    assert "Traceback" not in result.stderr
    assert not (tmp_path / "m.onnx").exists()
