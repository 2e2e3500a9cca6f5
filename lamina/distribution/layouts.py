"""Keras 3's mesh and layout objects: ``DeviceMesh``, ``TensorLayout``, ``LayoutMap``.

Lamina runs one process per device, so a mesh's devices are the processes' devices
(``"cpu:0"``, ``"cpu:1"``, ... or ``"gpu:<rank>"``); data parallelism uses its one axis.
"""
from __future__ import annotations

import math
import re
from collections.abc import MutableMapping

from .devices import list_devices


def _flatten(devices) -> list:
    if isinstance(devices, (list, tuple)):
        return [d for item in devices for d in _flatten(item)]
    if hasattr(devices, "tolist"):
        return _flatten(devices.tolist())
    return [devices]


def _reshape(flat: list, shape: tuple):
    if len(shape) <= 1:
        return list(flat)
    step = len(flat) // shape[0]
    return [_reshape(flat[i * step:(i + 1) * step], shape[1:]) for i in range(shape[0])]


class DeviceMesh:
    """Devices arranged in a grid with named axes (Keras 3's ``DeviceMesh``).

    Args:
        shape: The grid's shape, a tuple of ints, such as ``(2, 4)``.
        axis_names: One name per axis of ``shape``, such as ``["batch", "model"]``.
        devices: The devices, a flat or nested list of ``prod(shape)`` of them;
            ``None`` (default) takes ``list_devices()``.

    Raises:
        ValueError: If ``shape`` or ``axis_names`` is empty, their lengths differ, or the
            number of devices does not fill ``shape``.

    Example:

    >>> mesh = DeviceMesh((2,), ["batch"], devices=["cpu:0", "cpu:1"])
    >>> mesh.devices
    ['cpu:0', 'cpu:1']
    """

    def __init__(self, shape, axis_names, devices=None):
        if not shape or not axis_names:
            raise ValueError(f"DeviceMesh: arguments 'shape' and 'axis_names' must not be "
                             f"empty; received shape={shape}, axis_names={axis_names}")
        if len(shape) != len(axis_names):
            raise ValueError(f"DeviceMesh: 'shape' and 'axis_names' must have the same "
                             f"length; received shape={shape}, axis_names={axis_names}")
        flat = _flatten(list_devices() if devices is None else devices)
        if math.prod(shape) != len(flat):
            raise ValueError(f"DeviceMesh: shape {tuple(shape)} holds {math.prod(shape)} "
                             f"devices but {len(flat)} were given ({flat})")
        self._shape = tuple(shape)
        self._axis_names = list(axis_names)
        self._devices = _reshape(flat, self._shape)

    @property
    def shape(self):
        return self._shape

    @property
    def axis_names(self):
        return self._axis_names

    @property
    def devices(self):
        """The devices as nested lists of the mesh's shape."""
        return self._devices

    @property
    def size(self) -> int:
        return math.prod(self._shape)

    def __repr__(self) -> str:
        return f"<DeviceMesh shape={self.shape}, axis_names={self.axis_names}>"


class TensorLayout:
    """Which mesh axis each dimension of a tensor is split along.

    Args:
        axes: One entry per dimension of the tensor: the name of a mesh axis to split it
            along, or ``None`` to replicate it.
        device_mesh: The ``DeviceMesh`` the names refer to; ``None`` (default) leaves it to
            be set once later (a ``LayoutMap`` sets its own).

    Raises:
        ValueError: If an axis name is not an axis of ``device_mesh``.

    Example:

    >>> layout = TensorLayout(("batch", None))
    >>> layout.axes
    ('batch', None)
    """

    def __init__(self, axes, device_mesh=None):
        self._axes = tuple(axes)
        self._device_mesh = device_mesh
        self._validate_axes()

    @property
    def axes(self):
        return self._axes

    @property
    def device_mesh(self):
        return self._device_mesh

    @device_mesh.setter
    def device_mesh(self, device_mesh):
        if self._device_mesh is not None:
            raise ValueError(f"TensorLayout: the device mesh is already set to "
                             f"{self._device_mesh}; it cannot be replaced")
        self._device_mesh = device_mesh
        self._validate_axes()

    def _validate_axes(self) -> None:
        if self._device_mesh is None:
            return
        unknown = set(self._axes) - {None} - set(self._device_mesh.axis_names)
        if unknown:
            raise ValueError(f"TensorLayout: axes {sorted(unknown)} are not axes of the "
                             f"mesh (its axis names are {self._device_mesh.axis_names})")

    def __repr__(self) -> str:
        return f"<TensorLayout axes={self.axes}, device_mesh={self.device_mesh}>"


class LayoutMap(MutableMapping):
    """A dict from variable-path regexes to ``TensorLayout`` (Keras 3's ``LayoutMap``).

    Looking a variable path up returns the layout of the one key that matches it
    (``re.search``), or ``None``; a value given as a tuple of axis names becomes a
    ``TensorLayout`` on the map's mesh. Lamina builds it for ``ModelParallel``, which cannot
    train yet.

    Args:
        device_mesh: The ``DeviceMesh`` the layouts refer to.

    Example:

    >>> layout_map = LayoutMap(DeviceMesh((2,), ["model"], ["cpu:0", "cpu:1"]))
    >>> layout_map["dense.*kernel"] = (None, "model")
    >>> layout_map["dense/kernel"].axes
    (None, 'model')
    """

    def __init__(self, device_mesh):
        self._layout_map: dict = {}
        self._device_mesh = device_mesh

    def __getitem__(self, key):
        if key in self._layout_map:
            return self._layout_map[key]
        matches = [k for k in self._layout_map if re.search(k, key)]
        if len(matches) > 1:
            raise ValueError(f"LayoutMap: path {key!r} matches several keys {matches}; "
                             f"make the regexes unambiguous")
        return self._layout_map[matches[0]] if matches else None

    def __setitem__(self, key, layout):
        if key in self._layout_map:
            raise ValueError(f"LayoutMap: key {key!r} already has the layout "
                             f"{self._layout_map[key]}; delete it first")
        if isinstance(layout, (tuple, list)):
            layout = TensorLayout(layout)
        if not isinstance(layout, TensorLayout):
            raise ValueError(f"LayoutMap: a value must be a TensorLayout or a tuple of axis "
                             f"names; received {layout!r}")
        if layout.device_mesh is None:
            layout.device_mesh = self._device_mesh
        self._layout_map[key] = layout

    def __delitem__(self, key):
        return self._layout_map.pop(key)

    def __len__(self):
        return len(self._layout_map)

    def __iter__(self):
        return iter(self._layout_map)

    @property
    def device_mesh(self):
        return self._device_mesh


__all__ = ["DeviceMesh", "TensorLayout", "LayoutMap"]
