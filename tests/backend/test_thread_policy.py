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
