"""Static graphs, built on the spec-only tensor of ``lamina/core`` (re-exported here):
tracing (trace.py), reverse mode on graphs (autodiff.py), the IR (ir.py), passes (passes/)
and the flat executor (executor.py); ``jit`` compiles a function."""
from ..core.symbolic import Node, SymbolicTensor
from ..ops import step_program as _step_program
from ..ops import loop_tracing as _loop_tracing
from .autodiff import gradients as _gradients
from .function import GraphFunction, jit
from .ir import Graph
from .dot import to_dot
from .trace import active as _active_trace
from .errors import ExportError, GraphExecutionError
from .exported import ExportedModel, load_exported

_step_program._gradients = _gradients     # a scan's backward step (ops cannot import graph)
_loop_tracing._active_trace = _active_trace   # control flow traced into a graph

__all__ = ["Node", "SymbolicTensor", "Graph", "GraphFunction", "jit", "to_dot",
           "load_exported", "ExportedModel", "GraphExecutionError", "ExportError"]
