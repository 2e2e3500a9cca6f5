"""``describe(path)``: what a saved model file holds, read without building the model.

Only the file is read: the config as JSON and the weights' shapes with h5py. No layer is
created and no class is looked up, so a file whose custom classes are not registered, or
that this version of Lamina cannot rebuild, can still be inspected. Works for ``.keras``
archives (zip or folder), ``.weights.h5`` files and legacy HDF5 ``.h5`` files (Keras 2 and
Keras 3). ``python -m lamina.saving PATH`` prints the same.
"""
from __future__ import annotations

import io
import os
import re
from dataclasses import dataclass, field

import numpy as np

from ..h5_guard import H5FileError, check_contained, read_dataset
from . import archive_guard
from .describe_config import LayerRow, compile_details, config_rows, model_label
from .errors import CorruptFileError, FileFormatError, SavedFileNotFoundError, SavingError
from .keras_archive import METADATA, WEIGHTS, read_config, read_entry


@dataclass
class Description:
    """What :func:`describe` found; ``str()`` gives the printed summary."""
    path: str
    kind: str                                  # ".keras", ".weights.h5" or "legacy .h5"
    model: str | None = None                   # "Sequential 'vgg'"
    details: list[str] = field(default_factory=list)
    layers: list[LayerRow] = field(default_factory=list)
    weights: dict[str, tuple] = field(default_factory=dict)   # path -> (shape, dtype)

    @property
    def total_params(self) -> int:
        """The model's weights (the optimizer's state is not counted)."""
        return sum(row.params or 0 for row in self.layers if row.depth == 0)

    def __str__(self) -> str:
        lines = [f"File: {self.path} ({self.kind})", *self.details]
        if self.model:
            lines.append(f"Model: {self.model}")
        if self.layers:
            first = "Layer (type)" if self.model else "Layer (weights path)"
            lines += [f"{first:<45}{'Output Shape':<25}{'Param #':>10}", "-" * 80]
            for row in self.layers:
                label = f"{'  ' * row.depth}{row.name} ({row.class_name})"
                params = "?" if row.params is None else f"{row.params:,}"
                lines.append(f"{label:<44} {row.output_shape:<24} {params:>10}")
            lines += ["-" * 80, f"Total params: {self.total_params:,}"]
        lines.append(f"Weights ({len(self.weights)} arrays):")
        lines += [f"  {path}  {tuple(shape)} {dtype}"
                  for path, (shape, dtype) in self.weights.items()]
        return "\n".join(lines)

    def __repr__(self) -> str:
        return (f"<Description of {self.path!r}: {self.model or self.kind}, "
                f"{len(self.layers)} layers, {len(self.weights)} weight arrays>")


def describe(filepath, print_fn=print) -> Description:
    """Print (with ``print_fn``; None prints nothing) and return the summary of a saved
    ``.keras``, ``.weights.h5`` or legacy ``.h5`` file: layer names, classes, the output
    shapes the file records, parameter counts, and every weight array's shape."""
    path = os.fspath(filepath)
    if not os.path.exists(path):
        raise SavedFileNotFoundError(f"describe: no file or folder at '{path}'")
    if path.endswith(".keras") or os.path.isdir(path):
        read = _describe_archive
    elif path.endswith(".weights.h5"):
        read = _describe_weights
    elif path.endswith((".h5", ".hdf5")):
        read = _describe_legacy
    else:
        raise FileFormatError(f"describe: '{path}' is not a model file Lamina knows: expected "
                              f"'.keras', '.weights.h5' or a legacy '.h5'/'.hdf5'")
    try:
        result = read(path)
    except (SavingError, H5FileError):
        raise
    except Exception as exc:         # h5py's KeyError/OSError/... from a damaged file
        raise CorruptFileError(f"describe: cannot read '{path}': {type(exc).__name__}: "
                               f"{exc}") from None
    if print_fn is not None:
        print_fn(str(result))
    return result


# ------------------------------------------------------------------------------ readers
def _describe_archive(path: str) -> Description:
    result = Description(path, ".keras")
    metadata = _json(read_entry(path, METADATA), path, METADATA)
    lamina = metadata.get("lamina_version")
    result.details.append(f"Saved by Keras {metadata.get('keras_version', '?')}"
                          + (f" (Lamina {lamina})" if lamina else "")
                          + f" on {metadata.get('date_saved', '?')}")
    config = read_config(path)
    result.details += compile_details(config.get("compile_config"))
    with _open_h5(io.BytesIO(read_entry(path, WEIGHTS)), f"{path}/{WEIGHTS}") as f:
        result.weights = _datasets(f)
        result.details += _optimizer_details(f, path)
        result.model = model_label(config)
        result.layers = (config_rows(config, lambda key: _size(result.weights, key + "/"))
                         or _object_rows(f, result.weights))     # a subclassed model
    return result


def _describe_weights(path: str) -> Description:
    result = Description(path, ".weights.h5")
    with _open_h5(path, path) as f:
        result.weights = _datasets(f)
        result.details += _optimizer_details(f, path)
        if "training_state" in f:
            result.details.append("Training state: BackupAndRestore's (epoch, step, random "
                                  "generators, callbacks)")
        result.layers = _object_rows(f, result.weights)
    return result


