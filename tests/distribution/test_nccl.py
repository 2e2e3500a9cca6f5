"""GPUs (issue 14 item 8): with the cupy backend, gradients (and synchronized batch
statistics) go through NCCL on device buffers. Run on one GPU, a world of one process,
where a GPU is lent; skipped elsewhere. More than one GPU is untested."""
import json

import numpy as np
import pytest

from tests.conftest import cupy_unavailable_reason
from tests.distribution.mpi_run import mpirun

pytestmark = [pytest.mark.gpu, pytest.mark.xdist_group("mpi")]     # see test_data_parallel


def test_one_gpu_fit_goes_through_nccl_and_equals_a_plain_fit(tmp_path):
    reason = cupy_unavailable_reason()
    if reason:
        pytest.skip(f"cupy backend unavailable: {reason}")
    mpirun("nccl.py", tmp_path, n=1)
    result = json.loads((tmp_path / "nccl.json").read_text())
    assert result["kinds"] == ["allreduce", "nccl"]      # host allreduce: metric states only
    for plain, distributed in zip(result["plain"], result["distributed"]):
        np.testing.assert_allclose(distributed, plain, rtol=1e-5, atol=1e-6)
    assert result["dtype_error"] == ("lamina.distribution: NCCL cannot sum dtype bool; "
                                     "gradients must be one of ['float16', 'float32', "
                                     "'float64', 'int32', 'int64', 'uint8']")
