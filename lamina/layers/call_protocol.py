"""What ``layer(...)`` does around ``call``: input conversion and checks, build on first
call, ``training`` and ``mask`` resolution, autocasting, masks and activity losses on the
outputs, and, for symbolic inputs, a functional-API node."""
from __future__ import annotations

import contextlib
import inspect

from .. import ops, tree
from ..core.autocast import scope_for_layer
from ..core.tensor import TensorBase
from ..core.symbolic import SymbolicTensor
from ..dtypes import is_float
from ..errors import ArgumentTypeError
from ..ops.reduction import num_rows
from . import call_context, remat_scope
from .input_spec import check_input_compatibility
from .node import LayerNode
from .shape_arguments import declares_output_shape, spec_from_output_shape
from ..graph import trace as graph_trace

_signatures: dict = {}


def call_parameters(layer) -> dict:
    """``call``'s parameters by name (cached per class)."""
    cls = type(layer)
    params = _signatures.get(cls)
    if params is None:
        params = _signatures[cls] = dict(inspect.signature(layer.call).parameters)
    return params


def _to_tensor(x):
    if isinstance(x, TensorBase) or x is None or isinstance(x, (bool, int, float, str)):
        return x
    if hasattr(x, "__array__") or hasattr(x, "__cuda_array_interface__"):
        return ops.convert_to_tensor(x)
    return x


def _symbolic(structure) -> bool:
    return any(isinstance(x, SymbolicTensor) for x in tree.flatten(structure))


def run_call(layer, args: tuple, kwargs: dict):
    if not args:
        first = next(iter(call_parameters(layer)), "inputs")
        name = "inputs" if "inputs" in kwargs else first
        if name not in kwargs:
            raise TypeError(f"{layer.name}: a layer is called with its input tensor(s) as the "
                            f"first argument; received no positional arguments")
        args = (kwargs.pop(name),)
    user_kwargs = dict(kwargs)
    _check_positional(layer, args[1:])
    inputs = tree.map_structure(_to_tensor, args[0])
    args = (inputs, *args[1:])
    params = call_parameters(layer)
    layer.__dict__["_called"] = True
    context = _resolve_context_args(layer, params, kwargs)

    check_input_compatibility(layer.name, layer.input_spec, _spec_inputs(inputs))
    if not layer.built:
        layer._maybe_build(inputs, args, kwargs)
        check_input_compatibility(layer.name, layer.input_spec, _spec_inputs(inputs))

    training = kwargs.get("training")
    if training is None:
        training = call_context.current_training()
    if training is None and "training" in params:
        default = params["training"].default
        training = None if default is inspect.Parameter.empty else default
    if "training" in params:
        kwargs["training"] = training
    else:
        kwargs.pop("training", None)

    previous_mask = tree.map_structure(lambda x: getattr(x, "_keras_mask", None), inputs)
    if "mask" in params and kwargs.get("mask") is None:
        if any(m is not None for m in tree.flatten(previous_mask)):
            kwargs["mask"] = previous_mask
    _fill_argument_masks(params, args, kwargs)
    recorded_args = args        # a functional node reads the tensors given, as in Keras:
    if layer.autocast:          # its autocast belongs to the layer, not the graph
        inputs = tree.map_structure(lambda x: _autocast(x, layer.compute_dtype), inputs)
        args = (inputs, *args[1:])

    outermost = call_context.depth() == 0
    if outermost:
        layer._clear_losses()
    symbolic = _symbolic(args) or _symbolic(kwargs)
    # Symbolic calls (functional API, graph tracing) record the layer's name on each node.
    scope = scope_for_layer(layer)        # mixed precision: read variables in compute dtype
    with call_context.layer_call(training, layer.name if symbolic else None), \
            scope if scope is not None else contextlib.nullcontext(), \
            call_context.context_args(context) if context is not None else \
            contextlib.nullcontext():
        call = layer.call
        if remat_scope.applies(layer, symbolic):        # built inside a RematScope
            call = remat_scope.rematerialized_call(
                layer, lambda: (call_context.layer_call(training),
                                scope or contextlib.nullcontext()), args, kwargs)
        if symbolic and outermost and graph_trace.active() is None and \
                not call_context.is_tracing() and declares_output_shape(layer):
            outputs = spec_from_output_shape(layer, args, kwargs)     # Keras: call not run
        else:
            outputs = call(*args, **kwargs)
        outputs = _attach_masks(layer, inputs, kwargs.get("mask", previous_mask), outputs)
        # Activity losses are real when values are (eager) or will be (a graph trace).
        if layer.activity_regularizer is not None and (
                not symbolic or graph_trace.active() is not None):
            for out in tree.flatten(outputs):
                if isinstance(out, TensorBase):
                    layer.add_loss(_activity_loss(layer.activity_regularizer, out))
    if symbolic and not call_context.is_tracing() and graph_trace.active() is None:
        outputs = _record_node(layer, recorded_args, user_kwargs, outputs)
    return outputs


