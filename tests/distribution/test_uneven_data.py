"""Processes holding different numbers of rows (issue 23 item 1): no process waits for
ever. With auto_shard_dataset=True (the same data everywhere) it is an error naming each
process's rows; with auto_shard_dataset=False every process takes the same steps, fit the
smallest count and evaluate / predict the largest (with empty steps), so evaluate equals
one process's evaluate on every row. A collective no peer joins ends within the bound."""
import json

import numpy as np
import pytest

from tests.distribution.mpi_run import mpirun

pytestmark = pytest.mark.xdist_group("mpi")


def _shard_error(what):
    return (f"sequential: {what} under DataParallel(auto_shard_dataset=True) needs the same "
            f"data on every process (each takes its share of every global batch), but "
            f"process 0 holds 4096 row(s), process 1 holds 4000 row(s); pass the same arrays "
            f"everywhere, or DataParallel(auto_shard_dataset=False) when each process feeds "
            f"its own part")


def test_same_data_expected_is_an_error_naming_each_process_rows(tmp_path):
    mpirun("uneven_data.py", tmp_path, "shard", timeout=120,
           env={"LAMINA_COLLECTIVE_TIMEOUT": "20"})
    for rank in (0, 1):
        errors = json.loads((tmp_path / f"shard_{rank}.json").read_text())
        assert errors == [_shard_error("fit"), _shard_error("evaluate"),
                          _shard_error("predict")]


@pytest.fixture(scope="module")
def own_parts(tmp_path_factory):
    out = tmp_path_factory.mktemp("own")
    mpirun("uneven_data.py", out, "own", timeout=180, env={"LAMINA_COLLECTIVE_TIMEOUT": "20"})
    return [dict(np.load(out / f"own_{rank}.npz")) for rank in (0, 1)]


def test_fit_takes_the_smallest_step_count_everywhere_and_says_so(own_parts):
    for part in own_parts:
        assert int(part["iterations"]) == 4 * 63          # 4000 rows / 64 = 63 batches
        assert list(part["warnings"]) == [
            "sequential: fit under DataParallel(auto_shard_dataset=False): process 0 holds "
            "64 batch(es), process 1 holds 63 batch(es); every process trains on 63 "
            "batch(es) per epoch so that all take the same steps, leaving out 1 batch(es) "
            "on process 0 of each epoch"]
    np.testing.assert_array_equal(own_parts[0]["kernel"], own_parts[1]["kernel"])


def test_evaluate_and_predict_cover_every_row_of_every_process(own_parts):
    for part in own_parts:
        np.testing.assert_allclose(part["loss"], part["reference_loss"], rtol=1e-5)
        np.testing.assert_allclose(part["mae"], part["reference_mae"], rtol=1e-5)
        assert part["predictions"].shape == (4096 + 4000, 2)
        np.testing.assert_allclose(np.sort(part["predictions"], axis=0),
                                   np.sort(part["expected"], axis=0), rtol=1e-5, atol=1e-6)


def test_a_step_count_no_peer_joins_times_out_naming_the_wait(tmp_path):
    result = mpirun("uneven_data.py", tmp_path, "late", timeout=60, check=False,
                    env={"LAMINA_COLLECTIVE_TIMEOUT": "2"})
    late = json.loads((tmp_path / "late_0.json").read_text())
    assert late["message"] == (
        "lamina.distribution: process 0 of 2 waited 2 s for the count of every process's "
        "batches at the start of evaluate (sizes), which its peers never joined "
        "(LAMINA_COLLECTIVE_TIMEOUT)")
    assert 2 <= late["seconds"] < 6
    assert result.returncode != 0             # the caught timeout still ends the job
    assert "process 0 of 2 ends after a collective timed out" in result.stderr
