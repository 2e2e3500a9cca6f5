"""Keras 3's ``keras.saving.KerasFileEditor``: inspect and edit the weights of a ``.keras``
or ``.weights.h5`` file, compare them with a model, and write them back as ``.weights.h5``.

The weights are read into nested dicts: one level per group of the file (``"layers"``,
``"dense"``, ...), an object's ``vars`` group folded into its dict as ``{"0": array, ...}``.
Nothing from the file is executed: ``config.json`` and ``metadata.json`` are only parsed
as JSON, and the HDF5 file is checked (no external data or links, checksums, sizes) before
a single array is read.
"""
from __future__ import annotations

import io
import json
import math

import numpy as np

from ..h5_guard import check_contained, create_checked, read_dataset
from .errors import CorruptFileError
from .object_graph import saveables
from .own_variables import save_own_state
from .keras_archive import METADATA, WEIGHTS, read_config, read_entry
from .atomic import atomic_image

MAX_DATASET_BYTES = 1 << 32          # Keras's limit for one array (4 GiB)
# Keras's files nest a few levels per model; the walkers over the read dicts (summary,
# compare, save) recurse once per level, so deeper files are refused when read.
MAX_GROUP_DEPTH = 512


class KerasFileEditor:
    """Inspect and edit the weights stored in a ``.keras`` or ``.weights.h5`` file.

    The file is read into nested dicts of arrays on construction (its path and the Keras
    version that saved it are printed); ``summary()`` lists them, ``delete_object``,
    ``add_object``, ``rename_object``, ``delete_weight``, ``add_weights`` change them,
    ``compare(model)`` checks them against a model, and ``save(path)`` writes a
    ``.weights.h5`` file. The file itself is never changed.

    Args:
        filepath: Path of a ``.keras`` model file or a ``.weights.h5`` weights file.

    Raises:
        ValueError: If ``filepath`` has another extension.
        CorruptFileError: If the file is not a readable model or weights file.

    Example:

    >>> editor = lamina.saving.KerasFileEditor("model.keras")
    >>> editor.summary(); editor.delete_object("layers/dense_2")
    >>> editor.save("edited.weights.h5")
    """

    def __init__(self, filepath):
        import h5py
        self.filepath = str(filepath)
        self.metadata = None
        self.config = None
        if self.filepath.endswith(".keras"):
            self.config = read_config(self.filepath)
            try:
                self.metadata = json.loads(read_entry(self.filepath, METADATA))
            except (UnicodeDecodeError, json.JSONDecodeError) as exc:
                raise CorruptFileError(f"'{self.filepath}': metadata.json is not valid JSON "
                                       f"({exc})") from None
            source = io.BytesIO(read_entry(self.filepath, WEIGHTS))
        elif self.filepath.endswith(".weights.h5"):
            source = self.filepath
        else:
            raise ValueError(f"KerasFileEditor: invalid filename: expected a `.keras` or "
                             f"`.weights.h5` extension. Received: filepath={self.filepath}")
        try:
            with h5py.File(source, "r") as f:
                check_contained(f, self.filepath)
                self.object_metadata: dict = {}
                self.weights_dict = self._read_group(f, "")
        except OSError as exc:
            raise CorruptFileError(f"KerasFileEditor: '{self.filepath}' is not a readable "
                                   f"HDF5 weights file ({exc})") from None
        print(f"Keras model file '{self.filepath}'")
        if isinstance(self.metadata, dict):
            print(f"Saved with Keras {self.metadata.get('keras_version')} - date: "
                  f"{self.metadata.get('date_saved')}")

    # ------------------------------------------------------------------ reading
    def _read_group(self, root, path: str) -> dict:
        """The nested dicts of ``root``'s groups, walked depth first with an explicit stack
        (a file nested thousands of levels deep must not exhaust Python's stack): each
        frame is a group, its dict and the keys left to read; a finished group is stored in
        its parent (a ``vars`` group merged into it) in the order of the parent's keys."""
        import h5py
        result: dict = {}
        stack = [(root, path, result, iter(root.keys()), None)]
        seen = {root.id}
        self._read_attrs(root, path)
        while stack:
            group, where, content, keys, store = stack[-1]
            key = next(keys, None)
            if key is None:
                stack.pop()
                if store is not None:
                    store(content)
                continue
            child = group[key]
            child_path = f"{where}/{key}"
            if isinstance(child, h5py.Dataset):
                content[key] = self._read_dataset(child, child_path)
                continue
            if not isinstance(child, h5py.Group):
                continue
            if child.id in seen:
                raise CorruptFileError(f"'{self.filepath}': the group {child_path} is linked "
                                       f"more than once in the file; expected a tree")
            if len(stack) > MAX_GROUP_DEPTH:
                raise CorruptFileError(f"'{self.filepath}': the group {child_path} is nested "
                                       f"more than {MAX_GROUP_DEPTH} levels deep, more than "
                                       f"Lamina reads")
            seen.add(child.id)
            inner_path = where if key == "vars" else child_path
            self._read_attrs(child, inner_path)
            stack.append((child, inner_path, {}, iter(child.keys()),
                          _storer(content, key)))
        return result

    def _read_attrs(self, group, path: str) -> None:
        if group.attrs:
            self.object_metadata[path] = {k: _attr(v) for k, v in group.attrs.items()}

    def _read_dataset(self, dataset, path: str):
        shape = dataset.shape or ()
        if len(shape) > 64 or any(d < 0 for d in shape):
            raise CorruptFileError(f"'{self.filepath}': the dataset {path} has a malformed "
                                   f"shape {shape}")
        size = math.prod(shape) * dataset.dtype.itemsize
        if size > MAX_DATASET_BYTES:
            raise CorruptFileError(f"'{self.filepath}': the dataset {path} is too large to "
                                   f"load safely ({size} bytes; limit is {MAX_DATASET_BYTES})")
        return np.asarray(read_dataset(dataset, self.filepath))

    # ------------------------------------------------------------------ inspecting
    def summary(self) -> None:
        """Print the weights, object by object."""
        print("Weights structure")
        self._print_tree(self.weights_dict, "  ", "")

    weights_summary = summary

    def _print_tree(self, tree: dict, prefix: str, path: str) -> None:
        items = list(tree.items())
        for i, (key, value) in enumerate(items):
            connector = "> " if (i == 0 and not path) else (
                "└─ " if i == len(items) - 1 else "├─ ")
            inner = f"{path}/{key}"
            if isinstance(value, dict):
                name = self.object_metadata.get(inner, {}).get("name")
                print(f"{prefix}{connector}{key}" + (f" ('{name}')" if name else ""))
                more = "    " if i == len(items) - 1 else "│   "
                self._print_tree(value, prefix + more, inner)
            else:
                print(f"{prefix}{connector}{key}: shape={value.shape}, dtype={value.dtype}")

    def compare(self, reference_model) -> dict:
        """Every object and weight missing on either side, and every shape that differs,
        between the file and ``reference_model``; ``{"status": "success" | "error",
        "error_count", "match_count"}``."""
        print("Running comparison")
        spec = _model_spec(reference_model)
        checked: set = set()
        errors, matches = _compare(self.weights_dict, spec, "", "saved file",
                                   "reference model", checked)
        back, _ = _compare(spec, self.weights_dict, "", "reference model", "saved file",
                           checked)
        errors += back
        print("─────────────────────")
        if errors == 0:
            print("Comparison successful: saved file is compatible with the reference model")
            print(f"    Found {matches} matching weight{'' if matches == 1 else 's'}")
        else:
            print(f"Found {errors} error{'' if errors == 1 else 's'}: saved file is not "
                  f"compatible with the reference model")
        return {"status": "success" if errors == 0 else "error", "error_count": errors,
                "match_count": matches}

    # ------------------------------------------------------------------ editing
    def _edit_object(self, edit, source_name: str, target_name: str | None = None) -> None:
        if target_name is not None and "/" in target_name:
            raise ValueError(f"Argument `target_name` should be a leaf name, not a full path "
                             f"name. Received: target_name='{target_name}'")
        if "/" in source_name:
            *parents, leaf = source_name.split("/")
            node = self.weights_dict
            for part in parents:
                if not isinstance(node.get(part), dict):
                    raise ValueError(f"Path '{source_name}' not found in model.")
                node = node[part]
            if leaf not in node:
                raise ValueError(f"Path '{source_name}' not found in model.")
            edit(node, leaf, target_name)
            return
        holders = _holders(self.weights_dict, source_name)
        if len(holders) > 1:
            raise ValueError(f"Name '{source_name}' occurs more than once in the model; try "
                             f"passing a complete path")
        if not holders:
            raise ValueError(f"Source name '{source_name}' does not appear in the model. Use "
                             f"`editor.weights_summary()` to list all objects.")
        edit(holders[0], source_name, target_name)

    def rename_object(self, object_name, new_name) -> None:
        """Rename an object (``"dense_2"`` or a path such as ``"layers/dense_2"``)."""
        def rename(node, source, target):
            node[target] = node.pop(source)
        self._edit_object(rename, object_name, new_name)

    def delete_object(self, object_name) -> None:
        """Remove an object and its weights."""
        self._edit_object(lambda node, source, _: node.pop(source), object_name)

    def add_object(self, object_path, weights) -> None:
        """Add an object at ``object_path`` with ``weights`` (``{"0": array, ...}``)."""
        _check_weights(weights)
        node = self.weights_dict
        *parents, leaf = object_path.split("/")
        for part in parents:
            if not isinstance(node.get(part), dict):
                raise ValueError(f"Path '{'/'.join(parents)}' not found in model.")
            node = node[part]
        node[leaf] = {str(k): np.asarray(v) for k, v in weights.items()}

    def delete_weight(self, object_name, weight_name) -> None:
        """Remove one weight (``"0"``, ``"1"``, ...) of an object."""
        def delete(node, source, _):
            if weight_name not in node[source]:
                raise ValueError(f"Weight {weight_name} not found in object {object_name}. "
                                 f"Weights found: {list(node[source].keys())}")
            node[source].pop(weight_name)
        self._edit_object(delete, object_name)

    def add_weights(self, object_name, weights) -> None:
        """Add weights (``{"2": array}``) to an existing object."""
        _check_weights(weights)
        self._edit_object(lambda node, source, _: node[source].update(
            {str(k): np.asarray(v) for k, v in weights.items()}), object_name)

    # ------------------------------------------------------------------ writing
    def save(self, filepath) -> None:
        """Write the (edited) weights to a ``.weights.h5`` file, atomically."""
        import h5py

        filepath = str(filepath)
        if not filepath.endswith(".weights.h5"):
            raise ValueError(f"Invalid `filepath` argument: expected a `.weights.h5` "
                             f"extension. Received: filepath={filepath}")
        with atomic_image(filepath, "KerasFileEditor.save") as image:
            with h5py.File(image, "w") as f:
                _write(f, self.weights_dict)

    def resave_weights(self, filepath) -> None:
        self.save(filepath)


