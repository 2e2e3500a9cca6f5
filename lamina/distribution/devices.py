"""``list_devices`` / ``get_device_count``: one device per process of the MPI world."""
from __future__ import annotations

from ..backend import get_backend
from .world import size

_TYPES = ("cpu", "gpu")


def _device_type(device_type) -> str:
    if device_type is None:
        return "cpu" if get_backend().host_arrays else "gpu"
    kind = str(device_type).lower()
    if kind not in _TYPES:
        raise ValueError(f"lamina.distribution: argument 'device_type' must be None, 'cpu' "
                         f"or 'gpu'; received {device_type!r}")
    return kind


def list_devices(device_type=None) -> list:
    """List the devices of the process world.

    Lamina runs one process per device, so there is one device per process.

    Args:
        device_type: ``"cpu"``, ``"gpu"`` or ``None`` (default): the active backend's
            kind.

    Returns:
        A list of device names, such as ``["cpu:0", "cpu:1"]``.

    Raises:
        ValueError: If ``device_type`` is not one of the values above.

    Example:

    >>> lamina.distribution.list_devices("cpu")     # a one-process run
    ['cpu:0']
    """
    kind = _device_type(device_type)
    return [f"{kind}:{i}" for i in range(size())]


def get_device_count(device_type=None) -> int:
    """The number of devices of the process world.

    Args:
        device_type: ``"cpu"``, ``"gpu"`` or None (the default kind).

    Returns:
        An int.
    """
    return len(list_devices(device_type))


__all__ = ["list_devices", "get_device_count"]
