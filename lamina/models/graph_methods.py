"""Graph inspection and export for models, as a mixin of ``lamina.Model``.

- ``model.graph(x)`` is the optimized graph that ``predict`` runs for a batch like ``x``;
  ``step="train"``/``"test"`` (with ``y``) gives the training/evaluation step's graph;
  ``passes=[]`` gives the traced graph before any pass, a list of pass names a prefix of
  the pipeline. ``lamina.graph.to_dot(model.graph(x))`` draws it.
- ``model.graph_report(x)`` lists, per pass, the node count before and after it.
- ``model.export(path, format="onnx")`` writes an ONNX model (``lamina/export`` registers
  the format, ``models/export_formats.py``).
- ``model.export(path)`` writes the optimized inference graph and the weights to one h5
  file that ``lamina.graph.load_exported(path)`` runs without the model's classes
  (``lamina.graph.export.write_graph`` writes it; the file layout is described there).
"""
from __future__ import annotations

from typing import NamedTuple

from .. import ops, tree
from ..data_adapters.device_batch import to_device
from ..graph import passes as registry
from ..graph.errors import ExportError
from ..graph.export import write_graph
from ..graph.function import GraphFunction
from ..saving.atomic import atomic_image
from ..trainers.compiled_step import CompiledStep
from .export_formats import export_writer, register_export_format

STEPS = ("predict", "train", "test")


class PassReport(NamedTuple):
    """One pass of the pipeline: its name and the graph's node count before and after."""
    name: str
    before: int
    after: int


class GraphMixin:
    """``graph`` / ``graph_report`` / ``export`` (mixed into ``lamina.Model``)."""

    def graph(self, x, y=None, step: str = "predict", passes=None, sample_weight=None,
              batch_polymorphic: bool = True):
        """The optimized :class:`~lamina.graph.ir.Graph` of one ``step`` for a batch like
        ``x``. ``passes``: None for the default pipeline (the graph ``fit``/``evaluate``/
        ``predict`` run), ``[]`` for none, or a list of pass names. ``batch_polymorphic``:
        the batch size stays unknown (None) as in the steps ``fit``/``evaluate``/
        ``predict`` run; False traces at ``x``'s batch size (what ``export`` writes).
        Tracing runs no kernel and changes no variable."""
        function, data = _step_function(self, x, y, sample_weight, step, passes,
                                        batch_polymorphic)
        return function.trace(data)

    def graph_report(self, x, y=None, step: str = "predict", passes=None,
                     sample_weight=None) -> list[PassReport]:
        """Per pass, the node counts before and after it (``graph.history``)."""
        graph = self.graph(x, y, step=step, passes=passes, sample_weight=sample_weight)
        history = getattr(graph, "history", [("traced", len(graph.nodes))])
        return [PassReport(name, before, after)
                for (_, before), (name, after) in zip(history, history[1:])]

    def export(self, filepath, format="lamina", verbose=None, input_signature=None,
               **kwargs):
        """Export the model for inference (Keras 3's ``Model.export``).

        - ``format="lamina"`` (the default): the optimized inference graph and the weights in
          one h5 file that ``lamina.graph.load_exported`` runs; keywords ``x`` (an example
          batch) or ``batch_size`` set the batch size it is traced at.
        - ``format="onnx"``: an ONNX model (``lamina.export``, needs
          ``pip install lamina[onnx]``) with a dynamic batch size and dynamic other ``None``
          sizes; keyword ``opset_version`` (default 17).

        ``input_signature``: the input specs (objects with ``shape`` and ``dtype``: an
        ``InputSpec``, a ``KerasTensor``, an array), default the model's inputs (ONNX only).
        ``verbose``: print a line about what was written (default: yes for ONNX, as Keras;
        no for Lamina's format, as before)."""
        export_writer(self.name, format)(self, filepath, verbose=verbose,
                                         input_signature=input_signature, **kwargs)


