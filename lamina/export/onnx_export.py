"""``export_onnx(model, filepath, ...)``: write a model's optimized inference graph as ONNX.

The model's inference call is traced with the ``input_signature``'s shapes (``None`` for
the batch and every other unknown size) through the graph passes ``predict`` runs
(BatchNorm folded, Dense+bias+activation fused...). Then, in execution order:

- nodes whose inputs are all constants (weights, literals) are evaluated here and become
  initializers (so folded BatchNorm factors are written once, as numbers);
- layers with an ONNX-level form of their own (recurrent layers -> ``LSTM``/``GRU``/``RNN``,
  ``lamina/export/layer_converters.py``) are written from the layer's call, skipping the
  ops inside it;
- every other node goes to its op's converter (``lamina/export/registry.py``); a step loop
  of another recurrent layer (ConvLSTM, a custom cell) becomes an ONNX ``Scan``.

Unknown sizes stay symbolic in the ONNX graph (``batch``, ``<input>_dim<i>``), so one file
runs any batch size and sequence length. Inputs are named as the model's inputs, outputs
as the layers that produce them (Keras's names).
"""
from __future__ import annotations

from .. import tree
from ..core.tensor import TensorBase
from ..backend import get_backend
from ..core.symbolic import SymbolicTensor
from ..saving.atomic import atomic_image
from .context import OnnxContext, onnx_dtype
from .registry import OnnxExportError, get_converter
from .signature import input_specs, output_names
from .tracing import trace_inference
from .unsupported import check_exportable

DEFAULT_OPSET = 17
MIN_OPSET = 14            # the oldest opset the converters are tested with


def require_onnx():
    """Import ``onnx`` or raise an ImportError naming the extra that installs it."""
    try:
        import onnx
    except ImportError as error:
        raise ImportError(f"export(format='onnx') needs the 'onnx' package, which is not "
                          f"installed ({error}); install it with `pip install lamina[onnx]`"
                          ) from None
    return onnx


def export_onnx(model, filepath, input_signature=None, opset_version=None, verbose=None):
    """Write ``model`` to ``filepath`` as an ONNX model; returns the ``ModelProto``."""
    onnx = require_onnx()
    opset = DEFAULT_OPSET if opset_version is None else opset_version
    if not isinstance(opset, int) or isinstance(opset, bool) or \
            not MIN_OPSET <= opset <= onnx.defs.onnx_opset_version():
        raise ValueError(f"{model.name}.export: argument 'opset_version' must be an int from "
                         f"{MIN_OPSET} to {onnx.defs.onnx_opset_version()}; received "
                         f"{opset_version!r}")
    check_exportable(model)
    specs, structure = input_specs(model, input_signature)
    graph, calls = trace_inference(model, specs, structure)
    ctx = OnnxContext(opset, get_backend("numpy"))
    inputs = []
    for spec, symbol in zip(specs, graph.inputs):
        name = ctx.reserve(spec.name)
        ctx.bind(symbol, name)
        dims = [d if d is not None else ("batch" if i == 0 else f"{spec.name}_dim{i}")
                for i, d in enumerate(symbol.shape)]
        inputs.append(onnx.helper.make_tensor_value_info(
            name, onnx_dtype(symbol.dtype, f"input '{spec.name}'"), dims))
    names = [ctx.fresh(name) if ctx.taken(name) else name   # an input read as output
             for name in output_names(model, len(graph.flat_outputs))]
    for name in names:
        ctx.reserve(name)
    for variable, placeholder in graph.variables:
        ctx.set_value(placeholder, ctx.backend.asarray(variable.numpy()))
    _convert_nodes(ctx, graph, calls)
    outputs = _outputs(ctx, graph, names)
    proto_graph = onnx.helper.make_graph(ctx.nodes, model.name or "model", inputs, outputs,
                                         initializer=ctx.initializers)
    proto = onnx.helper.make_model(
        proto_graph, producer_name="lamina",
        opset_imports=[onnx.helper.make_opsetid("", opset)])
    proto.ir_version = onnx.helper.find_min_ir_version_for(list(proto.opset_import))
    try:
        onnx.checker.check_model(proto)
    except onnx.checker.ValidationError as error:       # a converter's bug, named
        raise OnnxExportError(f"{model.name}.export(format='onnx'): the ONNX graph written "
                              f"does not pass onnx.checker: {error}") from None
    with atomic_image(str(filepath), what="export") as image:
        image.write(proto.SerializeToString())
    if verbose is None or verbose:                 # Keras prints by default
        print(f"Saved ONNX model to {filepath} (opset {opset}, {len(ctx.nodes)} nodes, "
              f"{len(ctx.initializers)} initializers)")
    return proto


