"""DataParallel on 2 MPI processes equals one process (issue 14, items 1 and 2).

One ``mpirun -n 2`` launch runs every scenario of ``scenarios.py`` (graph and eager mode;
1001 samples in batches of 64, so the last batch of 41 rows splits 21/20; AUC, precision
and recall on unbalanced shards); the test compares every process's weights, history,
evaluate and predict results with the same scenario run here in one process.
"""
import re

import numpy as np
import pytest

from tests.distribution import scenarios
from tests.distribution.mpi_run import max_relative_difference, mpirun

COMPARED = ["graph", "eager", "metrics_graph", "metrics_eager", "callbacks",
            "dropout_graph", "dropout_eager", "syncbn_graph", "syncbn_eager",
            "optimizer_state", "own_shards", "tiny_batches"]
NAMES = COMPARED + ["progbar"]
TOLERANCE = 1e-9

# One worker runs the MPI modules one after the other under pytest-xdist
# (--dist loadgroup): a module fixture launches its job once, and two mpiruns never
# oversubscribe the cores together.
pytestmark = [pytest.mark.slow, pytest.mark.xdist_group("mpi")]   # the launch: 10+ s


@pytest.fixture(scope="module")
def two_processes(tmp_path_factory):
    out = tmp_path_factory.mktemp("data_parallel")
    result = mpirun("worker.py", out, *NAMES)
    runs = {(name, rank): dict(np.load(out / f"{name}_{rank}.npz"))
            for name in NAMES for rank in (0, 1)}
    runs["stdout"] = result.stdout
    return runs


@pytest.mark.parametrize("name", COMPARED)
def test_two_processes_equal_one(two_processes, name, tmp_path):
    expected = scenarios.run(name, str(tmp_path))
    for rank in (0, 1):
        got = two_processes[(name, rank)]
        keys = set(expected) - {"train_rows_seen", "files"}
        assert keys <= set(got)
        worst = {k: max_relative_difference(expected[k], got[k]) for k in sorted(keys)}
        assert max(worst.values()) < TOLERANCE, (rank, worst)


@pytest.mark.parametrize("name", ["graph", "eager"])
def test_each_process_trained_on_its_share_of_the_rows(two_processes, name):
    # 2 epochs of 15 batches of 64 (32 + 32) and one of 41 (21 + 20)
    assert int(two_processes[(name, 0)]["train_rows_seen"]) == 2 * (15 * 32 + 21)
    assert int(two_processes[(name, 1)]["train_rows_seen"]) == 2 * (15 * 32 + 20)


def test_metrics_have_history_of_auc_and_precision(two_processes):
    got = two_processes[("metrics_graph", 1)]
    for key in ("history_auc", "history_precision", "history_recall", "history_loss"):
        assert got[key].shape == (2,)
    assert 0.0 <= got["history_auc"][-1] <= 1.0
    assert np.all(np.isfinite(got["history_precision"]))


def test_callbacks_write_from_process_0_only(two_processes):
    # ModelCheckpoint, CSVLogger and TensorBoard were given a directory per process
    assert list(two_processes[("callbacks", 0)]["files"]) == ["ckpt.weights.h5", "log.csv",
                                                              "tb"]
    assert list(two_processes[("callbacks", 1)]["files"]) == []


def test_early_stopping_and_reduce_lr_decide_alike(two_processes, tmp_path):
    # the resumed fit (BackupAndRestore after an interruption at epoch 2) stops early at
    # the same epoch with the same learning rate on both processes and on one
    expected = scenarios.run("callbacks", str(tmp_path))
    for rank in (0, 1):
        got = two_processes[("callbacks", rank)]
        assert int(got["epochs_run"]) == int(expected["epochs_run"]) < 6
        np.testing.assert_array_equal(got["history_learning_rate"],
                                      expected["history_learning_rate"])


def test_progress_bar_only_on_process_0(two_processes):
    # one epoch: no "Epoch 1/1" line (Keras 3); the epoch's final line once, not twice
    assert two_processes["stdout"].count("Epoch ") == 0
    # counted per line: a slow step redraws the bar in place (\r, kept by mpirun()) on
    # process 0's one line; a bar from process 1 would be a second line
    lines = two_processes["stdout"].split("\n")
    assert sum(bool(re.search(r"2/2\S* \S*━+.*?\d+m?s/step - loss: \d", line))
               for line in lines) == 1
