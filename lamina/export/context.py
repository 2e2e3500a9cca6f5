"""``OnnxContext``: what a converter (``lamina/export/registry.py``) builds ONNX nodes with.

It names values (graph inputs, initializers, node outputs), holds the host values of
constants (weights and everything computed from weights alone) and collects the nodes and
initializers of the ONNX graph being written.
"""
from __future__ import annotations

import itertools

from ..core.tensor import TensorBase
from ..core.symbolic import SymbolicTensor
from .registry import OnnxExportError

# Lamina dtype name -> ONNX TensorProto element type
ONNX_DTYPES = {"float32": 1, "uint8": 2, "int8": 3, "uint16": 4, "int16": 5, "int32": 6,
               "int64": 7, "bool": 9, "float16": 10, "float64": 11, "uint32": 12,
               "uint64": 13, "bfloat16": 16}


def onnx_dtype(dtype: str, where: str = "export") -> int:
    """The ONNX element type of a Lamina dtype (every Lamina dtype has one)."""
    return ONNX_DTYPES[str(dtype)]


class OnnxContext:
    def __init__(self, opset: int, backend):
        self.opset = opset
        self.backend = backend            # the numpy backend: constants are host arrays
        self.nodes: list = []             # onnx NodeProto
        self.initializers: list = []      # onnx TensorProto
        self.names: dict[int, str] = {}   # id(tensor) -> ONNX value name
        self.values: dict[int, object] = {}   # id(tensor) -> host array (constants)
        self._keep: list = []             # keeps the ids above alive
        self._used: set = set()
        self._counter = itertools.count(1)

    # ---------------------------------------------------------------- names and values
    def fresh(self, hint: str = "v") -> str:
        hint = "".join(c if c.isalnum() or c in "_/.:" else "_" for c in hint) or "v"
        while True:
            name = f"{hint}_{next(self._counter)}"
            if name not in self._used:
                self._used.add(name)
                return name

    def subgraph(self) -> "OnnxContext":
        """A context for a subgraph's nodes (a Scan body): names, constants and initializers
        are shared with this one (a subgraph reads the outer graph's values by name)."""
        child = OnnxContext.__new__(OnnxContext)
        child.__dict__.update(self.__dict__)
        child.nodes = []
        return child

    def taken(self, name: str) -> bool:
        return name in self._used

    def reserve(self, name: str) -> str:
        self._used.add(name)
        return name

    def bind(self, tensor, name: str) -> None:
        self._keep.append(tensor)
        self.names[id(tensor)] = name

    def set_value(self, tensor, array) -> None:
        self._keep.append(tensor)
        self.values[id(tensor)] = array

    def value(self, x):
        """The host value of ``x`` when it is a constant (a weight, a folded value, a
        literal), else None."""
        if not isinstance(x, TensorBase):
            return x
        if id(x) not in self.values and not isinstance(x, SymbolicTensor):
            self.set_value(x, self.backend.asarray(x.numpy()))   # a captured constant
        return self.values.get(id(x))

    def is_constant(self, x) -> bool:
        return not isinstance(x, SymbolicTensor) or id(x) in self.values

    def name_of(self, x, hint: str = "const") -> str:
        """The ONNX value name of ``x`` (a constant becomes an initializer on first use)."""
        if isinstance(x, TensorBase) and id(x) in self.names:
            return self.names[id(x)]
        value = self.value(x)
        if value is None and isinstance(x, TensorBase):
            raise OnnxExportError(f"export(format='onnx'): value {x!r} is neither a graph "
                                  f"input nor computed by a converted node")
        name = self.constant(value, hint=getattr(x, "name", None) or hint,
                             dtype=getattr(x, "dtype", None))
        if isinstance(x, TensorBase):
            self.bind(x, name)
        return name

    def inputs(self, node) -> list:
        return [self.name_of(x) for x in node.inputs]

    def shape(self, x) -> tuple:
        return tuple(x.shape) if isinstance(x, TensorBase) else ()

    # ---------------------------------------------------------------- building
    def constant(self, value, hint: str = "const", dtype: str | None = None) -> str:
        """An initializer holding ``value`` (a host array, a Python number or a list)."""
        from onnx import numpy_helper
        array = self.backend.asarray(value, dtype=dtype) if dtype is not None else \
            self.backend.asarray(value)
        if str(array.dtype) == "float64" and dtype is None and not hasattr(value, "dtype"):
            array = array.astype("float32")
        name = self.fresh(hint)
        self.initializers.append(numpy_helper.from_array(array, name))
        return name

    def ints(self, values, hint: str = "shape") -> str:
        """An int64 1-D initializer (shapes, axes, pads)."""
        return self.constant(list(values) if values else self.backend.asarray([], "int64"),
                             hint=hint, dtype="int64")

    def add_node(self, op_type: str, inputs, outputs: int | list = 1, domain: str = "",
                 name: str | None = None, **attrs):
        """Append an ONNX node; returns its output name (or the list, ``outputs`` > 1)."""
        from onnx import helper
        if isinstance(outputs, int):
            out_names = [self.fresh(op_type) for _ in range(outputs)]
        else:
            out_names = list(outputs)
        self.nodes.append(helper.make_node(op_type, list(inputs), out_names,
                                           name=name or self.fresh(f"{op_type}_node"),
                                           domain=domain or None, **attrs))
        return out_names[0] if isinstance(outputs, int) and outputs == 1 else out_names

    def fail(self, node, why: str):
        layer = f" (layer '{node.layer}')" if getattr(node, "layer", None) else ""
        raise OnnxExportError(f"export(format='onnx'): op '{node.op.name}'{layer} has no "
                              f"ONNX form: {why}")