def _fill_argument_masks(params: dict, args: tuple, kwargs: dict) -> None:
    """``call(self, x1, x2, x1_mask=None, x2_mask=None)``: each ``<arg>_mask`` not given
    is the mask carried by the tensor(s) passed as ``<arg>`` (Keras 3)."""
    if not any(name.endswith("_mask") for name in params):
        return
    values = dict(zip(params, args))
    values.update(kwargs)
    tensors = {name: value for name, value in values.items() if value is not None and
               any(isinstance(x, TensorBase) for x in tree.flatten(value))}
    if len(tensors) < 2:             # one tensor argument: its mask goes to ``mask``
        return
    for name, value in tensors.items():
        mask_name = f"{name}_mask"
        if mask_name in params and kwargs.get(mask_name) is None:
            masks = tree.map_structure(lambda x: getattr(x, "_keras_mask", None), value)
            if any(m is not None for m in tree.flatten(masks)):
                kwargs[mask_name] = masks


def _check_positional(layer, extra_args: tuple) -> None:
    """Only tensors (or arrays, or None) may follow the inputs positionally (Keras 3):
    an option such as ``layer(x, True)`` must be passed by keyword. Functional and
    Sequential models, and layers that set ``_allow_non_tensor_positional_args``, are
    exempt as in Keras."""
    if not extra_args or getattr(layer, "_allow_non_tensor_positional_args", False) or \
            getattr(layer, "saving_kind", None) in ("Functional", "Sequential"):
        return
    for arg in tree.flatten(extra_args):
        if arg is None or isinstance(arg, TensorBase) or hasattr(arg, "__array__") or \
                hasattr(arg, "__cuda_array_interface__"):
            continue
        raise ArgumentTypeError(
            f"{layer.name}: Only input tensors may be passed as positional arguments. The "
            f"following argument value should be passed as a keyword argument: {arg!r} (of "
            f"type {type(arg)})")


def _resolve_context_args(layer, params: dict, kwargs: dict):
    """Keras's call-context arguments other than ``training`` (registered with
    ``layer._register_call_context_args``): each takes the value passed to this call, else
    the enclosing calls' value, else ``call``'s default; it is passed to ``call`` when
    ``call`` declares it (and the value is not None), and nested layers inherit it.
    Returns the values for the nested calls (None when the layer registers none)."""
    names = layer.__dict__.get("_context_arg_names")
    if not names:
        return None
    inherited = call_context.context_values()
    values = dict(inherited)
    for name in names:
        if name in kwargs:
            value = kwargs[name] if name in params else kwargs.pop(name)
        elif inherited.get(name) is not None:
            value = inherited[name]
        else:
            default = params[name].default if name in params else None
            value = None if default is inspect.Parameter.empty else default
        values[name] = value
        if name in params and value is not None:
            kwargs[name] = value
    return values


def _activity_loss(regularizer, output):
    """The regularizer's value divided by the batch size (Keras 3), so its strength does
    not depend on how the data is batched."""
    loss = regularizer(output)
    if not output.shape or output.shape[0] == 0:
        return loss
    rows = num_rows(output)                 # counted at run time in a batch-polymorphic graph
    return ops.divide(loss, ops.cast(rows, loss.dtype) if hasattr(rows, "dtype") else
                      float(rows))


def _spec_inputs(inputs):
    return list(inputs) if isinstance(inputs, (list, tuple)) else inputs


def _autocast(x, dtype: str):
    if isinstance(x, TensorBase) and is_float(x.dtype) and is_float(dtype) and x.dtype != dtype:
        mask = getattr(x, "_keras_mask", None)
        x = ops.cast(x, dtype)
        if mask is not None:
            x._keras_mask = mask
    return x


def _attach_masks(layer, inputs, mask, outputs):
    overrides = type(layer).compute_mask is not _base_compute_mask()
    if not (layer.supports_masking or overrides):
        return outputs
    if mask is None or all(m is None for m in tree.flatten(mask)):
        if not overrides:
            return outputs
    out_mask = layer.compute_mask(inputs, mask)
    if out_mask is None:
        return outputs
    flat_out = tree.flatten(outputs)
    flat_mask = tree.flatten(out_mask) if isinstance(out_mask, (list, tuple)) else [out_mask]
    if len(flat_mask) == 1 and len(flat_out) > 1:
        flat_mask = flat_mask * len(flat_out)
    for out, m in zip(flat_out, flat_mask):
        if isinstance(out, TensorBase) and m is not None:
            try:
                out._keras_mask = m
            except AttributeError:
                pass
    return outputs


def _base_compute_mask():
    from .layer import Layer      # layer.py imports this module to run calls
    return Layer.compute_mask


def _record_node(layer, args, kwargs, raw_outputs):
    """Fresh symbolic outputs for this call, each remembering (layer, node, index)."""
    index = len(layer._inbound_nodes)
    counter = iter(range(1 << 30))

    def fresh(x):
        if not isinstance(x, TensorBase):
            return x
        out = SymbolicTensor(x.shape, x.dtype, name=None)
        out.history = (layer, index, next(counter))
        mask = getattr(x, "_keras_mask", None)
        if mask is not None:
            out._keras_mask = mask
        return out
    outputs = tree.map_structure(fresh, raw_outputs)
    layer._inbound_nodes.append(LayerNode(layer, tuple(args), dict(kwargs), outputs, index))
    return outputs
