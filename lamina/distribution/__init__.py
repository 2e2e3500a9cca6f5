"""``lamina.distribution``: data-parallel training over MPI processes (Keras 3's
``keras.distribution`` names).

    import lamina as keras
    keras.distribution.initialize()        # under mpirun -n N: joins the MPI world
    keras.distribution.set_distribution(keras.distribution.DataParallel())
    model.fit(x, y, batch_size=256)        # 256 rows per step in all, split over N processes

Every process runs the same script on the same arrays; the result equals one process's
``fit`` with the same global batch. See docs/distributed.md.

Files: ``world`` (the MPI communicator), ``devices`` (list_devices), ``layouts`` (mesh and
layout objects), ``strategies`` (DataParallel, ModelParallel, the global distribution),
``steps`` (splitting batches, logs), ``gradients`` (buckets and the allreduce),
``metric_state`` (metric states summed), ``sync`` / ``consistency`` (start of fit),
``faults`` (a failed process ends the job).
"""
from .devices import get_device_count, list_devices
from .layouts import DeviceMesh, LayoutMap, TensorLayout
from .strategies import (DataParallel, ModelParallel, distribute_tensor, distribution,
                         set_distribution)
from .world import initialize
from . import collective_ops as _collective_ops  # registers allreduce_start and _wait

__all__ = ["DataParallel", "DeviceMesh", "LayoutMap", "ModelParallel", "TensorLayout",
           "distribute_tensor", "distribution", "get_device_count", "initialize",
           "list_devices", "set_distribution"]
