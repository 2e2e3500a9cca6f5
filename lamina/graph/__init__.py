"""Static graphs, built on the spec-only tensor of ``lamina/core`` (re-exported here):
tracing (trace.py), reverse mode on graphs (autodiff.py), the IR (ir.py), passes (passes/)
and the flat executor (executor.py); ``jit`` compiles a function."""
from ..core.symbolic import Node, SymbolicTensor
from ..core import mode as _mode
from .autodiff import gradients as _gradients
from .function import GraphFunction, jit
from .ir import Graph
from .dot import to_dot
from .errors import ExportError, GraphExecutionError
from .exported import ExportedModel, load_exported

# The tape (a GradientTape inside a trace) and a scan's backward step differentiate traced
# graphs with graph autodiff, through core/mode: neither autograd nor ops imports graph.
_mode.register(gradients=_gradients)

__all__ = ["Node", "SymbolicTensor", "Graph", "GraphFunction", "jit", "to_dot",
           "load_exported", "ExportedModel", "GraphExecutionError", "ExportError"]
