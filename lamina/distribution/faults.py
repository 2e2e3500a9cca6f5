"""A failed process must end the whole job, never leave its peers waiting in a collective.

``install`` (called by ``initialize``) chains ``sys.excepthook``: an exception that ends
one process's script prints its traceback and then aborts the MPI job, so ``mpirun`` ends
every process with that error. A process killed outright (a signal, the OOM killer) is
noticed by ``mpirun`` itself, which then ends the others.
"""
from __future__ import annotations

import sys

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

    sys.excepthook = abort_on_error
    _INSTALLED = True


__all__ = ["install"]
