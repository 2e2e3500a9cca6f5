"""A traced function as a flat plan: pre-bound kernel calls over numbered slots.

Running a plan walks a Python list once: no graph objects, no tape, no spec checks. Slots
hold the step's inputs, the variables' buffers (bound at every call, so in-place updates
are seen), constants captured while tracing, and every node's outputs. After the last
kernel, the recorded updates are written into the variables in place ("compute every new
value, then commit"). A kernel that fails raises a ``GraphExecutionError`` naming the layer
and op its node came from (errors.py).

Writing an update's last op straight into its variable (no separate buffer, no copy) is an
optimization that the memory plan's alias analysis must prove safe: the variables' buffers
are alias roots like the arena's, every op that does not ``writes_out`` is taken to return
a view of its inputs, and the direct write is allowed only when every reader of the
variable or of any view of it has run before the writing step (or is that step itself,
reading the variable element by element, for an ``inplace`` op). Outputs that may be views
of a variable or of an arena buffer are copied, so a returned tensor is a snapshot, and an
update value that may be a view of another updated variable is copied before the commit.

Intermediate values live in an arena allocated once per plan (``memory_plan.py`` decides
which value shares which buffer): ops that can write into a given buffer get it as
``out=``, bound into their attributes ahead of time, so a steady-state step allocates
nothing for them. Outputs are computed fresh (or copied out of the arena) every call, so a
later call never overwrites what an earlier one returned. A call that arrives while the
plan is running (another thread, or re-entry) runs without the arena. When a variable
written in place has been given a new buffer, the plan binds the new one before running.
"""
from __future__ import annotations

import functools
import threading
from collections import Counter
from typing import NamedTuple

from .. import tree
from ..core.op import c_ordered
from ..core.tensor import Tensor, TensorBase
from .errors import describe_failure
from .ir import Graph
from .memory_plan import MemoryReport, plan_memory, report


class _Mode(NamedTuple):
    """How one call runs: the steps, which outputs to copy, which updates to commit."""
    steps: list
    copied_outputs: list            # output positions copied after the last step
    commits: list                   # (variable, value slot, copy the value first)


