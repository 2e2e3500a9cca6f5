"""Which graph values have the same memory layout whichever way the graph computes them.

A value's layout decides numbers: BLAS sums a matrix product in another order when an
operand arrives in another layout (C order, Fortran order, a broadcast with zero strides),
so the product of the same values rounds differently. Eager mode and a graph plan give
every ``writes_out`` op's result in C order (``lamina.core.op.c_ordered``), and views
(reshape, transpose, slices, broadcasts) lay their input out the same way in both modes.

A pass that replaces a computed value by another one holding the same numbers (``x * 1``
by ``x``) must therefore also keep its layout, or the matmul reading it no longer gives
eager mode's bits: :func:`layout_kept` says whether it may.
"""
from __future__ import annotations

from ..core.tensor import Tensor
from ..ops.elementwise import Binary, Unary

RESHAPES = ("reshape", "expand_dims", "squeeze")    # of a C-ordered array: a C-ordered view
SAME_ARRAY = ("stop_gradient", "read_value")        # the input array itself
# Ops whose results do not depend on how their inputs are laid out (and come out in C
# order): element by element.
ELEMENTWISE = ("cast", "where", "clip", "relu", "make_complex")


def surely_c_ordered(value, graph) -> bool:
    """True when ``value`` is a C-ordered array whenever ``graph`` runs, in every mode:
    a ``writes_out`` op's result, a reshape of such a value, a constant laid out so, or a
    variable (Variables hold C-ordered buffers). A graph input is the caller's array, laid
    out as the caller made it: not known."""
    while True:
        if isinstance(value, Tensor):
            return bool(value.data.flags.c_contiguous)
        node = getattr(value, "node", None)
        if node is None:
            return any(p is value for _, p in graph.variables)
        if node.op.writes_out:
            return True
        if node.op.name not in RESHAPES + SAME_ARRAY:
            return False
        value = node.inputs[0]


def reads_elementwise(node) -> bool:
    """True for a node whose results do not depend on its inputs' layouts."""
    return isinstance(node.op, (Unary, Binary)) or node.op.name in ELEMENTWISE


def layout_kept(uses, old, new) -> bool:
    """May ``new`` (equal numbers) replace ``old`` without changing a number downstream?
    ``old`` is a ``writes_out`` op's result (C-ordered) or a reshape of a reshape of what
    ``new`` reshapes (C-ordered when that is). Yes when ``new`` is C-ordered, or when only
    elementwise ops read ``old`` (graph outputs and updates count as other readers)."""
    if surely_c_ordered(new, uses.graph):
        return True
    return not uses.is_root(old) and all(reads_elementwise(r) for r in uses.readers_of(old))
