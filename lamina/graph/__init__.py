"""Static graphs: the symbolic (spec-only) tensor shared by the functional API and the
tracer; tracing (trace.py), reverse mode on graphs (autodiff.py), the IR (ir.py), passes
(passes/) and the flat executor (executor.py); ``jit`` compiles a function."""
from ..ops import op as _op
from .symbolic import Node, SymbolicTensor, symbolic_apply

_op._symbolic_apply = symbolic_apply
_op._symbolic_type = SymbolicTensor

from .function import GraphFunction, jit  # noqa: E402  (needs the hooks above)
from .ir import Graph  # noqa: E402

__all__ = ["Node", "SymbolicTensor", "Graph", "GraphFunction", "jit"]