class Plan:
    """An executable :class:`~lamina.graph.ir.Graph`; ``memory_plan=False`` runs every op
    into fresh arrays (the reference the planned run is tested against)."""

    def __init__(self, graph: Graph, backend, memory_plan: bool = True,
                 shapes: dict | None = None):
        # ``shapes``: id(value) -> concrete shape for values traced with unknown sizes
        # (graph/shapes.py), so a batch-polymorphic graph's arena is sized for one batch
        shapes = shapes or {}
        self.graph = graph
        self.backend = backend
        index: dict[int, int] = {}
        template: list = []

        def slot(tensor) -> int:
            key = id(tensor)
            if key not in index:
                index[key] = len(template)
                template.append(tensor.data if isinstance(tensor, Tensor) else None)
            return index[key]
        self.input_slots = [slot(x) for x in graph.inputs]
        self.variable_slots = [(variable, slot(placeholder))
                               for variable, placeholder in graph.variables]
        schedule, specs = [], {}
        for node in graph.nodes:
            ins = tuple(slot(x) if isinstance(x, TensorBase) else _literal(template, x)
                        for x in node.inputs)
            outs = tuple(slot(o) for o in node.outputs)
            schedule.append((node, ins, outs))
            specs.update((s, (shapes.get(id(o), tuple(o.shape)), o.dtype)) for s, o in zip(outs, node.outputs))
        self._flat_outputs = graph.flat_outputs
        self.output_slots = [slot(o) if isinstance(o, TensorBase) else None
                             for o in self._flat_outputs]
        self.update_slots = [(variable, slot(value)) for variable, value in graph.updates]
        self._updated = tuple(variable for variable, _ in self.update_slots)
        self.template = template
        self._schedule, self._specs = schedule, specs

        outputs = {i for i in self.output_slots if i is not None}
        external = set(self.input_slots) | {i for _, i in self.variable_slots} | outputs | \
            {i for i, value in enumerate(template) if value is not None}
        keep = outputs | {i for _, i in self.update_slots}
        sources = {i for _, i in self.variable_slots} | {i for _, i in self.update_slots}
        self.memory = plan_memory([(node.op, ins, outs) for node, ins, outs in schedule],
                                  specs, external, keep, sources, arena=memory_plan)
        self.arena = [backend.empty(shape, dtype) for shape, dtype in self.memory.buffers]
        self.plain = self._mode([_step(backend, node, ins, outs, None) for node, ins, outs in schedule],
                                {}, arena=False)
        _prepare_kernels(backend, schedule, shapes)
        # value slot -> variable, for the updates the alias analysis allows to write in place
        self._direct = _direct_updates(schedule, self.update_slots, self.variable_slots,
                                       self.memory) if memory_plan else {}
        self._bind()
        self._lock = threading.Lock()

    def _bind(self) -> None:
        """Build the planned steps, the direct updates writing into the variables' present
        buffers (a buffer that no longer fits the op's ``out`` contract gets a commit)."""
        direct = {value: variable for value, variable in self._direct.items()
                  if _fits(variable.data, self._specs[value])}
        steps = [_step(self.backend, node, ins, outs,
                       direct[outs[0]].data if outs and outs[0] in direct
                       else self._out_buffers(outs))
                 for node, ins, outs in self._schedule]
        self.planned = self._mode(steps, direct, arena=True)
        self.direct_updates = {id(variable) for variable in direct.values()}
        self.bound = [(variable, variable.data) for variable in self._direct.values()]

    def _mode(self, steps, direct: dict, arena: bool) -> _Mode:
        roots = self.memory.roots
        variable_roots = {i for _, i in self.variable_slots}
        shared = variable_roots | set(direct) | (set(self.memory.assignment) if arena else set())
        copied = [k for k, i in enumerate(self.output_slots)
                  if i is not None and roots.get(i, frozenset()) & shared]
        pending = [(variable, i) for variable, i in self.update_slots if i not in direct]
        slot_of = {id(variable): i for variable, i in self.variable_slots}
        overwritten = {slot_of[id(variable)] for variable, _ in pending
                       if id(variable) in slot_of}
        commits = [(variable, i, bool(roots.get(i, frozenset()) & overwritten))
                   for variable, i in pending]
        return _Mode(steps, copied, commits)

    @property
    def copied_outputs(self) -> list:
        return self.planned.copied_outputs

    def _out_buffers(self, outs):
        assignment = self.memory.assignment
        if not outs or not all(o in assignment for o in outs):
            return None
        buffers = tuple(self.arena[assignment[o]] for o in outs)
        return buffers if len(buffers) > 1 else buffers[0]

    def memory_report(self) -> MemoryReport:
        """Arena bytes, planned values, distinct buffers and their reuse ratio."""
        return report(self.memory)

    def __call__(self, arrays: list):
        if not self._lock.acquire(blocking=False):
            return self._run(arrays, self.plain)
        try:
            if any(variable.data is not buffer for variable, buffer in self.bound):
                self._bind()
            return self._run(arrays, self.planned)
        finally:
            self._lock.release()

    def _run(self, arrays: list, mode: _Mode):
        slots = list(self.template)
        for i, array in zip(self.input_slots, arrays):
            slots[i] = array
        for variable, i in self.variable_slots:
            slots[i] = variable.data
        backend = self.backend
        updated = self._updated
        for variable in updated:
            variable.before_write()        # eager snapshots of the old value (copy-on-write)
        try:
            for run, ins, outs, several, node in mode.steps:
                result = run(*[slots[i] for i in ins])
                if several:
                    for o, value in zip(outs, result):
                        slots[o] = value
                else:
                    slots[outs[0]] = result
        except Exception as error:          # the loop variables name the failing step
            raise describe_failure(node, [slots[i] for i in ins], error) from error
        results = [slots[i] if i is not None else value
                   for i, value in zip(self.output_slots, self._flat_outputs)]
        for k in mode.copied_outputs:
            results[k] = results[k].copy()
        values = [(variable, slots[i].copy() if snapshot else slots[i])
                  for variable, i, snapshot in mode.commits]
        for variable, value in values:
            backend.copy_(variable.data, value)
        for variable in updated:
            variable.after_write()
        return results


