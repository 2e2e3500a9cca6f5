"""Gradient buckets (issue 14 item 6): their plan, and on 2 processes the number, sizes and
order of the non-blocking allreduces of one step, and where the traced step issues them."""
import json

import pytest

from lamina.distribution.gradients import plan_buckets
from lamina.distribution.strategies import DEFAULT_BUCKET_BYTES, DataParallel
from tests.distribution.mpi_run import mpirun

# One worker runs the MPI modules one after the other under pytest-xdist
# (--dist loadgroup): a module fixture launches its job once, and two mpiruns never
# oversubscribe the cores together.
pytestmark = pytest.mark.xdist_group("mpi")


def test_buckets_fill_in_reverse_order_and_close_at_the_size():
    shapes = [(8, 16), (16,), (16, 3), (3,)]
    dtypes = ["float64"] * 4
    assert plan_buckets(shapes, dtypes, 400) == [[3, 2], [1, 0]]
    assert plan_buckets(shapes, dtypes, 1) == [[3], [2], [1], [0]]
    assert plan_buckets(shapes, dtypes, DEFAULT_BUCKET_BYTES) == [[3, 2, 1, 0]]


def test_a_bucket_holds_one_dtype():
    assert plan_buckets([(2,), (2,), (2,)], ["float32", "float64", "float64"], 10**9) == \
        [[2, 1], [0]]


def test_default_bucket_size_is_25_mib():
    assert DataParallel().bucket_bytes == 25 * 2 ** 20


@pytest.fixture(scope="module")
def step_calls(tmp_path_factory):
    out = tmp_path_factory.mktemp("buckets")
    mpirun("buckets.py", out)
    return [json.loads((out / f"buckets_{rank}.json").read_text()) for rank in (0, 1)]


@pytest.mark.slow                   # the mpirun of step_calls: ~5 s
def test_one_iallreduce_per_bucket_last_layer_first(step_calls):
    # buckets of 400 bytes: [bias 3 + kernel 16x3] = 51 values, then [16 + 8x16] = 144
    for result in step_calls:
        assert result["graph"] == [["iallreduce", 51], ["iallreduce", 144]]
        assert result["eager"] == [["iallreduce", 51], ["iallreduce", 144]]


@pytest.mark.slow
def test_traced_step_starts_a_bucket_before_the_backward_pass_ends(step_calls):
    schedule = step_calls[0]["schedule"]
    starts = [i for i, name in enumerate(schedule) if name == "allreduce_start"]
    waits = [i for i, name in enumerate(schedule) if name == "allreduce_wait"]
    assert len(starts) == 2 and len(waits) == 2
    assert max(starts) < min(waits)          # every bucket in flight before the first wait
    # the first layer's gradients (matmuls) are computed after the first bucket started
    assert any(name == "matmul" for name in schedule[starts[0]:starts[1]])
    # and the start follows its bucket's packing at once (concatenate right before it)
    assert schedule[starts[0] - 1] == "concatenate"
