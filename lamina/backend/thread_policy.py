"""Who owns the cores: one policy for OpenBLAS's threads and oneDNN's OpenMP threads.

Both pools busy-wait between parallel regions by default. Side by side they spin against
each other (a oneDNN convolution alternating with an OpenBLAS GEMM measured 14.0 ms per pair
against 7.0 ms for the two alone), and on a machine whose cores are taken by other work a
spinning worker holds a core that the thread it waits for needs. So OpenMP waits passively
(``OMP_WAIT_POLICY=PASSIVE``: a worker sleeps as soon as its region ends; 7.2 ms per pair),
set before libgomp starts, unless the user set a policy of their own.
"""
from __future__ import annotations

import os


def apply_before_openmp() -> None:
    """Set OpenMP's wait policy for the oneDNN library about to load (user settings win)."""
    if "OMP_WAIT_POLICY" not in os.environ and "GOMP_SPINCOUNT" not in os.environ:
        os.environ["OMP_WAIT_POLICY"] = "PASSIVE"
