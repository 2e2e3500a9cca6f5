"""Keras 3's distributions: ``DataParallel`` (trains), ``ModelParallel`` (constructs; training
with it is not supported yet), and the global ``distribution()`` / ``set_distribution()``.

Under ``DataParallel`` every process runs the same script on the same arrays; ``fit``,
``evaluate`` and ``predict`` split each global batch by rows across the processes
(``lamina.distribution.steps``) and the optimizer sums the gradients weighted by each
process's rows (``lamina.distribution.gradients``), so training equals one process.
"""
from __future__ import annotations

import contextlib

from .. import ops
from ..core.variable import Variable
from ..backend.collectives import shard_bounds
from ..core import structure
from ..core.ignored_arguments import warn_ignored
from .devices import list_devices
from .launch import root_hint
from .layouts import DeviceMesh, LayoutMap, TensorLayout, _flatten
from .world import rank, size, world

DEFAULT_BATCH_DIM_NAME = "batch"
DEFAULT_BUCKET_BYTES = 25 * 2 ** 20       # gradients are exchanged in buckets of ~25 MiB

_CURRENT = None


def is_chief() -> bool:
    """False on the processes other than 0 while a distribution is set: process 0 alone
    writes files and shows progress (without a distribution every process is on its own)."""
    if world().rank == 0:
        return True
    return distribution() is None


class Distribution:
    """Base class: a device mesh, the batch axis and whether datasets are split."""

    def __init__(self, device_mesh, batch_dim_name=None, auto_shard_dataset=True):
        self._device_mesh = device_mesh
        self._batch_dim_name = batch_dim_name
        self._auto_shard_dataset = bool(auto_shard_dataset)

    @property
    def device_mesh(self):
        return self._device_mesh

    @property
    def batch_dim_name(self):
        return self._batch_dim_name

    @property
    def auto_shard_dataset(self) -> bool:
        return self._auto_shard_dataset

    @auto_shard_dataset.setter
    def auto_shard_dataset(self, value) -> None:
        self._auto_shard_dataset = bool(value)

    @property
    def num_processes(self) -> int:
        return size()

    @contextlib.contextmanager
    def scope(self):
        """Make this the distribution inside a ``with`` block."""
        previous = distribution()
        set_distribution(self)
        try:
            yield
        finally:
            set_distribution(previous)

    def get_data_layout(self, data_shape):
        axes = [None] * len(data_shape)
        axes[0] = self.batch_dim_name
        return TensorLayout(axes, self.device_mesh)

    def get_variable_layout(self, variable):
        layout = getattr(variable, "_layout", None)
        return layout if layout is not None else \
            TensorLayout([None] * len(variable.shape), self.device_mesh)

    def get_tensor_layout(self, path):
        return None

    def __repr__(self) -> str:
        return f"<{type(self).__name__} device_mesh={self.device_mesh}>"


class DataParallel(Distribution):
    """Replicate the model on every process and split each batch by rows across them.

    Lamina runs one process per device (``mpirun -n N``, then
    ``lamina.distribution.initialize()``); each process holds the whole model, trains on its
    share of the batch, and the gradients are averaged across processes.
    ``bucket_bytes`` (an attribute, default 25 MiB) sizes the gradient buckets.

    Args:
        device_mesh: An optional ``DeviceMesh``; it must have as many devices as there are
            processes, and its first axis is the batch axis.
        devices: An optional list of devices, used when ``device_mesh`` is ``None``; both
            default to one device per process (``list_devices()``).
        auto_shard_dataset: If ``True`` (default), every process feeds the same data and
            takes its rows of each batch; ``False`` means each process already feeds its
            own part of the data: its batches are used whole and the global batch is their
            union.

    Raises:
        ValueError: If ``device_mesh`` is not a ``DeviceMesh``, or the number of devices
            differs from the number of processes.

    Example:

    >>> lamina.distribution.initialize()            # under mpirun -n 2
    >>> lamina.distribution.set_distribution(lamina.distribution.DataParallel())
    >>> model.fit(x, y, batch_size=64)              # 32 rows per process
    """

    def __init__(self, device_mesh=None, devices=None, auto_shard_dataset=True):
        if device_mesh is not None:
            if not isinstance(device_mesh, DeviceMesh):
                raise ValueError(f"DataParallel: argument 'device_mesh' must be a DeviceMesh; "
                                 f"received {device_mesh!r} of type "
                                 f"{type(device_mesh).__name__}")
            mesh, batch_dim = device_mesh, device_mesh.axis_names[0]
        else:
            if devices is not None and len(devices):
                flat = _flatten(devices)
            else:
                flat = list_devices()
            mesh = DeviceMesh((len(flat),), [DEFAULT_BATCH_DIM_NAME], flat)
            batch_dim = DEFAULT_BATCH_DIM_NAME
        if mesh.size != size():
            hint = root_hint()
            raise ValueError(f"DataParallel: the mesh has {mesh.size} devices but the world "
                             f"has {size()} processes; Lamina runs one process per device "
                             f"(start them with mpirun -n {mesh.size} and call "
                             f"lamina.distribution.initialize())" +
                             (f"; {hint}" if hint else ""))
        super().__init__(mesh, batch_dim, auto_shard_dataset)
        self.bucket_bytes = DEFAULT_BUCKET_BYTES
        self._share = self._offset = None

    @property
    def num_model_replicas(self) -> int:
        return self.device_mesh.size

    def offset_variable(self):
        """An int64 scalar Variable: the global position of this process's first row in
        the batch of the running step (random layers draw by it)."""
        if self._offset is None:
            self._offset = Variable(0, dtype="int64", trainable=False,
                                    name="data_parallel_offset")
        return self._offset

    def share_variable(self):
        """A float64 scalar Variable: this process's rows / the global batch's rows, set
        before every train step and read by the gradient exchange (in graphs too)."""
        if self._share is None:
            self._share = Variable(1.0, dtype="float64", trainable=False,
                                   name="data_parallel_share")
        return self._share


