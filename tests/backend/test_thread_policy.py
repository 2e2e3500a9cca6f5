"""The thread policy (lamina/backend/thread_policy.py): with oneDNN loaded, OpenMP waits
passively and OpenBLAS runs one thread for the whole process, from before the first kernel;
without oneDNN nothing changes. Each case runs in a fresh process (the policy is
process-wide)."""
import json
import os
import subprocess
import sys

import pytest

from lamina.backend import blas_threads, dnnl_lib

CHECK = """
import json, os
import lamina
from lamina.backend import blas_threads, thread_policy
lamina.ops.matmul(lamina.ops.ones((4, 4)), lamina.ops.ones((4, 4)))
get = blas_threads.blas_functions()
print(json.dumps({"owned": thread_policy.owns_cores(),
                  "blas": get[0]() if get else None,
                  "omp": os.environ.get("OMP_WAIT_POLICY")}))
"""


def run(**env):
    environment = {k: v for k, v in os.environ.items()
                   if k not in ("OMP_WAIT_POLICY", "GOMP_SPINCOUNT", "OPENBLAS_NUM_THREADS",
                                "OMP_NUM_THREADS", "LAMINA_ONEDNN")}
    environment.update(env)
    out = subprocess.run([sys.executable, "-c", CHECK], env=environment, capture_output=True,
                         text=True, timeout=120, check=True).stdout
    return json.loads(out.strip().splitlines()[-1])


needs = pytest.mark.skipif(
    dnnl_lib.runtime() is None or not blas_threads.blas_functions()
    or blas_threads.cores() < 2,
    reason="needs oneDNN, an OpenBLAS whose thread count can be read, and 2+ cores")


@needs
def test_oneDNN_owns_the_cores_and_OpenBLAS_runs_one_thread():
    assert run() == {"owned": True, "blas": 1, "omp": "PASSIVE"}


@needs
def test_a_users_OpenMP_wait_policy_is_kept():
    assert run(OMP_WAIT_POLICY="ACTIVE")["omp"] == "ACTIVE"


@needs
def test_without_oneDNN_OpenBLAS_keeps_its_threads():
    result = run(LAMINA_ONEDNN="0")
    assert result["owned"] is False and result["omp"] is None
    assert result["blas"] == min(blas_threads.cores(), 64) or result["blas"] > 1


SMALL_THEN_LARGE = """
import json, numpy as np
from lamina.backend import dnnl_lib
from lamina.backend.numpy_backend import NumpyBackend
b = NumpyBackend()
rng = np.random.default_rng(0)
small = rng.standard_normal((2, 4, 4, 3)).astype("float32")
x = rng.standard_normal((16, 32, 32, 32)).astype("float32")
w = rng.standard_normal((3, 3, 32, 32)).astype("float32")
pads = ((1, 1), (1, 1))
b.pool2d(small, "max", (2, 2), (2, 2), ((0, 0), (0, 0)))   # one thread for this one
first = b.conv2d(x, w, (1, 1), pads, (1, 1), 1)            # made after it: all cores
rt = dnnl_lib.runtime()
works = {k[0]: v.work for k, v in dnnl_lib.CACHE.items() if v is not None}
print(json.dumps({"works": works, "count": dnnl_lib._threads.count, "cores": rt.cores,
                  "small": dnnl_lib.SMALL_WORK}))
"""


@needs
def test_small_kernels_run_one_thread_and_large_ones_every_core():
    """The thread count of a oneDNN kernel follows from its shapes (SMALL_WORK), and a
    primitive made right after a one-thread kernel is still planned for every core."""
    environment = {k: v for k, v in os.environ.items() if k != "OMP_NUM_THREADS"}
    out = subprocess.run([sys.executable, "-c", SMALL_THEN_LARGE], env=environment,
                         capture_output=True, text=True, timeout=120, check=True).stdout
    result = json.loads(out.strip().splitlines()[-1])
    assert result["works"]["pool"] < result["small"] <= result["works"]["conv"]
    assert result["count"] == result["cores"] >= 2
