"""``lamina.graph.load_exported(path)``: run a file written by ``model.export`` with the op
registry alone -- ops by name from ``OP_REGISTRY``, weights and constants as arrays, JSON
for the rest; no model code is imported and nothing is unpickled. The file layout and the
batch-size rule are described in ``lamina/graph/export.py``.
"""
from __future__ import annotations

import json

from .. import tree
from ..core.tensor import TensorBase
from ..backend import get_backend
from ..dtypes import is_float
from ..errors import DTypeError, LaminaError, ShapeError, describe_shape
from ..h5_guard import check_contained, read_dataset
from . import passes
from .errors import ExportError
from .executor import Plan
from .export import FORMAT, FORMAT_VERSION, graph_digest
from .export_codec import decode_structure
from .rebuild import rebuild_graph


class ExportedModel:
    """A loaded inference graph: ``exported(x)`` -> host numpy outputs, in the model's
    output structure. ``x`` has the model's input structure; any number of rows."""

    def __init__(self, name: str, graph, plan, backend, input_structure, output_structure):
        self.name = name
        self.graph = graph                 # a Graph: ``lamina.graph.to_dot(m.graph)``
        self.backend = backend
        self._plan = plan
        self._input_structure = input_structure
        self._output_structure = output_structure
        self.batch_size = graph.inputs[0].shape[0] if graph.inputs else None
        self.variables = [variable for variable, _ in graph.variables]

    @property
    def input_specs(self) -> list:
        return [(x.name, x.shape, x.dtype) for x in self.graph.inputs]

    def __call__(self, x):
        arrays = self._arrays(x)
        rows = arrays[0].shape[0] if arrays else self.batch_size
        if rows == self.batch_size or not arrays:
            flat = self._plan(arrays)
        else:
            flat = self._chunked(arrays, rows)
        flat = [self.backend.to_host(r).copy() if self.backend.is_array(r) else r
                for r in flat]
        return tree.pack_sequence_as(self._output_structure, flat)

    def _arrays(self, x) -> list:
        expected = self._input_structure
        if isinstance(expected, dict) and (not isinstance(x, dict) or set(x) != set(expected)):
            received = sorted(x) if isinstance(x, dict) else type(x).__name__
            raise ValueError(f"exported model {self.name!r}: inputs must be a dict with keys "
                             f"{sorted(expected)}; received {received}")
        leaves = tree.flatten(x)
        specs = self.graph.inputs
        if len(leaves) != len(specs):
            raise ValueError(f"exported model {self.name!r}: expected {len(specs)} input "
                             f"array(s) {[s.name for s in specs]}; received {len(leaves)}")
        arrays, rows = [], None
        for leaf, spec in zip(leaves, specs):
            array = leaf.numpy() if isinstance(leaf, TensorBase) else leaf
            array = self.backend.asarray(array)
            dtype = str(array.dtype)
            if dtype != spec.dtype:
                if is_float(dtype) and not is_float(spec.dtype):
                    raise DTypeError(f"exported model {self.name!r}: input '{spec.name}' "
                                     f"must be {spec.dtype}; received {dtype}")
                array = self.backend.cast(array, spec.dtype)
            if tuple(array.shape[1:]) != tuple(spec.shape[1:]) or not array.shape:
                raise ShapeError(f"exported model {self.name!r}: input '{spec.name}' must "
                                 f"have shape {describe_shape((None, *spec.shape[1:]))}; "
                                 f"received {describe_shape(array.shape)}")
            if rows not in (None, array.shape[0]):
                raise ShapeError(f"exported model {self.name!r}: all inputs must have the "
                                 f"same number of rows; received {rows} and {array.shape[0]}")
            rows = array.shape[0]
            arrays.append(array)
        if rows == 0:
            raise ValueError(f"exported model {self.name!r}: the inputs have no rows")
        return arrays

    def _chunked(self, arrays: list, rows: int) -> list:
        """Run batches of ``batch_size`` rows (the last one padded with copies of its
        last row) and join the outputs; only for outputs that have the batch dimension."""
        backend, size, pieces = self.backend, self.batch_size, []
        for start in range(0, rows, size):
            chunk = [backend.getitem(a, (slice(start, start + size),)) for a in arrays]
            short = size - chunk[0].shape[0]
            if short:
                chunk = [backend.concatenate([c, *[backend.getitem(c, (slice(-1, None),))]
                                              * short], 0) for c in chunk]
            outputs = self._plan(chunk)
            for o in outputs:
                if not backend.is_array(o) or not o.shape or o.shape[0] != size:
                    raise ShapeError(
                        f"exported model {self.name!r} was traced at batch size {size} and "
                        f"its outputs do not all have that batch dimension, so it runs only "
                        f"on {size} rows; received {rows}")
            keep = size - short          # copies: the next run may reuse the buffers
            pieces.append([backend.getitem(o, (slice(0, keep),)).copy() for o in outputs])
        return [backend.concatenate(list(parts), 0) for parts in zip(*pieces)]

    def __repr__(self) -> str:
        return (f"<ExportedModel {self.name!r}: {len(self.graph.nodes)} nodes, "
                f"batch size {self.batch_size}>")


def load_exported(filepath, backend=None) -> ExportedModel:
    """Load a file written by ``model.export`` onto ``backend`` (default: the active one)."""
    backend = get_backend(backend)
    try:
        return _load(filepath, backend)
    except LaminaError as exc:
        if str(filepath) in str(exc):
            raise
        raise ExportError(f"load_exported: cannot load '{filepath}': {exc}") from None
    except Exception as exc:            # h5py's OSError/KeyError/RuntimeError, json, ...
        raise ExportError(f"load_exported: cannot load '{filepath}': the file is damaged or "
                          f"not a graph written by model.export ({type(exc).__name__}: "
                          f"{exc})") from None


def _load(filepath, backend) -> ExportedModel:
    import h5py
    with h5py.File(str(filepath), "r") as f:
        check_contained(f, filepath)
        if f.attrs.get("format") != FORMAT:
            raise ExportError(f"load_exported: '{filepath}' is not a graph written by "
                              f"model.export (format {f.attrs.get('format')!r})")
        version = int(f.attrs["format_version"])
        if version > FORMAT_VERSION:
            raise ExportError(f"load_exported: '{filepath}' has format version {version}; "
                              f"this Lamina reads up to {FORMAT_VERSION}")
        name = str(f.attrs["name"])
        texts = list(read_dataset(f["graph/nodes"], filepath, as_text=True))
        signature_text = read_dataset(f["graph/signature"], filepath, as_text=True)
        if version >= 2 and f.attrs.get("graph_sha256") != graph_digest(texts,
                                                                       signature_text):
            raise ExportError(f"load_exported: '{filepath}': the graph's JSON does not match "
                              f"its SHA-256 (attribute 'graph_sha256'): the file was damaged "
                              f"after it was written; export the model again")
        nodes = [json.loads(text) for text in texts]
        signature = json.loads(signature_text)
        variables = [(read_dataset(f["variables"][str(i)], filepath),
                      str(f["variables"][str(i)].attrs["path"]))
                     for i in range(len(f["variables"]))]
        constants = [read_dataset(f["constants"][str(i)], filepath)
                     for i in range(len(f["constants"]))]
    graph = rebuild_graph(name, nodes, signature, variables, constants, backend)
    return ExportedModel(name, graph, Plan(graph, backend), backend,
                         decode_structure(signature["input_structure"]),
                         decode_structure(signature["output_structure"]))


__all__ = ["ExportedModel", "load_exported"]
