"""Faults on 2 processes (issue 14 item 7): a dead or failing process ends the whole job
with a clear error well within 60 s, the last checkpoint stays loadable, and differing
models or compile configurations are an error naming the difference."""
import json
import time

import numpy as np
import pytest

import lamina as keras
from tests.distribution.mpi_run import mpirun

LIMIT_SECONDS = 60

# One worker runs the MPI modules one after the other under pytest-xdist
# (--dist loadgroup): a module fixture launches its job once, and two mpiruns never
# oversubscribe the cores together.
pytestmark = pytest.mark.xdist_group("mpi")


def run_until_failure(tmp_path, mode, env=None):
    result = mpirun("faults.py", tmp_path, mode, check=False, timeout=LIMIT_SECONDS + 60,
                    env=env)
    ended = time.time()
    failed_at = float((tmp_path / "killed_at").read_text())
    return result, ended - failed_at


def test_a_killed_process_ends_the_job_and_leaves_a_loadable_checkpoint(tmp_path):
    result, seconds = run_until_failure(tmp_path, "kill")
    assert result.returncode != 0
    output = result.stdout + result.stderr
    assert "process rank 1" in output and "signal 9" in output
    assert seconds < LIMIT_SECONDS
    print(f"killed process: the job ended {seconds:.2f} s later")
    model = keras.Sequential([keras.Input((8,)), keras.layers.Dense(16, activation="relu"),
                              keras.layers.Dense(3)])
    model.load_weights(str(tmp_path / "last.weights.h5"))
    assert all(np.all(np.isfinite(w)) for w in model.get_weights())


def test_an_exception_on_one_process_aborts_the_job(tmp_path):
    result, seconds = run_until_failure(tmp_path, "raise")
    assert result.returncode != 0
    output = result.stdout + result.stderr
    assert "RuntimeError: a failure on process 1" in output
    assert "lamina.distribution: process 1 of 2 failed with RuntimeError; aborting the MPI " \
           "job" in output
    assert seconds < LIMIT_SECONDS


@pytest.mark.slow                   # waits out a 3 s collective timeout in a 2-process job
def test_a_collective_no_peer_joins_ends_the_job_after_the_timeout(tmp_path):
    result, seconds = run_until_failure(tmp_path, "stray",
                                        env={"LAMINA_COLLECTIVE_TIMEOUT": "3"})
    assert result.returncode != 0
    assert "WaitTimeoutError: lamina.distribution: process 1 of 2 waited 3 s for an " \
           "allreduce (sum) of 3 values, which its peers never joined " \
           "(LAMINA_COLLECTIVE_TIMEOUT)" in result.stderr
    assert "process 1 of 2 failed with WaitTimeoutError; aborting the MPI job" in \
           result.stderr
    assert seconds < 20


@pytest.fixture(scope="module")
def mismatch_errors(tmp_path_factory):
    out = tmp_path_factory.mktemp("mismatch")
    mpirun("faults.py", out, "mismatch")
    return [json.loads((out / f"mismatch_{rank}.json").read_text()) for rank in (0, 1)]


def test_differing_models_are_named_on_every_process(mismatch_errors):
    for errors in mismatch_errors:
        assert "DataParallel processes disagree: on process 1, weight ('dense/kernel', " \
               "(8, 16), 'float32') on process 0 is ('dense/kernel', (8, 17), 'float32') " \
               "here" in errors[0]


def test_differing_compile_arguments_are_named(mismatch_errors):
    for errors in mismatch_errors:
        assert "on process 1, compile argument 'loss' is 'mae' on process 0 and 'mse' " \
               "here" in errors[1]


def test_a_batch_with_fewer_rows_than_processes_is_an_error(mismatch_errors):
    for errors in mismatch_errors:
        assert errors[2] == ("sequential_2: a global batch of 1 row(s) cannot be split over 2 "
                             "processes (each needs at least one row); use a batch_size of "
                             "at least 2 (the last batch included)")


def test_initialize_checks_the_number_of_processes(mismatch_errors):
    for errors in mismatch_errors:
        assert errors[3] == ("lamina.distribution.initialize: argument 'num_processes' is 3 "
                             "but the MPI world has num_processes = 2")
