"""Static graphs. For now: the symbolic (spec-only) tensor that shape inference, the
functional API and the tracer share."""
from ..ops import op as _op
from .symbolic import Node, SymbolicTensor, symbolic_apply

_op._symbolic_apply = symbolic_apply
_op._symbolic_type = SymbolicTensor

__all__ = ["Node", "SymbolicTensor"]
