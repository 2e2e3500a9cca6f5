"""Static graphs: the symbolic (spec-only) tensor shared by the functional API and the
tracer; tracing (trace.py), reverse mode on graphs (autodiff.py), the IR (ir.py), passes
(passes/) and the flat executor (executor.py); ``jit`` compiles a function."""
from ..ops import op as _op
from .symbolic import Node, SymbolicTensor, symbolic_apply

_op._symbolic_apply = symbolic_apply
_op._symbolic_type = SymbolicTensor

from .function import GraphFunction, jit  # noqa: E402  (needs the hooks above)
from .ir import Graph  # noqa: E402
from .dot import to_dot  # noqa: E402
from .errors import ExportError, GraphExecutionError  # noqa: E402
from .exported import ExportedModel, load_exported  # noqa: E402

__all__ = ["Node", "SymbolicTensor", "Graph", "GraphFunction", "jit", "to_dot",
           "load_exported", "ExportedModel", "GraphExecutionError", "ExportError"]
