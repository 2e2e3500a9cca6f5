"""A job killed with SIGKILL in the middle of epoch 3 and started again gives the same
per-epoch losses as a job that was never killed (rtol 1e-5), with Adam and with
SGD(momentum=0.9):

- through BackupAndRestore, with shuffling, a Dropout layer, EarlyStopping and
  ReduceLROnPlateau: the backup carries weights, optimizer state, epoch and step, the
  shuffle and dropout random state and the callbacks' state (at epoch ends, and with an int
  ``save_freq`` in the middle of an epoch);
- through ``model.save`` (a ``.keras`` ModelCheckpoint) + ``load_model`` +
  ``fit(initial_epoch=...)``, without shuffling or dropout (a ``.keras`` file carries
  weights and optimizer state, not random state).

The jobs are tests/saving/resume_script.py run in subprocesses.
"""
import json
import os
import pathlib
import signal
import subprocess
import sys

import numpy as np
import pytest

from lamina.saving.training_state import read_state

SCRIPT = pathlib.Path(__file__).with_name("resume_script.py")
ROOT = SCRIPT.parent.parent.parent
OPTIMIZERS = ["adam", "sgd_momentum"]
pytestmark = pytest.mark.slow       # three training jobs in fresh processes per test: 5-8 s


def run_job(tmp_path, name: str, records: str, **config) -> int:
    """Run the training job; returns its exit status (-9 when it killed itself)."""
    config = {"seed": 3, "epochs": 12, "save_freq": "epoch", "kill_at": None,
              "backup_dir": str(tmp_path / f"{records}_backup"),
              "checkpoint": str(tmp_path / f"{records}.keras"),
              "records": str(tmp_path / f"{records}.json"), **config}
    path = tmp_path / f"{name}.config.json"
    path.write_text(json.dumps(config))
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    done = subprocess.run([sys.executable, str(SCRIPT), str(path)], env=env, cwd=tmp_path,
                          capture_output=True, text=True, timeout=300)
    assert done.returncode in (0, -signal.SIGKILL), done.stderr
    return done.returncode


def records(tmp_path, name: str) -> list:
    return json.loads((tmp_path / f"{name}.json").read_text())


def column(rows: list, key: str) -> list:
    return [row[key] for row in rows]


def assert_same_run(resumed: list, straight: list) -> None:
    assert column(resumed, "epoch") == column(straight, "epoch")
    for key in ("loss", "val_loss", "learning_rate"):
        np.testing.assert_allclose(column(resumed, key), column(straight, key), rtol=1e-5)
    assert column(resumed, "wait") == column(straight, "wait")


@pytest.mark.parametrize("save_freq, step", [("epoch", 0), (2, 2)], ids=["epoch", "batches"])
@pytest.mark.parametrize("optimizer", OPTIMIZERS)
def test_backup_and_restore_after_sigkill(optimizer, save_freq, step, tmp_path):
    job = dict(resume="backup", optimizer=optimizer, save_freq=save_freq)
    assert run_job(tmp_path, "straight", "straight", **job) == 0
    straight = records(tmp_path, "straight")
    # The plateau callbacks act: the learning rate is halved from epoch 2 on (so the
    # backup must carry it) and training stops early.
    assert straight[1]["learning_rate"] == pytest.approx(straight[0]["learning_rate"] / 2)
    assert straight[-1]["learning_rate"] < straight[0]["learning_rate"] / 4
    assert len(straight) < 12 and straight[-1]["wait"] == 5

    # Killed at the end of batch 2 (of 6) of epoch 3.
    assert run_job(tmp_path, "killed", "resumed", kill_at=[2, 2], **job) == -signal.SIGKILL
    assert column(records(tmp_path, "resumed"), "epoch") == [0, 1]
    backup_dir = tmp_path / "resumed_backup"
    assert sorted(os.listdir(backup_dir)) == ["latest.weights.h5", "training_metadata.json"]
    state = read_state(str(backup_dir / "latest.weights.h5"))
    assert (state["epoch"], state["step"]) == (2, step)      # after epoch 2 / batch 2 of 3
    stopping = state["callbacks"]["EarlyStopping"]
    assert stopping["wait"] == straight[1]["wait"] == 1
    assert stopping["best"] == pytest.approx(straight[0]["val_loss"], rel=1e-6)
    assert state["callbacks"]["ReduceLROnPlateau"]["best"] == stopping["best"]
    dropout = state["rng"]["lamina"]["generators"]["layers/dropout/seed_generator"]
    assert dropout["counter"] == 2 * 6 + step                 # one draw per batch trained
    assert (state["metrics"] != {}) == bool(step)

    assert run_job(tmp_path, "resumed", "resumed", **job) == 0
    assert_same_run(records(tmp_path, "resumed"), straight)
    assert not backup_dir.exists()                          # deleted by the finished fit


@pytest.mark.parametrize("optimizer", OPTIMIZERS)
def test_load_model_after_sigkill(optimizer, tmp_path):
    job = dict(resume="load_model", optimizer=optimizer, epochs=6)
    assert run_job(tmp_path, "straight", "straight", **job) == 0
    straight = records(tmp_path, "straight")
    assert column(straight, "epoch") == list(range(6))

    assert run_job(tmp_path, "killed", "resumed", kill_at=[2, 2], **job) == -signal.SIGKILL
    assert column(records(tmp_path, "resumed"), "epoch") == [0, 1]
    assert run_job(tmp_path, "resumed", "resumed", **job) == 0    # loads resumed.keras
    assert_same_run(records(tmp_path, "resumed"), straight)
