"""Helpers shared by ``CompileLoss`` and ``CompileMetrics``: naming objects, walking paths
into nested structures, and lining up the targets ``y`` with the model's outputs."""
from __future__ import annotations

from .. import tree
from ..core.naming import to_snake_case
from ..errors import LaminaError


class LossPathError(LaminaError, KeyError):
    """A key or index of ``compile(loss=...)`` that the outputs or targets lack (a
    ``KeyError``, as in Keras)."""

    def __str__(self) -> str:         # KeyError would print the repr of the message
        return str(self.args[0]) if self.args else ""


def object_name(obj) -> str:
    """The name Keras gives a loss or metric object: its ``name``, a function's
    ``__name__``, else its class name in snake case."""
    name = getattr(obj, "name", None)
    if isinstance(name, str):
        return name
    name = getattr(obj, "__name__", None)
    if isinstance(name, str):
        return name
    return to_snake_case(type(obj).__name__)


def resolve_path(path: tuple, structure):
    """The part of ``structure`` at ``path`` (indices and keys); None where it is missing
    (a dict of sample weights need not name every output)."""
    for key in path:
        if structure is None:
            return None
        if isinstance(structure, dict):
            structure = structure.get(key)
        elif isinstance(structure, (list, tuple)) and isinstance(key, int) \
                and key < len(structure):
            structure = structure[key]
        else:
            return None
    return structure


def first_leaf(structure):
    return tree.flatten(structure)[0]


def shape_of(structure) -> str:
    """The nesting of ``structure`` with every leaf shown as ``*``."""
    return tree.map_structure(lambda _: "*", structure)


def pack_flat(structure, flat):
    """``flat`` (a list or tuple) packed as ``structure``; raises ValueError where it
    cannot be (not a flat sequence of the right length)."""
    if not isinstance(flat, (list, tuple)) or _is_namedtuple(flat):
        raise ValueError("not a flat sequence")
    return tree.pack_sequence_as(structure, list(flat))


def _is_namedtuple(x) -> bool:
    return isinstance(x, tuple) and hasattr(x, "_fields")


def align_targets(y_true, y_pred, user_loss, output_names):
    """``y_true`` nested as ``y_pred`` (Keras 3's rules): a lone target for a one-element
    output list, a dict of targets for a list of outputs (by output name), a flat sequence
    packed as the outputs, containers of other types with the same paths, or targets for
    only the outputs that have a loss (``loss=["mse", None]``)."""
    try:
        tree.assert_same_structure(y_pred, y_true)
        return y_true
    except ValueError:
        pass
    if not tree.is_nested(y_true) and hasattr(y_pred, "__len__") and len(y_pred) == 1:
        y_true = [y_true]
    elif isinstance(y_pred, (list, tuple)) and isinstance(y_true, dict) and output_names \
            and set(output_names) == set(y_true):
        y_true = [y_true[name] for name in output_names]
    try:
        return pack_flat(y_pred, y_true)
    except (ValueError, TypeError):
        pass
    try:
        tree.assert_same_paths(y_true, y_pred)
        return tree.pack_sequence_as(y_pred, tree.flatten(y_true))
    except (ValueError, TypeError):
        pass
    flat_true = tree.flatten(y_true)
    flat_loss = tree.flatten(user_loss)
    with_loss = [i for i, loss in enumerate(flat_loss) if loss is not None]
    if len(flat_true) == len(with_loss):
        spread = [None] * len(flat_loss)
        for target, i in zip(flat_true, with_loss):
            spread[i] = target
        return tree.pack_sequence_as(user_loss, spread)
    raise ValueError(f"compile: the targets y and the model's outputs have different "
                     f"structures (Keras: \"y_true and y_pred have different "
                     f"structures\").\ny_true: {shape_of(y_true)}\ny_pred: "
                     f"{shape_of(y_pred)}")


def reshape_like(build_structure, value):
    """``value`` nested as the structure seen when the loss was built (a later batch may
    come as a tuple where the first came as a list)."""
    try:
        tree.assert_same_structure(build_structure, value)
        return value
    except ValueError:
        return tree.pack_sequence_as(build_structure, tree.flatten(value))
