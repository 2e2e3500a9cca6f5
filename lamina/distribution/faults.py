"""A failed process must end the whole job, never leave its peers waiting in a collective.

``install`` (called by ``initialize``) chains ``sys.excepthook``: an exception that ends
one process's script prints its traceback and then aborts the MPI job, so ``mpirun`` ends
every process with that error. A process killed outright (a signal, the OOM killer) is
noticed by ``mpirun`` itself, which then ends the others. A collective that timed out
(``LAMINA_COLLECTIVE_TIMEOUT``) and whose error the script caught also aborts the job, at
exit at the latest: its request can never complete, and MPI's finalize would wait for it.
"""
from __future__ import annotations

import atexit
import sys

from ..backend.collectives import TIMED_OUT

_INSTALLED = False


def install(communicator) -> None:
    global _INSTALLED
    if _INSTALLED or communicator.size == 1:
        return
    previous = sys.excepthook

    def abort_on_error(kind, value, traceback):
        previous(kind, value, traceback)
        sys.stderr.write(f"lamina.distribution: process {communicator.rank} of "
                         f"{communicator.size} failed with {kind.__name__}; aborting the "
                         f"MPI job so the other processes do not wait for it\n")
        sys.stderr.flush()
        communicator.abort(1)

    def abort_after_timeout():
        if TIMED_OUT:
            sys.stderr.write(f"lamina.distribution: process {communicator.rank} of "
                             f"{communicator.size} ends after a collective timed out "
                             f"({TIMED_OUT[0]}); aborting the MPI job\n")
            sys.stderr.flush()
            communicator.abort(1)

    sys.excepthook = abort_on_error
    atexit.register(abort_after_timeout)
    _INSTALLED = True


__all__ = ["install"]