def _convert_nodes(ctx: OnnxContext, graph, calls) -> None:
    """Convert (or evaluate) the nodes the outputs need, in execution order."""
    produced = {id(t): call for call in calls for t in call.outputs}
    needed = _needed(graph, produced)
    for node in graph.nodes:
        if id(node) in needed:
            _convert_node(ctx, node, produced)
    for out in graph.flat_outputs:
        _available(ctx, out, produced)


def _available(ctx: OnnxContext, x, produced) -> None:
    """Make ``x`` an ONNX value: a recorded layer call's output emits its layer; a value
    the passes replaced (a recurrent layer's mask, read only inside the layer) is converted
    from the node that traced it."""
    if not isinstance(x, SymbolicTensor) or id(x) in ctx.names or ctx.is_constant(x):
        return
    if id(x) in produced:
        call = produced[id(x)]
        for y in call.inputs:
            _available(ctx, y, produced)
        call.emit(ctx)
    elif x.node is not None:
        _convert_node(ctx, x.node, produced)


def _convert_node(ctx: OnnxContext, node, produced) -> None:
    for x in node.inputs:
        _available(ctx, x, produced)
    if node.inputs and all(ctx.is_constant(x) for x in node.inputs):
        _fold(ctx, node)
        return
    converter = get_converter(node.op.name)
    if converter is None:
        layer = f" in layer '{node.layer}'" if node.layer else ""
        raise OnnxExportError(f"export(format='onnx'): op '{node.op.name}'{layer} has no "
                              f"ONNX converter; see lamina.export.NO_ONNX_FORM for the "
                              f"layers without an ONNX form")
    names = converter(ctx, node)
    if len(names) != len(node.outputs):
        raise OnnxExportError(f"export(format='onnx'): the converter of '{node.op.name}' "
                              f"gave {len(names)} outputs; the op has {len(node.outputs)}")
    for out, name in zip(node.outputs, names):
        ctx.bind(out, name)


def _needed(graph, produced) -> set:
    """ids of the nodes the outputs need, not looking behind a layer-level call's outputs
    (the ops inside a recurrent layer are replaced by its ONNX op)."""
    stack = [o for o in graph.flat_outputs if isinstance(o, SymbolicTensor)]
    seen, needed = set(), set()
    while stack:
        tensor = stack.pop()
        if id(tensor) in seen:
            continue
        seen.add(id(tensor))
        if id(tensor) in produced:
            stack.extend(x for x in produced[id(tensor)].inputs
                         if isinstance(x, SymbolicTensor))
            continue
        node = tensor.node
        if node is None or id(node) in needed:
            continue
        needed.add(id(node))
        stack.extend(x for x in node.inputs if isinstance(x, SymbolicTensor))
    return needed


def _fold(ctx: OnnxContext, node) -> None:
    """Evaluate a node of constants with the numpy kernels; its outputs become constants."""
    backend = ctx.backend
    arrays = [backend.asarray(ctx.value(x)) if isinstance(x, TensorBase) else x
              for x in node.inputs]
    try:
        results = node.op.forward(backend, *arrays, **node.attrs)
    except Exception as error:
        ctx.fail(node, f"evaluating it on constants failed ({type(error).__name__}: {error})")
    results = list(results) if node.several or len(node.outputs) > 1 else [results]
    for out, result in zip(node.outputs, results):
        ctx.set_value(out, result)


def _outputs(ctx: OnnxContext, graph, names: list) -> list:
    from onnx import helper
    infos = []
    for out, name in zip(graph.flat_outputs, names):
        if not isinstance(out, TensorBase):
            raise OnnxExportError(f"export(format='onnx'): output '{name}' is a Python value "
                                  f"({out!r:.40}), not a tensor")
        source = ctx.name_of(out, hint=name)
        ctx.add_node("Identity", [source], [name])
        infos.append(helper.make_tensor_value_info(
            name, onnx_dtype(out.dtype, f"output '{name}'"), list(out.shape)))
    return infos


__all__ = ["export_onnx", "require_onnx", "DEFAULT_OPSET"]
