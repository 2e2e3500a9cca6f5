"""examples/vgg_digits_distributed.py trains the VGG digits example on 2 processes."""
import os

import pytest

from tests.distribution.mpi_run import ROOT, mpirun

# One worker runs the MPI modules one after the other under pytest-xdist
# (--dist loadgroup): a module fixture launches its job once, and two mpiruns never
# oversubscribe the cores together.
pytestmark = pytest.mark.xdist_group("mpi")


@pytest.mark.slow                   # 2 processes train the VGG example: ~5 s
def test_vgg_digits_distributed_smoke(tmp_path):
    script = os.path.join(ROOT, "examples", "vgg_digits_distributed.py")
    result = mpirun(script, "--smoke", "--batch-size", "16", "--out", tmp_path, timeout=300)
    assert result.stdout.count("Epoch 1/2") == 1              # process 0 alone reports
    assert "2 processes, global batch 16" in result.stdout
    assert "same weights on every process: True" in result.stdout
    accuracy = float(result.stdout.split("test accuracy")[1].split()[0])
    assert accuracy > 0.5
    assert (tmp_path / "best.weights.h5").exists()
