"""Gradient allreduce between GPUs through NCCL (``cupy.cuda.nccl``): device buffers are
summed in place, with no host copies; one process per GPU.

The NCCL communicator is made on first use: process 0 draws NCCL's unique id and MPI
broadcasts it. Each allreduce runs on a stream of its own after the compute stream's work
so far (an event), so it overlaps the rest of the backward pass; its wait makes the
compute stream wait for it (another event). Untested with more than one GPU here: the
tests run it on one GPU (a world of one process) where one is lent.
"""
from __future__ import annotations

from . import collectives

_DTYPES = {"float16": "NCCL_FLOAT16", "float32": "NCCL_FLOAT32", "float64": "NCCL_FLOAT64",
           "int32": "NCCL_INT32", "int64": "NCCL_INT64", "uint8": "NCCL_UINT8"}


def _nccl():
    try:
        from cupy.cuda import nccl
    except ImportError as error:
        raise ImportError(f"lamina.distribution: gradients on the GPU go through NCCL, which "
                          f"this CuPy lacks (pip install cupy-cuda12x; CuPy's wheels bundle "
                          f"NCCL support): {error}") from error
    return nccl


def communicator(world):
    """``world``'s NCCL communicator (made once, collectively)."""
    if world.nccl is None:
        nccl = _nccl()
        uid = nccl.get_unique_id() if world.rank == 0 else None
        if world.comm is not None:
            uid = world.comm.bcast(uid, root=0)
        world.nccl = nccl.NcclCommunicator(world.size, uid, world.rank)
        import cupy
        world.nccl_stream = cupy.cuda.Stream(non_blocking=True)
    return world.nccl


def allreduce(world, buffer):
    """Start summing the device array ``buffer`` in place across the processes; returns
    the wait (a callable)."""
    import cupy
    collectives._record("nccl", buffer.size)
    nccl = _nccl()
    name = str(buffer.dtype)
    if name not in _DTYPES:
        raise TypeError(f"lamina.distribution: NCCL cannot sum dtype {name}; gradients must "
                        f"be one of {sorted(_DTYPES)}")
    comm = communicator(world)
    stream = world.nccl_stream
    ready = cupy.cuda.get_current_stream().record()
    stream.wait_event(ready)
    comm.allReduce(buffer.data.ptr, buffer.data.ptr, buffer.size, getattr(nccl, _DTYPES[name]),
                   nccl.NCCL_SUM, stream.ptr)
    done = stream.record()

    def wait():
        cupy.cuda.get_current_stream().wait_event(done)
    return wait


__all__ = ["allreduce", "communicator"]
