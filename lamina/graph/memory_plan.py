"""The memory plan: which buffer of a per-plan arena each intermediate value is computed in.

The executor's schedule (forward, backward and optimizer update in one list) is simulated
once, as MXNet's ``PlanMemory`` does (reference/graph.md, §2.2 and §5):

1. **Aliases.** An op with ``writes_out`` computes into a buffer of its own; every other op
   (reshape, transpose, getitem, ...) may return a view of its inputs, so its outputs are
   taken to alias every planned buffer its inputs alias.
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
    arena buffer; ``inplace``: how many outputs were written over a dying input."""
    buffers: list
    assignment: dict
    aliasing: frozenset
    inplace: int


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


def plan_memory(schedule, specs: dict, external, keep) -> MemoryPlan:
    """Plan the arena of ``schedule``, a list of ``(op, input slots, output slots)``.

    ``specs``: slot -> (shape, dtype) of every node output; ``external``: slots that must
    not be planned (graph inputs, variables, constants, graph outputs); ``keep``: slots read
    after the last step (graph outputs, variable updates).
    """
    external = set(external)
    end_of_schedule = len(schedule)
    planned_steps = [
        op.writes_out and all(o not in external and _concrete(specs.get(o)) for o in outs)
        for op, _, outs in schedule]

    # 1. aliases: slot -> the planned slots (buffer owners) its array may share memory with
    roots: dict[int, frozenset] = {}
    defined_at: dict[int, int] = {}
    for i, ((op, ins, outs), planned) in enumerate(zip(schedule, planned_steps)):
        if planned:
            shared = None
        elif op.writes_out:
            shared = frozenset()                   # a fresh array each call
        else:
            shared = frozenset().union(*(roots.get(x, frozenset()) for x in ins))
        for o in outs:
            roots[o] = frozenset((o,)) if planned else shared
            defined_at[o] = i

    # 2. lifetimes: the last step that reads each buffer through any alias
    last_read = dict(defined_at)                   # a value nobody reads dies where it is made
    for i, (_, ins, _) in enumerate(schedule):
        for x in ins:
            last_read[x] = i
    for x in keep:
        last_read[x] = end_of_schedule
    end: dict[int, int] = {}
    for slot, owners in roots.items():
        for owner in owners:
            end[owner] = max(end.get(owner, -1), last_read[slot])
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
            if owner not in reused:
                free.setdefault(specs[owner], []).append(assignment[owner])
    aliasing = frozenset(slot for slot, owners in roots.items() if owners)
    return MemoryPlan(buffers, assignment, aliasing, inplace)


def _inplace_donor(op, step, ins, out, spec, specs, assignment, end, roots, reused):
    """The input whose buffer ``out`` can take over at ``step``, or None."""
    for x in ins:
        if x in assignment and x not in reused and end[x] == step and specs[x] == spec:
            # another input that is a view of x would be read while x is overwritten
            if all(y == x or x not in roots.get(y, ()) for y in ins):
                return x
    return None
