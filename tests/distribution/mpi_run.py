"""Run a worker script under ``mpirun -n N --oversubscribe`` from a test (skipping, with the
reason, where mpirun or mpi4py is missing) and read what each process wrote."""
from __future__ import annotations

import importlib.util
import os
import shutil
import subprocess
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
HERE = os.path.dirname(os.path.abspath(__file__))
ENV = {"OMPI_ALLOW_RUN_AS_ROOT": "1", "OMPI_ALLOW_RUN_AS_ROOT_CONFIRM": "1",
       "OMPI_MCA_rmaps_base_oversubscribe": "1", "PYTHONPATH": ROOT}


def skip_reason() -> str | None:
    if shutil.which("mpirun") is None:
        return "mpirun not found (pip install lamina[distributed], or apt-get install openmpi-bin)"
    if importlib.util.find_spec("mpi4py") is None:
        return "mpi4py not installed (pip install lamina[distributed])"
    return None


def mpirun(script: str, *args, n: int = 2, timeout: float = 240, check: bool = True,
           env: dict | None = None):
    """``mpirun -n n python tests/distribution/<script> args...``; the CompletedProcess."""
    reason = skip_reason()
    if reason:
        pytest.skip(reason)
    command = ["mpirun", "-n", str(n), "--oversubscribe",
               *[a for k in (env or {}) for a in ("-x", k)], sys.executable,
               os.path.join(HERE, script), *map(str, args)]
    result = subprocess.run(command, cwd=ROOT, env={**os.environ, **ENV, **(env or {})},
                            timeout=timeout, capture_output=True)
    # decoded here, not by text=True: its universal newlines would turn a progress bar's
    # in-place redraw (\r) into a line of its own
    result.stdout = result.stdout.decode("utf-8", "replace")
    result.stderr = result.stderr.decode("utf-8", "replace")
    if check and result.returncode != 0:
        raise AssertionError(f"{' '.join(command)} failed ({result.returncode}):\n"
                             f"{result.stdout[-4000:]}\n{result.stderr[-6000:]}")
    return result


def max_relative_difference(expected, actual) -> float:
    import numpy as np
    expected, actual = np.asarray(expected, dtype="float64"), np.asarray(actual, "float64")
    assert expected.shape == actual.shape, (expected.shape, actual.shape)
    if not expected.size:
        return 0.0
    scale = np.maximum(np.abs(expected), 1e-12)
    return float(np.max(np.abs(expected - actual) / scale))
