"""A traced function as a flat plan: pre-bound kernel calls over numbered slots.

Running a plan walks a Python list once: no graph objects, no tape, no spec checks. Slots
hold the step's inputs, the variables' buffers (bound at every call, so in-place updates
are seen), constants captured while tracing, and every node's outputs. After the last
kernel, the recorded updates are written into the variables in place. A kernel that fails
raises a ``GraphExecutionError`` naming the layer and op its node came from (errors.py).

Intermediate values live in an arena allocated once per plan (``memory_plan.py`` decides
which value shares which buffer): ops that can write into a given buffer get it as
``out=``, bound into their attributes ahead of time, so a steady-state step allocates
nothing for them. Outputs are computed fresh (or copied out of the arena) every call, so a
later call never overwrites what an earlier one returned. A call that arrives while the
plan is running (another thread, or re-entry) runs without the arena.
"""
from __future__ import annotations

import threading

from .. import tree
from ..autograd.tensor import Tensor, TensorBase
from .errors import describe_failure
from .ir import Graph
from .memory_plan import MemoryPlan, MemoryReport, plan_memory, report


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
        self.output_slots = [slot(o) if isinstance(o, TensorBase) else None
                             for o in graph.flat_outputs]
        self.update_slots = [(variable, slot(value)) for variable, value in graph.updates]
        self.template = template

        outputs = {i for i in self.output_slots if i is not None}
        external = set(self.input_slots) | {i for _, i in self.variable_slots} | outputs | \
            {i for i, value in enumerate(template) if value is not None}
        keep = outputs | {i for _, i in self.update_slots}
        self.memory = plan_memory([(node.op, ins, outs) for node, ins, outs in schedule],
                                  specs, external, keep) if memory_plan else \
            MemoryPlan([], {}, frozenset(), 0)
        self.arena = [backend.empty(shape, dtype) for shape, dtype in self.memory.buffers]
        self.plain_steps = [_step(node, ins, outs, None) for node, ins, outs in schedule]
        direct = _direct_updates(schedule, self.update_slots, self.variable_slots,
                                 outputs) if memory_plan else {}
        self.steps = [_step(node, ins, outs, direct[outs[0]] if outs and outs[0] in direct
                            else self._out_buffers(outs))
                      for node, ins, outs in schedule]
        # Updates whose last op writes straight into the variable need no copy; valid while
        # the variables keep the buffers the plan was built with.
        self.direct_updates = {id(variable) for variable, i in self.update_slots
                               if i in direct}
        self.bound = [(variable, variable.data) for variable, i in self.update_slots
                      if i in direct]
        # outputs that may be views of arena buffers are copied out at the end of a call
        self.copied_outputs = [k for k, i in enumerate(self.output_slots)
                               if i in self.memory.aliasing]
        self._lock = threading.Lock()

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
        if not self._lock.acquire(blocking=False) or \
                any(variable.data is not buffer for variable, buffer in self.bound):
            return self._run(arrays, self.plain_steps, (), frozenset())
        try:
            return self._run(arrays, self.steps, self.copied_outputs, self.direct_updates)
        finally:
            self._lock.release()

    def _run(self, arrays: list, steps: list, copied_outputs, direct):
        slots = list(self.template)
        for i, array in zip(self.input_slots, arrays):
            slots[i] = array
        for variable, i in self.variable_slots:
            slots[i] = variable.data
        backend = self.backend
        try:
            for forward, ins, outs, attrs, several, node in steps:
                result = forward(backend, *[slots[i] for i in ins], **attrs)
                if several:
                    for o, value in zip(outs, result):
                        slots[o] = value
                else:
                    slots[outs[0]] = result
        except Exception as error:          # the loop variables name the failing step
            raise describe_failure(node, [slots[i] for i in ins], error) from error
        written = {id(variable.data) for variable, _ in self.update_slots}
        results = [slots[i] if i is not None else value
                   for i, value in zip(self.output_slots, self.graph.flat_outputs)]
        for k in copied_outputs:
            results[k] = results[k].copy()
        results = [_detach(r, written) for r in results]
        pending = [(variable, _detach(slots[i], written)) for variable, i in self.update_slots
                   if id(variable) not in direct]
        for variable, value in pending:
            backend.copy_(variable.data, value)
        for variable, _ in self.update_slots:
            variable._version += 1
        return results


def _step(node, ins, outs, out) -> tuple:
    """(forward, input slots, output slots, attributes with ``out`` bound, several, node)."""
    attrs = node.attrs if out is None else dict(node.attrs, out=out)
    return (node.op.forward, ins, outs, attrs, len(node.outputs) > 1, node)


def _direct_updates(schedule, update_slots, variable_slots, outputs) -> dict:
    """Update value slot -> the variable's buffer, for updates whose producing op can write
    straight into the variable: it writes into ``out``, it is the last reader of the
    variable's old value (in place when it reads that value itself), and the old value is
    neither an output nor another update's value."""
    producer, last_read = {}, {}
    for k, (node, ins, outs) in enumerate(schedule):
        for o in outs:
            producer[o] = (k, node, ins, outs)
        for i in ins:
            last_read[i] = k
    old_value = {id(variable): i for variable, i in variable_slots}
    update_values = {i for _, i in update_slots}
    direct = {}
    for variable, value in update_slots:
        if value not in producer:
            continue
        k, node, ins, outs = producer[value]
        if len(outs) != 1 or not getattr(node.op, "writes_out", False):
            continue
        old = old_value.get(id(variable))
        if old is not None:
            if old in outputs or old in update_values or last_read.get(old, -1) > k:
                continue
            if old in ins and not getattr(node.op, "inplace", False):
                continue
        if tuple(node.outputs[0].shape) != tuple(variable.shape) or \
                node.outputs[0].dtype != variable.dtype:
            continue
        direct[value] = variable.data
    return direct


def _literal(template: list, value) -> int:
    template.append(value)
    return len(template) - 1


def _detach(value, written: set):
    """A copy of ``value`` when it is (a view of) a buffer about to be overwritten."""
    if id(value) in written or id(getattr(value, "base", None)) in written:
        return value.copy()
    return value


def pack_results(graph: Graph, backend, results: list):
    """The traced function's output structure, arrays wrapped as Tensors."""
    leaves = [Tensor._wrap(r, backend) if isinstance(o, TensorBase) else r
              for o, r in zip(graph.flat_outputs, results)]
    return tree.pack_sequence_as(graph.outputs, leaves)