def _step(backend, node, ins, outs, out) -> tuple:
    """(run, input slots, output slots, several, node): ``run(*arrays)`` is the op's
    forward with the backend and attributes (``out`` included) bound once, or the kernel
    the op's ``bind`` returns for these inputs (no per-call dispatch)."""
    attrs = node.attrs if out is None else dict(node.attrs, out=out)
    bind = getattr(node.op, "bind", None)
    run = bind(backend, node.inputs, **attrs) if bind is not None else None
    if run is None:
        run = functools.partial(node.op.forward, backend, **attrs)
    if out is None and node.op.writes_out:     # C order, as in a buffer and eager mode
        run = _in_c_order(run)
    return (run, ins, outs, node.several, node)


def _in_c_order(run):
    def run_in_c_order(*arrays):
        return c_ordered(run(*arrays))
    return run_in_c_order


def _prepare_kernels(backend, schedule, shapes) -> None:
    """Make the primitives of the steps whose kernels make them (``Op.onednn_primitives``)
    now, while the plan is built, for the shapes this plan runs (``shapes``: concrete sizes
    of a batch-polymorphic graph): the first run then only computes."""
    for node, _, _ in schedule:
        if not node.op.onednn_primitives or not all(
                isinstance(x, TensorBase) for x in node.inputs):
            continue
        specs = [(shapes.get(id(x), tuple(x.shape)), x.dtype) for x in node.inputs]
        if all(d is not None for shape, _ in specs for d in shape):
            backend.prepare_kernel(functools.partial(node.op.forward, backend, **node.attrs),
                                   specs)


def _direct_updates(schedule, update_slots, variable_slots, memory) -> dict:
    """Update value slot -> variable, for the updates whose producing op may write straight
    into the variable's buffer: the op writes into ``out``, its value updates one variable
    only, and no reader of the variable's old value or of any view of it runs after the op
    (at the op itself only the old value itself, read by an ``inplace`` op)."""
    producer = {}
    for k, (node, ins, outs) in enumerate(schedule):
        for o in outs:
            producer[o] = (k, node, ins, outs)
    old_value = {id(variable): i for variable, i in variable_slots}
    uses = Counter(i for _, i in update_slots)
    direct = {}
    for variable, value in update_slots:
        if value not in producer or uses[value] > 1:
            continue
        k, node, ins, outs = producer[value]
        if len(outs) != 1 or not getattr(node.op, "writes_out", False):
            continue
        if tuple(node.outputs[0].shape) != tuple(variable.shape) or \
                node.outputs[0].dtype != variable.dtype:
            continue
        old = old_value.get(id(variable))
        if old is not None and not _last_read_before(old, k, node, ins, memory):
            continue
        direct[value] = variable
    return direct


def _last_read_before(old: int, k: int, node, ins, memory) -> bool:
    """Whether step ``k`` may overwrite the buffer of root ``old``: every read of it through
    any alias (graph outputs and update values count as reads after the last step) comes
    before ``k``, or at ``k`` as the very input an ``inplace`` op writes over."""
    last = memory.end.get(old, -1)
    if last != k:
        return last < k
    return getattr(node.op, "inplace", False) and \
        all(x == old or old not in memory.roots.get(x, ()) for x in ins)


def _fits(buffer, spec) -> bool:
    """Whether ``buffer`` can be an op's ``out``: C-contiguous, of the spec's shape and dtype."""
    shape, dtype = spec
    flags = getattr(buffer, "flags", None)
    return tuple(buffer.shape) == shape and str(buffer.dtype) == dtype and \
        flags is not None and flags.c_contiguous


def _literal(template: list, value) -> int:
    template.append(value)
    return len(template) - 1


def pack_results(graph: Graph, backend, results: list):
    """The traced function's output structure, arrays wrapped as Tensors."""
    leaves = [Tensor._wrap(r, backend) if isinstance(o, TensorBase) else r
              for o, r in zip(graph.flat_outputs, results)]
    return tree.pack_sequence_as(graph.outputs, leaves)