def _write_lamina(model, filepath, verbose=None, input_signature=None, **kwargs) -> None:
    """``format="lamina"``: keywords ``x`` or ``batch_size``."""
    unknown = sorted(set(kwargs) - {"x", "batch_size"})
    if unknown or input_signature is not None:
        raise TypeError(f"{model.name}.export(format='lamina'): unexpected argument(s) "
                        f"{unknown or ['input_signature']}; it takes 'x' or 'batch_size'")
    export_model(model, filepath, **kwargs)
    if verbose:
        print(f"Saved the inference graph of {model.name!r} to {filepath}")


def export_model(model, filepath, x=None, batch_size: int | None = None) -> None:
    """Trace ``model``'s predict step for a batch like ``x`` (at that concrete batch size)
    and write it to ``filepath``."""
    if x is None:
        x = _example_input(model, 1 if batch_size is None else batch_size)
    elif batch_size is not None:
        raise ValueError(f"{model.name}.export: pass an example input 'x' or a "
                         f"'batch_size', not both")
    graph = GraphMixin.graph(model, x, step="predict", batch_polymorphic=False)
    holder = getattr(model, "_functional", None) or model       # Sequential wraps one
    declared = tree.flatten(getattr(holder, "_input_structure", None))
    names = [getattr(d, "name", None) for d in declared] \
        if len(declared) == len(graph.inputs) else None
    with atomic_image(str(filepath), what="export") as image:
        write_graph(graph, image, name=model.name, input_structure=x,
                    input_names=names)


def _example_input(model, batch_size: int):
    holder = getattr(model, "_functional", None) or model       # Sequential wraps one
    inputs = getattr(holder, "_input_structure", None)
    if inputs is None or any(d is None for x in tree.flatten(inputs) for d in x.shape[1:]):
        raise ExportError(f"{model.name}.export: the model's input shapes are not known; "
                          f"pass an example input batch 'x'")
    return tree.map_structure(
        lambda s: ops.zeros((batch_size, *s.shape[1:]), dtype=s.dtype), inputs)


def _step_function(model, x, y, sample_weight, step: str, passes, batch_polymorphic=True):
    """The GraphFunction of ``step`` and the device batch to trace it with."""
    if step not in STEPS:
        raise ValueError(f"{model.name}.graph: argument 'step' must be one of {STEPS}; "
                         f"received {step!r}")
    passes = _check_passes(model, passes)
    if step != "predict":
        model._assert_compiled(f"graph(step={step!r})")
        if y is None:
            raise ValueError(f"{model.name}.graph: step={step!r} needs targets 'y'")
    else:
        y = sample_weight = None
    data = to_device((x, y, sample_weight))
    _ensure_built(model, data[0], train=step == "train")
    if passes is None and batch_polymorphic:
        function = getattr(model, f"make_{step}_function")()
        if isinstance(function, CompiledStep):
            return function.function, data
    method = getattr(model, f"{step}_step")
    return GraphFunction(method, name=f"{model.name}.{step}_step", passes=passes,
                         batch_polymorphic=batch_polymorphic), data


def _check_passes(model, passes):
    if passes is None:
        return None
    known = [name for name, _ in registry.PIPELINE]
    if isinstance(passes, str):
        passes = [passes]
    unknown = [name for name in passes if name not in known]
    if unknown:
        raise ValueError(f"{model.name}.graph: unknown pass name(s) {unknown}; the pipeline "
                         f"has {known}")
    return list(passes)


def _ensure_built(model, x, train: bool) -> None:
    """Build the model (one eager inference call) and, for a training step, the optimizer's
    slots: tracing must not create variables."""
    if not model.built:
        model(x, training=False)
    optimizer = getattr(model, "optimizer", None)
    if train and optimizer is not None and not getattr(optimizer, "built", True):
        optimizer.build(model.trainable_variables)


register_export_format("lamina", _write_lamina)