def _storer(parent: dict, key: str):
    """What a finished group's dict does in ``parent``: a ``vars`` group's arrays are the
    parent's own; any other group is stored under its key unless it holds nothing."""
    if key == "vars":
        return parent.update

    def store(content: dict) -> None:
        if content:
            parent[key] = content
    return store


def _attr(value):
    return value.decode("utf-8", "replace") if isinstance(value, bytes) else value


def _check_weights(weights) -> None:
    if not isinstance(weights, dict):
        raise ValueError(f"Argument `weights` should be a dict where keys are weight names "
                         f"(usually '0', '1', etc.) and values are NumPy arrays. Received: "
                         f"type(weights)={type(weights)}")


def _holders(tree: dict, name: str) -> list[dict]:
    found = [tree] if name in tree else []
    for value in tree.values():
        if isinstance(value, dict):
            found += _holders(value, name)
    return found


def _write(group, tree: dict) -> None:
    arrays = {k: v for k, v in tree.items() if not isinstance(v, dict)}
    for key, value in tree.items():
        if isinstance(value, dict) and value:
            _write(group.require_group(key), value)
    if arrays:
        variables = group.require_group("vars")
        for key, value in arrays.items():
            create_checked(variables, key, np.asarray(value))


def _model_spec(model) -> dict:
    """What each object of ``model`` would write (its ``save_own_variables``), by path."""
    spec: dict = {}
    for saveable in saveables(model):
        stored: dict = {}
        save_own_state(saveable.obj, stored, saveable.variables)
        if not stored:
            continue
        node = spec
        for part in filter(None, saveable.path.split("/")):
            node = node.setdefault(part, {})
        node.update({key: value if hasattr(value, "shape") else np.asarray(value)
                     for key, value in stored.items()})
    return spec


