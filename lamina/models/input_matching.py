"""How a functional model reads the inputs it is called with (Keras 3's rules).

The inputs are matched to the model's ``Input`` tensors by their structure:

- one array for a model of one input given as a one-element list is that input;
- a dict for a model whose inputs are not a dict is read by the ``Input`` names;
- a dict for a model whose inputs are a dict is read by its keys (extra keys are ignored);
- anything else is flattened (dicts in sorted key order) and matched by position.

A structure other than the model's own (a list for a dict model) still runs when the
values line up, with a warning (once per model) that starts with Keras's sentence "The
structure of `inputs` doesn't match the expected structure". It is an error where the
values cannot line up: a dict without some ``Input`` name, or a list for a dict model whose
keys are not in sorted order (flattening sorts them, so positions would swap inputs).
"""
from __future__ import annotations

import warnings

from .. import tree

STRUCTURE_PHRASE = "The structure of `inputs` doesn't match the expected structure"


def match_structure(model, inputs) -> list:
    """The values of ``inputs`` for each of ``model.inputs``, in order (not yet converted
    or checked against the ``Input`` shapes)."""
    struct = model._input_structure
    refs = model.inputs
    name = model.shown_name
    names = [x.history[0].name for x in refs]
    mismatch_is_error = False
    if isinstance(struct, list) and len(struct) == 1 and not tree.is_nested(inputs):
        inputs = [inputs]
    elif isinstance(inputs, dict) and not isinstance(struct, dict):
        if set(names) <= set(inputs):
            inputs = [inputs[n] for n in names]
            if not tree.is_nested(struct):
                inputs = inputs[0]
        else:
            missing = [n for n in names if n not in inputs]
            raise _structure_error(
                model, struct, inputs,
                f"{name}: inputs given as a dict must be keyed by the Input names {names}; "
                f"missing {missing}")
    if isinstance(struct, dict):
        if isinstance(inputs, dict):
            missing = [k for k in struct if k not in inputs]
            if missing:
                raise ValueError(f"{name}: missing input(s) {sorted(missing)}; received "
                                 f"keys {sorted(inputs)}")
            if set(inputs) != set(struct):
                _warn(model, struct, inputs)
            return tree.flatten({k: inputs[k] for k in struct})
        flat = tree.flatten(inputs)
        if len(flat) != len(refs):
            raise ValueError(f"{name}: expects {len(refs)} named input(s) with keys "
                             f"{sorted(struct)}; received {len(flat)} input value(s). Pass "
                             f"the inputs as a dict, e.g. model({{"
                             + ", ".join(f"'{k}': ..." for k in struct) + "})")
        mismatch_is_error = list(struct) != sorted(struct)
        if mismatch_is_error:
            raise _structure_error(
                model, struct, inputs,
                f"{name}: the model's inputs are a dict whose keys {list(struct)} are not "
                f"in sorted order, so a {type(inputs).__name__} of values cannot be matched "
                f"to them by position; pass a dict")
    if not _same_structure(inputs, struct):
        _warn(model, struct, inputs)
    return tree.flatten(inputs)


def _same_structure(inputs, struct) -> bool:
    """Keras's check: the same nesting once lists and tuples count as one kind."""
    try:
        tree.assert_same_structure(tree.lists_to_tuples(inputs), tree.lists_to_tuples(struct))
    except (ValueError, TypeError):
        return False
    return True


def _describe(model, struct, inputs) -> str:
    expected = tree.map_structure(lambda x: "None" if x is None else x.history[0].name,
                                  struct)
    received = tree.map_structure(
        lambda x: "None" if x is None else f"Tensor(shape={tuple(getattr(x, 'shape', ()))})",
        inputs)
    return f"\nExpected: {expected}\nReceived: inputs={received}"


def _structure_error(model, struct, inputs, detail: str) -> ValueError:
    return ValueError(f"{STRUCTURE_PHRASE}: {detail}.{_describe(model, struct, inputs)}")


def _warn(model, struct, inputs) -> None:
    """Warn once per model: fit and predict call it once per batch."""
    if model.__dict__.get("_warned_input_structure"):
        return
    model.__dict__["_warned_input_structure"] = True
    warnings.warn(f"{STRUCTURE_PHRASE} of model '{model.shown_name}'."
                  f"{_describe(model, struct, inputs)}", stacklevel=4)
