"""Sharded weights, Keras 3's ``save_weights("w.weights.json", max_shard_size=GB)``: the
``.weights.h5`` layout (see :mod:`.weights_h5`) cut into files ``w_00000.weights.h5``,
``w_00001.weights.h5``, ... of at most ``max_shard_size`` gigabytes of variable data each
(one variable never straddles two), beside an index ``w.weights.json``::

    {"metadata": {"total_size": <bytes>},
     "weight_map": {"/layers/dense/vars": ["w_00000.weights.h5"], ...}}

Loading reads the index, copies every shard it names (each one checked like any HDF5 file
Lamina reads, see :mod:`lamina.h5_guard`) into one file in memory and loads that as a
``.weights.h5`` file. A shard is named by a bare file name in the index's folder: a name
with a folder in it is refused, so an index cannot point at another file of the machine.
"""
from __future__ import annotations

import io
import json
import os

from ..h5_guard import check_contained
from . import archive_guard
from .atomic import atomic_image
from .errors import CorruptFileError, SavedFileNotFoundError, SavingError
from .weights_h5 import _h5py, _reading, assign_weights, read_weights, write_weights

INDEX_SUFFIX = ".weights.json"
_GB = 1024 ** 3


class ShardSizeError(SavingError):
    """One variable is bigger than ``max_shard_size``."""


def shard_base(filepath: str) -> str:
    """``.../w.weights.json`` -> ``w``: the stem every shard's name starts with."""
    return os.path.basename(filepath)[:-len(INDEX_SUFFIX)]


def write_sharded(model, filepath: str, max_shard_size, objects_to_skip=()) -> None:
    """Write ``model``'s weights as shards of at most ``max_shard_size`` GB and the index
    ``filepath``; every file is written atomically, the index last."""
    limit = float(max_shard_size) * _GB
    image = io.BytesIO()
    write_weights(model, image, objects_to_skip=objects_to_skip)
    h5py = _h5py()
    folder, base = os.path.dirname(filepath), shard_base(filepath)
    shards: list[tuple[str, io.BytesIO]] = []
    weight_map: dict[str, list] = {}
    total, size = 0, 0
    with h5py.File(image, "r") as source:
        groups = []
        source.visititems(lambda name, obj: groups.append(obj)
                          if isinstance(obj, h5py.Group) and name.split("/")[-1] == "vars"
                          else None)
        if "vars" in source:
            groups.insert(0, source["vars"])
        shard = _new_shard(h5py, shards, base)
        for group in groups:
            _copy_group_attrs(group, shard)
            for key in group:
                dataset = group[key]
                nbytes = dataset.size * dataset.dtype.itemsize
                if nbytes > limit:
                    raise ShardSizeError(
                        f"save_weights: The size of '{group.name}/{key}' is {nbytes:,} bytes "
                        f"which exceeds the maximum shard size (max_shard_size="
                        f"{max_shard_size!r} GB, {int(limit):,} bytes); increase "
                        f"max_shard_size")
                if size + nbytes > limit and size > 0:
                    shard.close()
                    shard = _new_shard(h5py, shards, base)
                    _copy_group_attrs(group, shard)
                    size = 0
                size += nbytes
                total += nbytes
                shard.copy(dataset, shard[group.name], name=key)
                names = weight_map.setdefault(group.name, [])
                if shards[-1][0] not in names:
                    names.append(shards[-1][0])
        shard.close()
    for name, data in shards:
        with atomic_image(os.path.join(folder, name), "save_weights") as out:
            out.write(data.getvalue())
    index = {"metadata": {"total_size": float(total)}, "weight_map": weight_map}
    with atomic_image(filepath, "save_weights") as out:
        out.write(json.dumps(index, indent=4).encode())


def _new_shard(h5py, shards: list, base: str):
    data = io.BytesIO()
    shards.append((f"{base}_{len(shards):05}.weights.h5", data))
    return h5py.File(data, "w")


def _copy_group_attrs(group, shard) -> None:
    """Make ``group``'s path in ``shard``, with its (and its parents') attributes."""
    target = shard.require_group(group.name)
    for key, value in group.attrs.items():
        target.attrs[key] = value


def load_sharded(model, filepath: str, skip_mismatch: bool = False,
                 objects_to_skip=()) -> None:
    """Load the weights the index ``filepath`` and its shards hold into ``model``."""
    names = _shard_names(filepath)
    folder = os.path.dirname(filepath)
    h5py = _h5py()
    merged = io.BytesIO()
    with h5py.File(merged, "w") as out:
        for name in names:
            path = os.path.join(folder, name)
            if not os.path.isfile(path):
                raise SavedFileNotFoundError(f"load_weights: '{filepath}' names the shard "
                                             f"'{name}', which is not in '{folder}'")
            with _reading(path):
                shard = h5py.File(path, "r")
            with shard:
                index = check_contained(shard, path)
                with _reading(path):
                    _merge(h5py, index, out)
    assign_weights(read_weights(model, merged, filepath, skip_mismatch, objects_to_skip))


def _merge(h5py, index, out) -> None:
    for where, obj in sorted(index.objects.items()):
        if where == "/":
            continue
        if isinstance(obj, h5py.Group):
            target = out.require_group(where)
            for key, value in obj.attrs.items():
                target.attrs[key] = value
        elif isinstance(obj, h5py.Dataset):
            parent, _, leaf = where.rpartition("/")
            target = out.require_group(parent or "/")
            if leaf in target:
                raise CorruptFileError(f"the shards hold '{where}' twice")
            out.copy(obj, target, name=leaf)


def _shard_names(filepath: str) -> list[str]:
    """The shard file names the index lists, each once, in order; checked to be bare
    ``.h5`` file names."""
    try:
        with open(filepath, "rb") as f:
            text = f.read(archive_guard.MAX_CONFIG_BYTES + 1)
        index = json.loads(text) if len(text) <= archive_guard.MAX_CONFIG_BYTES else None
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise CorruptFileError(f"load_weights: '{filepath}' is not a readable sharded-weights "
                               f"index ({type(exc).__name__}: {exc})") from None
    weight_map = index.get("weight_map") if isinstance(index, dict) else None
    if not isinstance(weight_map, dict):
        raise CorruptFileError(f"load_weights: '{filepath}' should be a JSON object with a "
                               f"'weight_map' of group -> shard file names")
    names: list[str] = []
    for files in weight_map.values():
        for name in files if isinstance(files, list) else [files]:
            if not isinstance(name, str) or os.path.basename(name) != name or \
                    name in ("", ".", "..") or "\\" in name or not name.endswith(".h5"):
                raise CorruptFileError(f"load_weights: '{filepath}' names the shard "
                                       f"{name!r}; a shard must be a .h5 file name in the "
                                       f"index's folder")
            if name not in names:
                names.append(name)
    return names
