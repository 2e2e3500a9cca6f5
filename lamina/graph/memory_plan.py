"""The memory plan: which buffer of a per-plan arena each intermediate value is computed in.

The executor's schedule (forward, backward and optimizer update in one list) is simulated
once, as MXNet's ``PlanMemory`` does (reference/graph.md, §2.2 and §5):

1. **Aliases.** An op with ``writes_out`` computes into a buffer of its own; every other op
   (reshape, transpose, getitem, stop_gradient, ...) may return a view of its inputs, so
   its outputs are taken to alias every buffer its inputs alias. The roots of this
   analysis are the planned buffers and the caller's ``sources`` (the variables' buffers
   and the update values): the executor uses the same analysis to decide which variable
   updates may be written in place and which outputs must be copied (executor.py).
2. **Lifetimes.** A buffer lives until the last reader of any value aliasing it has run;
   graph outputs and variable updates are read after the last step.
3. **Assignment**, in schedule order: an ``inplace`` op writes into an input's buffer when
   that input dies at this op and has the output's shape and dtype (and no other input
   aliases it); otherwise the output takes a free buffer of its (shape, dtype) from the
   pool, or a new one. Buffers go back to the pool after the step that last reads them.

Graph inputs, variables, constants and graph outputs are never planned: the caller owns
inputs and variables, and outputs are computed fresh every call so a later step cannot
overwrite what an earlier call returned.
"""
from __future__ import annotations

from typing import NamedTuple

from ..dtypes import itemsize


class MemoryPlan(NamedTuple):
    """``buffers``: (shape, dtype) per buffer id; ``assignment``: slot -> buffer id of the
    values computed into the arena; ``aliasing``: slots whose array may be (a view of) an
    arena buffer; ``inplace``: how many outputs were written over a dying input;
    ``roots``: slot -> the root slots (planned buffers and sources) its array may share
    memory with; ``end``: root -> the last step that reads it through any alias (the
    length of the schedule for values read after it, -1 for a root nobody reads)."""
    buffers: list
    assignment: dict
    aliasing: frozenset
    inplace: int
    roots: dict = {}
    end: dict = {}


class MemoryReport(NamedTuple):
    arena_bytes: int      # the arena: every planned buffer once
    naive_bytes: int      # one buffer per planned value, no reuse
    values: int           # values computed into the arena
    buffers: int          # distinct buffers they share
    inplace: int          # outputs written over a dying input of the same op

    @property
    def reuse_ratio(self) -> float:
        """Planned values per buffer (1.0: no reuse)."""
        return self.values / self.buffers if self.buffers else 1.0

    def __str__(self) -> str:
        return (f"arena {self.arena_bytes / 2**20:.2f} MiB for {self.values} values in "
                f"{self.buffers} buffers (reuse {self.reuse_ratio:.2f}x, {self.inplace} in "
                f"place; {self.naive_bytes / 2**20:.2f} MiB without reuse)")


def report(plan: MemoryPlan) -> MemoryReport:
    def nbytes(spec) -> int:
        shape, dtype = spec
        count = 1
        for d in shape:
            count *= d
        return count * itemsize(dtype)
    arena = sum(nbytes(spec) for spec in plan.buffers)
    naive = sum(nbytes(plan.buffers[b]) for b in plan.assignment.values())
    return MemoryReport(arena, naive, len(plan.assignment), len(plan.buffers), plan.inplace)


def _concrete(spec) -> bool:
    return spec is not None and all(isinstance(d, int) for d in spec[0])


def plan_memory(schedule, specs: dict, external, keep, sources=(),
                arena: bool = True) -> MemoryPlan:
    """Plan the arena of ``schedule``, a list of ``(op, input slots, output slots)``.

    ``specs``: slot -> (shape, dtype) of every node output; ``external``: slots that must
    not be planned (graph inputs, variables, constants, graph outputs); ``keep``: slots read
    after the last step (graph outputs, variable updates); ``sources``: further alias roots
    (variable buffers, update values); ``arena=False`` plans no buffer, only the aliases.
    """
    external = set(external)
    planned_steps = [
        arena and op.writes_out and
        all(o not in external and _concrete(specs.get(o)) for o in outs)
        for op, _, outs in schedule]
    roots, end = alias_roots(schedule, planned_steps, sources, keep)

    dying: dict[int, list] = {}
    for owner, step in end.items():
        dying.setdefault(step, []).append(owner)

    # 3. assignment by simulation
    buffers: list = []
    assignment: dict[int, int] = {}
    free: dict[tuple, list] = {}
    inplace = 0
    for i, ((op, ins, outs), planned) in enumerate(zip(schedule, planned_steps)):
        reused = set()
        if planned:
            for o in outs:
                spec = specs[o]
                donor = _inplace_donor(op, i, ins, o, spec, specs, assignment, end, roots,
                                       reused) if op.inplace else None
                if donor is not None:
                    reused.add(donor)
                    assignment[o] = assignment[donor]
                    inplace += 1
                elif free.get(spec):
                    assignment[o] = free[spec].pop()
                else:
                    assignment[o] = len(buffers)
                    buffers.append(spec)
        for owner in dying.get(i, ()):
            if owner in assignment and owner not in reused:
                free.setdefault(specs[owner], []).append(assignment[owner])
    aliasing = frozenset(slot for slot, owners in roots.items()
                         if any(owner in assignment for owner in owners))
    return MemoryPlan(buffers, assignment, aliasing, inplace, roots, end)


def alias_roots(schedule, planned_steps, sources, keep) -> tuple[dict, dict]:
    """Steps 1 and 2: (slot -> the roots its array may share memory with, root -> the last
    step reading it through any alias). Roots are the outputs of planned steps and
    ``sources``; ``keep`` slots are read after the last step."""
    sources = set(sources)
    roots: dict[int, frozenset] = {s: frozenset((s,)) for s in sources}
    defined_at: dict[int, int] = {}
    for i, ((op, ins, outs), planned) in enumerate(zip(schedule, planned_steps)):
        if planned or op.writes_out:
            shared = frozenset()                   # its own buffer, or a fresh array
        else:
            shared = frozenset().union(*(roots.get(x, frozenset()) for x in ins))
        for o in outs:
            roots[o] = shared | {o} if planned or o in sources else shared
            defined_at[o] = i

    last_read = dict(defined_at)                   # a value nobody reads dies where it is made
    for i, (_, ins, _) in enumerate(schedule):
        for x in ins:
            last_read[x] = i
    for x in keep:
        last_read[x] = len(schedule)
    end: dict[int, int] = {}
    for slot, owners in roots.items():
        for owner in owners:
            end[owner] = max(end.get(owner, -1), last_read.get(slot, -1))
    return roots, end


def _inplace_donor(op, step, ins, out, spec, specs, assignment, end, roots, reused):
    """The input whose buffer ``out`` can take over at ``step``, or None."""
    for x in ins:
        if x in assignment and x not in reused and end[x] == step and specs[x] == spec:
            # another input that is a view of x would be read while x is overwritten
            if all(y == x or x not in roots.get(y, ()) for y in ins):
                return x
    return None
