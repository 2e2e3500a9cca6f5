"""A legacy HDF5 file's ``optimizer_weights`` group, paired with a Lamina optimizer's
``variables``.

Three writers, three spellings of the same state:

- Keras 3 and Lamina: ``adam/iteration``, ``adam/learning_rate``, then the slots in the
  optimizer's own order (``adam/dense_kernel_momentum``, ...): paired by position.
- tf.keras 2.11+: ``iteration:0``, then ``Adam/m/dense/kernel:0``, ... (no
  learning_rate): paired by variable and slot name, else by position.
- tf.keras legacy optimizers: ``Adam/iter:0``, hyperparameters (``Adam/beta_1:0``, ...:
  the config already has them), ``Adam/dense/kernel/m:0``, ...: paired by name.

When the state does not fit (another optimizer, another model) it is skipped with a
warning, as Keras does: the weights still load, the optimizer starts afresh.
"""
from __future__ import annotations

import warnings

import numpy as np

from ..h5_guard import create_checked, read_dataset
from .legacy_weights import names_attribute, write_names
from ..traceback_filter import user_stacklevel

# Keras 2 slot names -> Keras 3 / Lamina slot names.
_SLOTS = {"m": "momentum", "v": "velocity", "vhat": "velocity_hat", "rms": "velocity",
          "mom": "momentum", "mg": "average_gradient", "u": "norm",
          "accum_grad": "accumulated_grad", "accum_var": "accumulated_delta_var"}
_ITERATION = ("iteration", "iter", "iterations")


def write_optimizer(optimizer, group) -> None:
    """Keras 3's layout: ``weight_names`` and one dataset per variable, in order."""
    names = [f"{optimizer.name}/{variable.name}" for variable in optimizer.variables]
    write_names(group, "weight_names", names)
    for name, variable in zip(names, optimizer.variables):
        create_checked(group, name, variable.numpy())


def plan_optimizer(model, group, filepath: str) -> list:
    """``[(variable, array), ...]`` restoring the saved state; [] (with a warning) when it
    does not fit."""
    optimizer = model.optimizer
    if not optimizer.built:
        optimizer.build(model.trainable_weights)
    saved = [(name, group[name]) for name in names_attribute(group, "weight_names")
             if name in group]
    variables = list(optimizer.variables)
    keras2 = any(name.endswith(":0") for name, _ in saved)
    plan = _keras2_plan(optimizer, saved) if keras2 else _by_position(variables, saved)
    if plan is None:
        warnings.warn(f"Skipping variable loading for optimizer '{optimizer.name}': the "
                      f"state saved in '{filepath}' ({len(saved)} variables: "
                      f"{[name for name, _ in saved][:4]}...) does not fit its "
                      f"{len(variables)} variables; training resumes with a fresh "
                      f"optimizer state", stacklevel=user_stacklevel())
        return []
    return [(variable, np.asarray(read_dataset(dataset, filepath)).astype(variable.dtype,
                                                                        copy=False))
            for variable, dataset in plan]


def _by_position(variables: list, saved: list):
    if len(variables) != len(saved) or any(
            tuple(v.shape) != tuple(d.shape) for v, (_, d) in zip(variables, saved)):
        return None
    return [(variable, dataset) for variable, (_, dataset) in zip(variables, saved)]


def _keras2_plan(optimizer, saved: list):
    counters = [v for v in optimizer.variables if v.name == "iteration"]
    if len(counters) != 1:
        return None
    iterations = counters[0]
    others = [v for v in optimizer.variables if v is not iterations and
              v.name not in ("learning_rate", "u_product")]
    slots, plan = [], []
    for name, dataset in saved:
        parts = name.split(":")[0].split("/")
        if parts[-1] in _ITERATION and len(parts) <= 2:
            plan.append((iterations, dataset))
        elif len(parts) > 2:                       # hyperparameters have two parts
            slots.append((parts, dataset))
    if not plan:
        return None
    plan += _derived(optimizer, int(np.asarray(plan[0][1][()])))
    if not others:             # e.g. SGD without momentum: Keras 2 still wrote `m` slots,
        return plan            # which carry nothing from one step to the next
    by_name = _slots_by_name(others, slots)
    if by_name is None:
        by_name = _by_position(others, [("", d) for _, d in slots])
    return None if by_name is None else plan + by_name


class _Value:
    """An array that reads like a dataset (``value[()]``, ``value.shape``)."""

    def __init__(self, array):
        self.array = np.asarray(array)
        self.shape = self.array.shape

    def __getitem__(self, key):
        return self.array[key]


def _derived(optimizer, steps: int) -> list:
    """State that tf.keras kept outside its saved variables, recomputed from the step
    count: Nadam's ``u_product``, the product over steps t = 1..n of
    ``beta_1 * (1 - 0.5 * 0.96^t)`` (tf.keras itself restarts it from 1)."""
    found = [v for v in optimizer.variables if v.name == "u_product"]
    if not found or not hasattr(optimizer, "beta_1"):
        return []
    dtype = np.dtype(found[0].dtype)
    product = dtype.type(1.0)
    for t in range(1, steps + 1):
        decay = dtype.type(1.0) - dtype.type(0.5) * dtype.type(0.96) ** dtype.type(t)
        product = product * dtype.type(optimizer.beta_1) * decay
    return [(found[0], _Value(product))]


def _slots_by_name(variables: list, slots: list):
    """``Adam/m/dense/kernel`` (2.11+) or ``Adam/dense/kernel/m`` (legacy) names the slot
    Lamina calls ``dense_kernel_momentum``."""
    if len(variables) != len(slots):
        return None
    mine = {v.name: v for v in variables}
    pairs = []
    for parts, dataset in slots:
        candidates = [("_".join(parts[2:]), parts[1]), ("_".join(parts[1:-1]), parts[-1])]
        found = None
        for path, slot in candidates:
            name = f"{path}_{_SLOTS.get(slot, slot)}"
            matches = [v for key, v in mine.items() if key == name] or \
                [v for key, v in mine.items() if key.endswith(f"_{name}")]
            if len(matches) == 1 and tuple(matches[0].shape) == tuple(dataset.shape):
                found = matches[0]
                break
        if found is None:
            return None
        pairs.append((found, dataset))
    if len({id(v) for v, _ in pairs}) != len(pairs):
        return None
    return pairs
