"""The data-parallel seam: a train / test / predict function that runs this process's
rows of each global batch.

``fit(batch_size=B)`` cuts the same global batches on every process (the shuffle state is
shared, see ``sync``); this wrapper keeps rows ``[lo, hi)`` of each (numpy's array_split
of B over the processes, so an uneven last batch works), sets the process's share
``rows / B`` that weights its gradients, and turns the step's logs into the logs of the
metric states summed over the processes. Predictions are gathered, so every process
returns the whole array.
"""
from __future__ import annotations

from .. import ops, tree
from ..errors import DistributedDataError
from ..backend.collectives import shard_bounds
from .metric_state import global_results, state_variables
from ..ops.random_rows import rows_of_step
from .strategies import data_parallel, distribution
from .world import world


def distribute_step(model, function, kind: str):
    """``function`` wrapped for the active DataParallel, or ``function`` when none is set."""
    dist = data_parallel()
    if dist is None:
        return function
    return DistributedStep(model, function, kind, dist)


def is_stale(function) -> bool:
    """True when ``function`` was made for another distribution than the active one."""
    return getattr(function, "distribution", None) is not distribution()


class DistributedStep:
    def __init__(self, model, function, kind: str, dist):
        self.model = model
        self.function = function
        self.kind = kind
        self.distribution = dist
        self.rows_seen = 0                 # this process's rows so far (diagnostics)
        self._template = None              # the last batch with rows (for empty steps)

    def __call__(self, data):
        comm = world()
        rows = _rows(data)
        if self.distribution.auto_shard_dataset:
            lo, hi = shard_bounds(rows, comm.rank, comm.size)
            if rows < comm.size and self.kind == "train":   # alike everywhere: none waits
                raise DistributedDataError(
                    f"{self.model.name}: a global batch of {rows} row(s) cannot be split "
                    f"over {comm.size} processes (each needs at least one row); use a "
                    f"batch_size of at least {comm.size} (the last batch included)")
            local, local_rows, global_rows = _slice(data, lo, hi), hi - lo, rows
        else:
            local, local_rows = data, rows
            (total,) = comm.allreduce_host(
                [_host_int(rows)], what=f"the sum of the rows of a {self.kind} step's "
                f"batches (auto_shard_dataset=False)")
            global_rows = int(total)
        self.rows_seen += local_rows
        if local_rows:
            self._template = local
        if self.kind == "train":
            self.distribution.share_variable().assign(local_rows / global_rows)
        offset = self.distribution.offset_variable()
        offset.assign(lo if self.distribution.auto_shard_dataset else
                      _rows_before(comm, local_rows))
        if local_rows:
            with rows_of_step(offset, local_rows):
                out = self.function(local)
        elif self.kind == "test":       # fewer rows than processes, or none left here
            out = self._test_without_rows(data if rows else self._template, offset)
        else:
            out = None
        if self.kind == "predict":
            return _gather(out)
        logs = dict(out) if isinstance(out, dict) else {}
        logs.update(global_results(self.model))
        return logs


    def _test_without_rows(self, data, offset):
        """A process with no rows of a test batch runs the step on the batch's first row
        (so its metrics get built like its peers') and then takes that row's contribution
        back out of the metric states."""
        before = {id(v): v.numpy().copy() for v in state_variables(self.model)}
        with rows_of_step(offset, 1):
            out = self.function(_slice(data, 0, 1))
        for variable in state_variables(self.model):
            value = before.get(id(variable))
            variable.assign(value if value is not None else variable.numpy() * 0)
        return out


def _rows(data) -> int:
    for leaf in tree.flatten(data[0]):
        if leaf is not None and hasattr(leaf, "shape"):
            return int(leaf.shape[0])
    return 0                       # nothing to split: the shard check names the batch


def _slice(value, lo: int, hi: int):
    if value is None:
        return None
    if isinstance(value, tuple):
        return tuple(_slice(v, lo, hi) for v in value)
    if isinstance(value, list):
        return [_slice(v, lo, hi) for v in value]
    if isinstance(value, dict):
        return {k: _slice(v, lo, hi) for k, v in value.items()}
    return value[lo:hi]


def no_rows(batch):
    """``batch`` cut to no rows: the step of a process whose data ran out before its
    peers' (``equal_steps``)."""
    return _slice(batch, 0, 0)


def _rows_before(comm, rows: int) -> int:
    """The rows of the processes before this one (batches fed per process)."""
    counts = comm.allgather_object(int(rows), what="the row counts of a step's batches "
                                   "(auto_shard_dataset=False)")
    return sum(counts[:comm.rank])


def _host_int(n: int):
    return ops.convert_to_tensor(n, dtype="int64").numpy()


def _gather(out):
    """Every process's outputs (None where it had no rows), rows in process order."""
    host = None if out is None else tree.map_structure(lambda t: t.numpy(), out)
    parts = [p for p in world().allgather_object(host, what="the gathering of a predict "
                                                  "step's outputs") if p is not None]
    return tree.map_structure(
        lambda *leaves: ops.concatenate([ops.convert_to_tensor(v) for v in leaves], axis=0),
        *parts)


__all__ = ["distribute_step", "is_stale", "DistributedStep"]
