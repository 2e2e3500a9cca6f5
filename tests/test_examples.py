"""Examples run in their fast --smoke mode with an accuracy threshold."""
import importlib.util
import os
import pathlib
import subprocess
import sys

REPO = pathlib.Path(__file__).resolve().parent.parent
EXAMPLES = REPO / "examples"
ENV = {**os.environ, "PYTHONPATH": str(REPO)}


def test_linear_digits_smoke():
    result = subprocess.run([sys.executable, str(EXAMPLES / "linear_digits.py"), "--smoke"],
                            capture_output=True, text=True, timeout=300, env=ENV)
    assert result.returncode == 0, result.stdout + result.stderr
    accuracy = float(result.stdout.split("test accuracy")[1].split()[0])
    assert accuracy > 0.85


def test_vgg_digits_smoke(tmp_path):
    result = subprocess.run([sys.executable, str(EXAMPLES / "vgg_digits.py"), "--smoke",
                             "--out", str(tmp_path)],
                            capture_output=True, text=True, timeout=300, env=ENV)
    assert result.returncode == 0, result.stdout + result.stderr
    accuracy = float(result.stdout.split("test accuracy")[1].split()[0])
    assert accuracy > 0.5
    assert "the restored model predicts the same: True" in result.stdout
    assert (tmp_path / "vgg_digits.keras").exists() and (tmp_path / "best.keras").exists()
    if importlib.util.find_spec("matplotlib"):           # the plots extra
        assert (tmp_path / "history.png").read_bytes()[:4] == b"\x89PNG"
    else:
        assert "pip install lamina[plots]" in result.stdout
