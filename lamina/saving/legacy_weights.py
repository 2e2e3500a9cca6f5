"""Which saved arrays of a legacy HDF5 file go into which of a model's weights.

A legacy file keeps one group per layer, listed in the ``layer_names`` attribute, each
with a ``weight_names`` attribute in Keras's order for that layer: its trainable weights,
then its non-trainable ones (BatchNormalization: gamma, beta, moving_mean,
moving_variance; GRU: ``gru_cell/kernel``, ``recurrent_kernel``, ``bias``). Layers are
paired as Keras pairs them: in order, among the layers that have weights (topological,
the default), or by layer name (``by_name=True``). Within a pair, weights whose names
match one to one (``gru_cell/kernel`` in both) are paired by name, else by position.

Nothing here assigns anything: the functions return ``[(variable, array), ...]`` plans
and a :class:`LoadReport`, so that a failure leaves the model as it was.
"""
from __future__ import annotations

import dataclasses
import warnings

import numpy as np

from ..errors import describe_shape
from ..h5_guard import read_dataset
from .errors import CorruptFileError, WeightMismatchError
from .legacy_config import text
from ..traceback_filter import user_stacklevel

_NUMERIC_KINDS = "biuf"
_HEADER_LIMIT = 64512          # bytes an HDF5 attribute may hold; longer lists are chunked


@dataclasses.dataclass
class LoadReport:
    """What ``load_weights`` did with a legacy ``.h5`` file, layer by layer."""
    filepath: str
    by_name: bool
    matched: list = dataclasses.field(default_factory=list)   # (model layer, file layer)
    skipped: list = dataclasses.field(default_factory=list)   # (model layer, why)
    unused: list = dataclasses.field(default_factory=list)    # file layers left unread

    def __str__(self) -> str:
        how = "by layer name" if self.by_name else "in topological order"
        lines = [f"load_weights('{self.filepath}') {how}: {len(self.matched)} layer(s) "
                 f"loaded, {len(self.skipped)} skipped, {len(self.unused)} file layer(s) "
                 f"unused"]
        lines += [f"  loaded  {mine} <- {theirs}" for mine, theirs in self.matched]
        lines += [f"  skipped {mine}: {why}" for mine, why in self.skipped]
        lines += [f"  unused  {theirs} (in the file, not in the model)"
                  for theirs in self.unused]
        return "\n".join(lines)


def names_attribute(group, key: str) -> list[str]:
    """A list-of-names attribute; Keras splits long ones into ``key0``, ``key1``, ..."""
    if key in group.attrs:
        values = list(group.attrs[key])
    else:
        values, chunk = [], 0
        while f"{key}{chunk}" in group.attrs:
            values.extend(group.attrs[f"{key}{chunk}"])
            chunk += 1
    return [text(value) for value in values]       # an empty list reads back as float64


def write_names(group, key: str, names: list) -> None:
    """Keras's ``save_attributes_to_hdf5_group``: chunked past the HDF5 header limit."""
    data = np.asarray([name.encode("utf-8") for name in names])
    chunks = 1
    while any(part.nbytes > _HEADER_LIMIT for part in np.array_split(data, chunks)):
        chunks += 1
    if chunks == 1:
        group.attrs[key] = data
        return
    for i, part in enumerate(np.array_split(data, chunks)):
        group.attrs[f"{key}{i}"] = part


def legacy_weights(layer) -> list:
    """A layer's weights in the order legacy files list them (Keras's ``_legacy_weights``)."""
    return list(layer.trainable_weights) + list(layer.non_trainable_weights)


def saved_layers(group, filepath: str) -> list[tuple[str, list]]:
    """``[(layer name, [(weight name, dataset), ...]), ...]`` in ``layer_names`` order."""
    layers = []
    for name in names_attribute(group, "layer_names"):
        layer_group = group.get(name)
        if layer_group is None or not hasattr(layer_group, "attrs"):
            raise CorruptFileError(f"'{filepath}': layer_names lists '{name}' but the file "
                                   f"has no group '{group.name.rstrip('/')}/{name}'")
        weights = []
        for weight in names_attribute(layer_group, "weight_names"):
            dataset = layer_group.get(weight)
            if dataset is None or not hasattr(dataset, "dtype"):
                raise CorruptFileError(f"'{filepath}': layer '{name}' lists weight "
                                       f"'{weight}' but the file has no such dataset")
            if dataset.dtype.kind not in _NUMERIC_KINDS:
                raise CorruptFileError(f"'{filepath}': weight '{weight}' of layer '{name}' "
                                       f"holds {dataset.dtype} values; expected numbers")
            weights.append((weight, dataset))
        layers.append((name, weights))
    return layers


def _path(variable) -> str:
    return str(getattr(variable, "path", None) or variable.name)


