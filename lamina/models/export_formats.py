"""The formats ``Model.export(filepath, format=...)`` writes, looked up by name.

A format is registered by the package that writes it: ``"lamina"`` (the optimized inference
graph in one h5 file) by ``models/graph_methods.py``, ``"onnx"`` by ``lamina/export``. So
the models know no exporter, and an exporter added later needs no change here.
"""
from __future__ import annotations

from typing import Callable

from ..errors import LaminaError

_FORMATS: dict[str, Callable] = {}


class ExportFormatError(LaminaError, ValueError, NotImplementedError):
    """A format Keras exports on other backends (TensorFlow's SavedModel), which Lamina
    cannot write: Keras raises NotImplementedError for it there."""
# Keras's formats that need TensorFlow or OpenVINO, named in the error for an unknown one.
_KERAS_ONLY = ("tf_saved_model", "openvino", "litert")


def register_export_format(name: str, writer: Callable) -> None:
    """``writer(model, filepath, verbose=..., input_signature=..., **kwargs)`` writes
    ``model`` in the format ``name``; it checks its own keyword arguments."""
    if not isinstance(name, str) or not name:
        raise TypeError(f"register_export_format: argument 'name' must be a non-empty "
                        f"string; received {name!r}")
    if name in _FORMATS and _FORMATS[name] is not writer:
        raise ValueError(f"register_export_format: the format {name!r} is already "
                         f"registered")
    _FORMATS[name] = writer


def export_writer(model_name: str, format: str) -> Callable:
    """The writer of ``format``, or a ValueError naming the formats there are."""
    writer = _FORMATS.get(format)
    if writer is None:
        known = " or ".join(repr(f) for f in sorted(_FORMATS))
        if format == "tf_saved_model":       # Keras's words for a backend without it
            raise ExportFormatError(f"{model_name}.export: `export_saved_model` only "
                                    f"currently supports the tensorflow, jax and torch "
                                    f"backends; Lamina cannot write format='tf_saved_model' "
                                    f"(it needs TensorFlow). Use format={known}")
        raise ValueError(f"{model_name}.export: Unrecognized format={format!r}: argument "
                         f"'format' must be {known} (Keras's "
                         f"{', '.join(repr(f) for f in _KERAS_ONLY)} need TensorFlow / "
                         f"OpenVINO)")
    return writer