class ModelParallel(Distribution):
    """Split variables across devices by a ``LayoutMap`` (Keras 3's ``ModelParallel``).

    It constructs and validates, but Lamina cannot train with sharded variables yet:
    ``fit`` / ``evaluate`` / ``predict`` under it raise ``NotImplementedError``; use
    ``DataParallel``.

    Args:
        layout_map: A ``LayoutMap`` (required); its mesh is the distribution's mesh.
        batch_dim_name: The mesh axis that splits the batch; ``None`` (default) takes the
            mesh's first axis.
        auto_shard_dataset: If ``True`` (default), each process takes its rows of every
            batch.
        **kwargs: Only ``device_mesh``, Keras's older argument, which has no effect (a warning
            says so once): the mesh always comes from
            ``layout_map``. Anything else raises ``TypeError``.

    Raises:
        ValueError: If ``layout_map`` is missing or not a ``LayoutMap``.

    Example:

    >>> mesh = DeviceMesh((1, 2), ["batch", "model"], ["cpu:0", "cpu:1"])
    >>> layout_map = LayoutMap(mesh)
    >>> layout_map["dense.*kernel"] = (None, "model")
    >>> distribution = ModelParallel(layout_map=layout_map, batch_dim_name="batch")
    """

    def __init__(self, *, layout_map=None, batch_dim_name=None, auto_shard_dataset=True,
                 **kwargs):
        device_mesh = kwargs.pop("device_mesh", None)
        if kwargs:
            raise TypeError(f"ModelParallel: unrecognized keyword argument(s) "
                            f"{sorted(kwargs)}")
        if layout_map is None:
            raise ValueError("ModelParallel: argument 'layout_map' is required (a LayoutMap)")
        if not isinstance(layout_map, LayoutMap):
            raise ValueError(f"ModelParallel: argument 'layout_map' must be a LayoutMap; "
                             f"received {type(layout_map).__name__}")
        mesh = layout_map.device_mesh
        if device_mesh is not None and device_mesh is not mesh:
            warn_ignored("ModelParallel", "device_mesh", device_mesh,
                         "the mesh is the layout_map's (Keras's older argument)")
        super().__init__(mesh, batch_dim_name or mesh.axis_names[0], auto_shard_dataset)
        self._layout_map = layout_map

    @property
    def num_model_replicas(self) -> int:
        return self.device_mesh.shape[self.device_mesh.axis_names.index(self.batch_dim_name)]


def not_supported(what: str) -> NotImplementedError:
    return NotImplementedError(
        f"{what}: training or running a model under ModelParallel (sharded variables) is not "
        f"supported yet in Lamina; use lamina.distribution.DataParallel() (every process "
        f"holds the whole model and a share of each batch)")


def distribution():
    """The distribution set by ``set_distribution`` (None when there is none)."""
    return _CURRENT


def set_distribution(value) -> None:
    """Make a distribution the global one, used by every model's ``fit``/``evaluate``/``predict``.

    Args:
        value: A ``Distribution`` (such as ``DataParallel()``), or ``None`` to train
            on this process alone.

    Raises:
        ValueError: If ``value`` is neither a ``Distribution`` nor ``None``.

    Example:

    >>> lamina.distribution.set_distribution(lamina.distribution.DataParallel())
    """
    global _CURRENT
    if value is not None and not isinstance(value, Distribution):
        raise ValueError(f"set_distribution: argument 'value' must be a Distribution "
                         f"(DataParallel) or None; received {type(value).__name__}")
    _CURRENT = value
    structure.changed()          # compiled steps must re-trace with (or without) the exchange


def data_parallel():
    """The active DataParallel, or None; ModelParallel raises (it cannot train yet)."""
    current = _CURRENT
    if current is None or isinstance(current, DataParallel):
        return current
    raise not_supported(type(current).__name__)


def distribute_tensor(tensor, layout):
    """Return this process's part of a tensor under a layout.

    Args:
        tensor: The whole tensor, the same on every process.
        layout: A ``TensorLayout`` or a tuple of axis names. Only the first axis may be
            split (the batch axis of a data-parallel mesh).

    Returns:
        The rows of this process's share when the first axis is split, else the tensor
        itself (replicated).

    Raises:
        NotImplementedError: If the layout splits a dimension other than the first.

    Example:

    >>> x = lamina.ops.ones((8, 3))
    >>> distribute_tensor(x, TensorLayout(("batch", None))).shape   # 2 processes
    (4, 3)
    """
    axes = layout.axes if isinstance(layout, TensorLayout) else tuple(layout)
    if any(a is not None for a in axes[1:]):
        raise not_supported("distribute_tensor (a layout that splits a non-batch axis)")
    if not axes or axes[0] is None:
        return tensor
    lo, hi = shard_bounds(int(tensor.shape[0]), rank(), size())
    return ops.convert_to_tensor(tensor)[lo:hi]


__all__ = ["Distribution", "DataParallel", "ModelParallel", "distribution",
           "set_distribution", "distribute_tensor", "data_parallel"]
