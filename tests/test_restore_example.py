"""examples/restore_and_predict.py in its --smoke mode: the VGG digits model comes back from
its .keras file with the accuracy it was saved with and its optimizer's step count, and
trains on for an epoch."""
import math
import os
import pathlib
import re
import subprocess
import sys

import pytest

REPO = pathlib.Path(__file__).resolve().parent.parent
EXAMPLES = REPO / "examples"
ENV = {**os.environ, "PYTHONPATH": str(REPO)}
# --smoke trains on 480 samples, batch 16; vgg_digits.py holds 10% out for validation.
VGG_STEPS, SMOKE_STEPS = math.ceil(480 * 0.9 / 16), math.ceil(480 / 16)


def _run(*args):
    result = subprocess.run([sys.executable, *map(str, args)], capture_output=True,
                            text=True, timeout=300, env=ENV)
    return result


def _restored(stdout):
    found = re.search(r"restored (.+\.keras): test accuracy ([\d.]+) \(loss ([\d.]+)\); the "
                      r"optimizer resumes at step (\d+)", stdout)
    assert found, stdout
    return found.group(1), float(found.group(2)), int(found.group(4))


def _after(stdout):
    found = re.search(r"after 1 more epoch\(s\): test accuracy ([\d.]+) \(loss [\d.]+\); "
                      r"optimizer step (\d+)", stdout)
    assert found, stdout
    return float(found.group(1)), int(found.group(2))


@pytest.mark.slow                   # trains the VGG example, restores it and trains on
def test_restore_the_model_vgg_digits_saved(tmp_path):
    trained = _run(EXAMPLES / "vgg_digits.py", "--smoke", "--out", tmp_path)
    assert trained.returncode == 0, trained.stdout + trained.stderr
    saved_accuracy = trained.stdout.split("test accuracy")[1].split()[0]

    result = _run(EXAMPLES / "restore_and_predict.py", "--smoke", "--model",
                  tmp_path / "vgg_digits.keras")
    assert result.returncode == 0, result.stdout + result.stderr
    assert "Total params" in result.stdout and "conv2d_3 (Conv2D)" in result.stdout
    path, accuracy, steps = _restored(result.stdout)
    assert path == str(tmp_path / "vgg_digits.keras")
    assert f"{accuracy:.4f}" == saved_accuracy           # the very model that was saved
    assert steps == 2 * VGG_STEPS                         # two epochs of Adam steps
    after, steps_after = _after(result.stdout)
    assert steps_after == steps + SMOKE_STEPS             # training continued, not restarted
    assert after > 0.5


@pytest.mark.slow
def test_without_a_model_it_trains_one_first():
    result = _run(EXAMPLES / "restore_and_predict.py", "--smoke")
    assert result.returncode == 0, result.stdout + result.stderr
    assert "no --model given: training one with" in result.stdout
    path, accuracy, steps = _restored(result.stdout)
    assert path.endswith("vgg_digits.keras") and accuracy > 0.5 and steps == 2 * VGG_STEPS
    assert _after(result.stdout)[0] > 0.5


def test_a_missing_model_file_is_reported(tmp_path):
    result = _run(EXAMPLES / "restore_and_predict.py", "--model", tmp_path / "none.keras")
    assert result.returncode == 1
    assert "no model file at" in result.stderr and "none.keras" in result.stderr
    assert "Traceback" not in result.stderr
