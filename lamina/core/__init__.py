"""The symbolic layer below ``lamina.ops``: the spec-only tensor and the node that records an
op applied to it (``symbolic.py``), and the name of the layer whose ``call`` is running
(``layer_path.py``), which every recorded node keeps.

It imports only ``lamina.core.tensor`` (the operator mixin), ``lamina.dtypes`` and
``lamina.errors``: ``ops`` binds ``symbolic_apply`` as its symbolic dispatch, ``graph``
(the compiler) and ``layers`` build on it, and it knows neither.
"""
from .layer_path import current_layer_path
from .symbolic import Node, SymbolicTensor, symbolic_apply

__all__ = ["Node", "SymbolicTensor", "symbolic_apply", "current_layer_path"]
