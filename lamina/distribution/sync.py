"""What every process must agree on when ``fit`` begins: the same weights and optimizer
state (process 0's, after BackupAndRestore may have restored them), the same shuffling
state, and the same model and compile configuration (a difference is an error naming it).
"""
from __future__ import annotations

from ..backend.collectives import broadcast_numpy_rng
from .consistency import check_same_everywhere
from .strategies import data_parallel
from .world import world


def begin_fit(model) -> None:
    """Called by fit after on_train_begin: check the configs, then broadcast process 0's
    weights, optimizer state and numpy shuffling state."""
    if data_parallel() is None or world().size == 1:
        return
    check_same_everywhere(model)
    broadcast_state(model)
    broadcast_numpy_rng(world())


def fit_barrier() -> None:
    """Wait for every process (before on_train_begin reads backups process 0 may still be
    writing at the end of an earlier fit)."""
    if data_parallel() is not None and world().size > 1:
        world().barrier(what="the barrier at the start of fit")


def _state_variables(model) -> list:
    variables, seen = [], set()
    sources = list(model.variables)
    optimizer = getattr(model, "optimizer", None)
    if optimizer is not None and getattr(optimizer, "built", False):
        sources += list(optimizer.variables)
    for variable in sources:
        if id(variable) not in seen:
            seen.add(id(variable))
            variables.append(variable)
    return variables


def broadcast_state(model) -> None:
    """Give every process process 0's model and optimizer variables."""
    variables = _state_variables(model)
    values = world().broadcast_host([v.numpy() for v in variables],
                                    what="the broadcast of process 0's weights at the "
                                    "start of fit")
    for variable, value in zip(variables, values):
        variable.assign(value)


__all__ = ["begin_fit", "broadcast_state"]
