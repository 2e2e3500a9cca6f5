"""Who owns the cores: oneDNN's OpenMP pool, with OpenBLAS on one thread beside it.

Both pools busy-wait between parallel regions by default. Side by side they spin against
each other: a oneDNN convolution alternating with an OpenBLAS GEMM measured 14.0 ms per pair
against 7.0 ms for the two alone, and the VGG training step 360 ms against 122 ms with
OpenBLAS on one thread (2 cores, `benchmarks/profile_step.py`). On a machine whose cores are
taken by other work, a spinning worker holds a core that the thread it waits for needs
(a digits `fit` took 69x its quiet time at load 11). So, once oneDNN's library is loaded:

* OpenMP waits passively (``OMP_WAIT_POLICY=PASSIVE``: a worker sleeps as soon as its
  region ends; 7.2 ms per pair), set before libgomp starts unless the user set a policy;
* OpenBLAS runs one thread for the rest of the process (its workers, which spin for about
  2^28 cycles after each call, never start), and the GEMMs that gain from threads are
  oneDNN's. This is process-wide and set before any kernel runs (the numpy backend loads
  the library when it is created), so eager mode and graph plans run every GEMM with the
  same thread count and get the same bits.

* a oneDNN kernel of fewer than ``dnnl_lib.SMALL_WORK`` multiply-adds (or elements) runs on
  one OpenMP thread (a second one gains nothing there and its wake-up is paid per call; on a
  busy machine each two-thread call also waits for the slower thread), a larger one on every
  core; the count follows from the shapes, so both modes get the same bits. With these, a
  digits ``fit`` beside a GEMM process takes 1.0-1.3x its quiet time (2.5x before the rule,
  `benchmarks/contention.py`).

Without oneDNN (``LAMINA_ONEDNN=0``, another platform) nothing here applies and OpenBLAS keeps
its threads.
"""
from __future__ import annotations

import os

from . import blas_threads

_owned = False


def apply_before_openmp() -> None:
    """Set OpenMP's wait policy for the oneDNN library about to load (user settings win)."""
    if "OMP_WAIT_POLICY" not in os.environ and "GOMP_SPINCOUNT" not in os.environ:
        os.environ["OMP_WAIT_POLICY"] = "PASSIVE"


def own_cores() -> None:
    """oneDNN is loaded: OpenBLAS goes to one thread for good (once per process)."""
    global _owned
    if _owned:
        return
    _owned = True
    functions = blas_threads.blas_functions()
    if functions:
        functions[1](1)


def owns_cores() -> bool:
    """Whether the policy is in force (oneDNN loaded and OpenBLAS held at one thread)."""
    return _owned