def _compare(target: dict, reference: dict, path: str, target_name: str, ref_name: str,
             checked: set) -> tuple[int, int]:
    errors = matches = 0
    for key, ref in reference.items():
        inner = f"{path}/{key}"
        if inner in checked:
            continue
        if key not in target:
            errors += 1
            checked.add(inner)
            what = "Object" if isinstance(ref, dict) else "Weight"
            print(f"...{what} {inner} present in {ref_name}, missing from {target_name}")
            if isinstance(ref, dict):
                print(f"    In {ref_name}, {inner} contains the following keys: "
                      f"{list(ref.keys())}")
        elif isinstance(ref, dict) != isinstance(target[key], dict):
            errors += 1
            checked.add(inner)
            print(f"...{inner} is an object in one of {ref_name} and {target_name} and a "
                  f"weight in the other")
        elif isinstance(ref, dict):
            sub_errors, sub_matches = _compare(target[key], ref, inner, target_name, ref_name,
                                               checked)
            errors, matches = errors + sub_errors, matches + sub_matches
        elif tuple(target[key].shape) != tuple(ref.shape):
            errors += 1
            checked.add(inner)
            print(f"...Weight shape mismatch for {inner}\n    In {ref_name}: "
                  f"shape={tuple(ref.shape)}\n    In {target_name}: "
                  f"shape={tuple(target[key].shape)}")
        else:
            matches += 1
    return errors, matches