def _relative(name: str, layer_name: str) -> str:
    """``sequential/dense/kernel:0`` -> ``kernel`` for layer ``dense``."""
    parts = name.split(":")[0].split("/")
    return "/".join(parts[parts.index(layer_name) + 1:]) if layer_name in parts[:-1] \
        else "/".join(parts)


def _ordered(layer, file_layer: str, saved: list) -> list:
    """The saved weights in the order of ``legacy_weights(layer)``: by name when every
    weight finds exactly one saved weight of the same name, else as stored."""
    mine = [_relative(_path(v), layer.name) for v in legacy_weights(layer)]
    theirs = [_relative(name, file_layer) for name, _ in saved]
    if len(set(mine)) == len(mine) == len(set(theirs)) and set(mine) == set(theirs):
        by_name = dict(zip(theirs, saved))
        return [by_name[name] for name in mine]
    return saved


def plan_layer(layer, file_layer: str, saved: list, filepath: str) -> list | str:
    """``[(variable, array), ...]`` for one layer, or the reason it does not fit."""
    variables = legacy_weights(layer)
    if len(saved) != len(variables):
        return (f"layer '{layer.name}' has {len(variables)} weights "
                f"{[_path(v) for v in variables]}; the file's layer '{file_layer}' has "
                f"{len(saved)} {[name for name, _ in saved]}")
    plan = []
    for variable, (name, dataset) in zip(variables, _ordered(layer, file_layer, saved)):
        if tuple(dataset.shape) != tuple(variable.shape):
            return (f"layer '{layer.name}', weight '{_path(variable)}': expected shape "
                    f"{describe_shape(variable.shape)}, found {describe_shape(dataset.shape)} "
                    f"('{name}' of the file's layer '{file_layer}')")
        array = np.asarray(read_dataset(dataset, filepath))
        plan.append((variable, array.astype(variable.dtype, copy=False)))
    return plan


def plan_model(model, group, filepath: str, by_name: bool = False,
               skip_mismatch: bool = False) -> tuple[list, LoadReport]:
    """The plan and report for loading ``group`` (``model_weights`` or a weights-only
    file's root) into ``model``'s layers."""
    report = LoadReport(filepath, by_name)
    stored = [(name, weights) for name, weights in saved_layers(group, filepath) if weights]
    layers = [layer for layer in model.layers if legacy_weights(layer)]
    if by_name:
        by_layer = dict(stored)
        pairs = [(layer, layer.name) for layer in layers if layer.name in by_layer]
        report.skipped += [(layer.name, "no layer of that name in the file")
                           for layer in layers if layer.name not in by_layer]
        used = {name for _, name in pairs}
        report.unused += [name for name, _ in stored if name not in used]
    else:
        if len(stored) != len(layers):
            raise WeightMismatchError(
                f"cannot load '{filepath}': layer count mismatch: the file holds weights for "
                f"{len(stored)} layers {[name for name, _ in stored]}, model "
                f"'{model.name}' has {len(layers)} layers with weights "
                f"{[layer.name for layer in layers]}. Loading is by position unless "
                f"by_name=True (which pairs layers by name)")
        by_layer = dict(stored)
        pairs = [(layer, name) for layer, (name, _) in zip(layers, stored)]
    plan = []
    for layer, file_layer in pairs:
        result = plan_layer(layer, file_layer, by_layer[file_layer], filepath)
        if isinstance(result, str):
            if not skip_mismatch:
                raise WeightMismatchError(f"cannot load '{filepath}': {result}. Pass "
                                          f"skip_mismatch=True to leave such layers as "
                                          f"they are")
            report.skipped.append((layer.name, result))
            continue
        plan.extend(result)
        report.matched.append((layer.name, file_layer))
    plan += _plan_own_weights(model, group, filepath, skip_mismatch, report)
    if report.skipped:
        warnings.warn(str(report), stacklevel=user_stacklevel())
    return plan, report


def _plan_own_weights(model, group, filepath: str, skip_mismatch: bool, report) -> list:
    """The model's own variables (not its layers'), in ``top_level_model_weights``."""
    own = list(model._trainable_variables) + list(model._non_trainable_variables)
    top = group.get("top_level_model_weights")
    if top is None or not own:
        return []
    saved = [(name, top[name]) for name in names_attribute(top, "weight_names")]
    layer = _OwnWeights(model, own)
    result = plan_layer(layer, "top_level_model_weights", saved, filepath)
    if isinstance(result, str):
        if not skip_mismatch:
            raise WeightMismatchError(f"cannot load '{filepath}': {result}")
        report.skipped.append((model.name, result))
        return []
    return result


class _OwnWeights:
    """A model's own variables, seen as one layer."""

    def __init__(self, model, variables):
        self.name = model.name
        self.trainable_weights = [v for v in variables if v.trainable]
        self.non_trainable_weights = [v for v in variables if not v.trainable]
