"""The process world: which process this is, how many there are, and their communicator.

``initialize()`` reads the MPI world that ``mpirun`` / ``srun`` started (mpi4py is imported
only then). Without it the world is one process and nothing is exchanged.
"""
from __future__ import annotations

import os

from ..backend.collectives import Communicator, mpi
from . import faults

_WORLD = None


def initialize(job_addresses=None, num_processes=None, process_id=None) -> None:
    """Join the MPI world of ``mpirun -n N python script.py`` (Keras 3's signature).

    Call it once at the start of a multi-process run, before building a
    ``DataParallel``.

    Args:
        job_addresses: Keras/JAX's coordinator address; MPI finds its peers itself, so it
            must be ``None``.
        num_processes: The expected number of processes, checked against the world MPI
            started; ``None`` to skip the check.
        process_id: The expected rank of this process, checked the same way; ``None`` to
            skip the check.

    Raises:
        ValueError: If ``job_addresses`` is given, or ``num_processes`` / ``process_id``
            differs from the MPI world (the error names both values).

    Example:

    >>> lamina.distribution.initialize()        # in a script run by mpirun -n 2
    """
    global _WORLD
    if job_addresses is not None:
        raise ValueError(f"lamina.distribution.initialize: argument 'job_addresses' is not "
                         f"used with MPI (mpirun / srun start and connect the processes; a "
                         f"multi-host run lists its hosts in mpirun's --hostfile); received "
                         f"{job_addresses!r}")
    comm = mpi().COMM_WORLD
    communicator = Communicator(comm)
    for name, given, actual in (("num_processes", num_processes, communicator.size),
                                ("process_id", process_id, communicator.rank)):
        if given is not None and int(given) != actual:
            raise ValueError(f"lamina.distribution.initialize: argument '{name}' is "
                             f"{given!r} but the MPI world has {name} = {actual}")
    _WORLD = communicator
    faults.install(communicator)


def world():
    """The communicator of this process (a one-process world before ``initialize()``)."""
    global _WORLD
    if _WORLD is None:
        _WORLD = Communicator(None)
    return _WORLD


def rank() -> int:
    return world().rank


def size() -> int:
    return world().size


def launched_by_mpi() -> bool:
    return any(k in os.environ for k in ("OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "PMIX_RANK"))


__all__ = ["initialize", "world", "rank", "size"]
