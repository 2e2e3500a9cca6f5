"""Metrics under data parallelism: the state variables are summed across processes, not
the results, so every process logs the numbers one process would (AUC and precision
included, whatever the shards hold).

Each process keeps accumulating its own rows; ``global_results`` sums the states into the
variables, reads the results, and puts the process's own state back.
"""
from __future__ import annotations

from ..tree import pythonify_logs
from .world import world


def state_variables(model) -> list:
    seen, out = set(), []
    for metric in model.metrics:
        for variable in metric.variables:
            if id(variable) not in seen and variable.aggregation in ("sum", "mean"):
                seen.add(id(variable))
                out.append(variable)
    return out


def global_results(model) -> dict:
    """``model.get_metrics_result()`` of the states summed over all processes, as Python
    numbers (the same on every process)."""
    variables = state_variables(model)
    local = [v.numpy().copy() for v in variables]
    summed = world().allreduce_host(local, what="the sum of the metric states of a step")
    try:
        for variable, value in zip(variables, summed):
            if variable.aggregation == "mean":
                value = value / world().size
            variable.assign(value)
        return pythonify_logs(model.get_metrics_result())
    finally:
        for variable, value in zip(variables, local):
            variable.assign(value)


__all__ = ["global_results"]
