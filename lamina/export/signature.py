"""The inputs an export is traced for (``input_signature``) and the names of the inputs and
outputs of the exported graph (Keras's: the model's input names, the output layers')."""
from __future__ import annotations

from typing import NamedTuple

from .. import tree
from ..dtypes import standardize


class InputSpec(NamedTuple):
    shape: tuple           # None for sizes that stay dynamic (the batch always does)
    dtype: str
    name: str


def _declared(model):
    holder = getattr(model, "_functional", None) or model       # Sequential wraps one
    return getattr(holder, "_input_structure", None)


def input_specs(model, input_signature=None) -> tuple[list, object]:
    """``(flat specs, structure)``: the specs of the traced inputs and how they nest (the
    structure the model is called with)."""
    declared = _declared(model)
    if input_signature is None:
        if declared is None:
            raise ValueError(f"{model.name}.export: the model's inputs are not known (a "
                             f"subclassed model that was never called); pass "
                             f"'input_signature' (a list of lamina.InputSpec or tensors)")
        structure = declared
    else:
        structure = input_signature
        if isinstance(structure, (list, tuple)) and len(structure) == 1:
            structure = structure[0]            # Keras: one positional argument
    leaves = tree.flatten(structure)
    default_names = [getattr(d, "name", None) for d in tree.flatten(declared)] \
        if declared is not None and len(tree.flatten(declared)) == len(leaves) else \
        [None] * len(leaves)
    specs = []
    for i, (leaf, default) in enumerate(zip(leaves, default_names)):
        shape = getattr(leaf, "shape", None)
        if shape is None or not hasattr(leaf, "dtype"):
            raise TypeError(f"{model.name}.export: each leaf of 'input_signature' must have a "
                            f"shape and a dtype (an InputSpec, a KerasTensor, an array); "
                            f"received {type(leaf).__name__} at position {i}")
        shape = tuple(None if d is None else int(d) for d in tuple(shape))
        if input_signature is None and shape:
            shape = (None,) + shape[1:]           # the batch is dynamic unless a spec fixes it
        name = getattr(leaf, "name", None) or default or f"input_{i}"
        specs.append(InputSpec(shape, standardize(str(leaf.dtype or "float32")), name))
    taken = set()
    for i, spec in enumerate(specs):                 # ONNX needs distinct names
        if spec.name in taken:
            specs[i] = spec._replace(name=f"{spec.name}_{i}")
        taken.add(specs[i].name)
    return specs, tree.map_structure(lambda _: 0, structure) if leaves else structure


def output_names(model, count: int) -> list[str]:
    """One distinct name per flat output: the layer that produces it (``dense_1``), with
    ``_1``, ``_2``... for the second and later outputs of one layer."""
    holder = getattr(model, "_functional", None) or model
    names = None
    try:
        names = list(holder.output_names)
    except Exception:                   # a subclassed model has no output layers
        names = None
    if names is None or len(names) != count:
        names = [f"output_{i}" for i in range(count)]
    seen: dict[str, int] = {}
    result = []
    for name in names:
        k = seen.get(name, 0)
        seen[name] = k + 1
        result.append(name if k == 0 else f"{name}_{k}")
    return result