def _object_rows(f, weights: dict) -> list[LayerRow]:
    """Without a usable config: one row per object that owns variables, by its path, with
    the name Keras 3.15+ and Lamina record on its ``vars`` group."""
    groups, rows = [], []
    f.visit(lambda name: groups.append(name) if name.split("/")[-1] == "vars" else None)
    for name in groups:
        owner = name[:-len("/vars")] if "/" in name else "(the model itself)"
        if owner.startswith("optimizer") or not len(f[name]):
            continue
        label = _text(f[name].attrs.get("name", owner.split("/")[-1]))
        rows.append(LayerRow(label, owner, "?", _size(weights, name + "/")))
    return rows


def _describe_legacy(path: str) -> Description:
    result = Description(path, "legacy .h5")
    with _open_h5(path, path) as f:
        group = f["model_weights"] if "model_weights" in f else f
        result.details.append(f"Saved by Keras {_text(f.attrs.get('keras_version', '?'))} "
                              f"(backend {_text(f.attrs.get('backend', '?'))})")
        names = _attr_list(group.attrs, "layer_names")
        for layer in names:
            for weight in _attr_list(group[layer].attrs, "weight_names"):
                data = group[layer][weight]
                result.weights[f"{layer}/{weight}"] = (data.shape, data.dtype.name)
        if "training_config" in f.attrs:
            training = _json(f.attrs["training_config"], path, "training_config")
            result.details += compile_details(dict(training, optimizer=training.get(
                "optimizer_config")))
        if "optimizer_weights" in f:
            count = len(_attr_list(f["optimizer_weights"].attrs, "weight_names"))
            result.details.append(f"Optimizer state: {count} variables")
        if "model_config" not in f.attrs:          # a weights-only file (save_weights)
            result.layers = [LayerRow(name, "?", "?", _size(result.weights, name + "/"))
                             for name in names]
            return result
        config = _json(f.attrs["model_config"], path, "model_config")
    result.model = model_label(config)

    def params(key: str) -> int:
        # key is "layer" or "outer/inner" for a nested model's layer, whose weights are
        # stored in the outer layer's group under names that contain "inner".
        outer, *inner = key.split("/")
        if not inner:
            return _size(result.weights, outer + "/")
        return sum(int(np.prod(shape)) for name, (shape, _) in result.weights.items()
                   if name.startswith(outer + "/") and inner[-1] in name.split("/")[1:-1])
    result.layers = config_rows(config, params, legacy=True)
    return result


# ------------------------------------------------------------------------------ helpers
def _open_h5(source, path: str):
    import h5py      # loaded on use: import lamina does not load it
    try:
        f = h5py.File(source, "r")
    except Exception as exc:          # OSError from h5py for empty, truncated, not-HDF5
        raise CorruptFileError(f"describe: cannot read '{path}' as HDF5 ({exc}); the file "
                               f"is empty, truncated or of another format") from None
    try:
        check_contained(f, path)      # nothing is read from another file, not even a count
    except BaseException:
        f.close()
        raise
    return f


def _json(raw, path: str, what: str) -> dict:
    try:
        value = archive_guard.loads(_text(raw), path, what)
    except (TypeError, ValueError) as exc:
        raise CorruptFileError(f"describe: '{path}': {what} is not valid JSON ({exc})") \
            from None
    if not isinstance(value, dict):
        raise CorruptFileError(f"describe: '{path}': {what} should be a JSON object; found "
                               f"{str(value)[:80]!r}")
    return value


def _text(value) -> str:
    return value.decode("utf-8") if isinstance(value, (bytes, np.bytes_)) else str(value)


def _attr_list(attrs, name: str) -> list[str]:
    """A list attribute, also when HDF5 split it into ``name0``, ``name1``, ... chunks."""
    if name in attrs:
        values = list(attrs[name])
    else:
        values, i = [], 0
        while f"{name}{i}" in attrs:
            values += list(attrs[f"{name}{i}"])
            i += 1
    return [_text(v) for v in values]


def _natural(path: str) -> list:
    return [int(part) if part.isdigit() else part for part in re.split(r"(\d+)", path)]


def _datasets(f) -> dict:
    import h5py      # loaded on use: import lamina does not load it
    found = {}
    f.visititems(lambda name, obj: found.__setitem__(name, (obj.shape, obj.dtype.name))
                 if isinstance(obj, h5py.Dataset) else None)
    return {name: found[name] for name in sorted(found, key=_natural)}


def _size(weights: dict, prefix: str) -> int:
    return sum(int(np.prod(shape)) for name, (shape, _) in weights.items()
               if name.startswith(prefix))


def _optimizer_details(f, path: str) -> list[str]:
    import h5py      # loaded on use: import lamina does not load it
    group = f.get("optimizer/vars")
    if not isinstance(group, h5py.Group) or not len(group):
        return []
    first = group.get("0")
    steps = (f", iterations {int(read_dataset(first, path))}" if isinstance(first, h5py.Dataset)
             and first.shape == () and first.dtype.kind in "iu" else "")
    return [f"Optimizer state: {len(group)} variables{steps}"]
