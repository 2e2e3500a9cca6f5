"""``clone_model``: the same architecture with fresh weights (Keras's signature)."""
from __future__ import annotations

from .. import tree
from ..errors import ArgumentTypeError
from ..core.symbolic import SymbolicTensor
from ..layers.core.input_layer import Input, InputLayer
from ..layers.node import LayerNode
from .functional import Functional
from .model import Model
from .sequential import Sequential


def _default_clone(layer):
    return layer.__class__.from_config(layer.get_config())


def clone_model(model: Model, input_tensors=None, clone_function=None, call_function=None,
                recursive: bool = False, **kwargs) -> Model:
    """Make a new model of the same layers' configs, with newly initialized weights.

    A compiled Sequential or functional model gives a clone compiled with the same
    arguments (a fresh optimizer of the same config). Other models are rebuilt with
    ``from_config(get_config())``.

    Args:
        model: The ``Model`` to clone.
        input_tensors: Optional inputs for the clone (a symbolic tensor, or a tensor whose
            shape and dtype make an ``Input``) instead of new ones like the original's.
        clone_function: ``clone_function(layer)`` makes each new layer; ``None``
            (default) uses ``layer.__class__.from_config(layer.get_config())``.
        call_function: ``call_function(layer, *args, **kwargs)`` replaces the call of each
            layer in a functional model; ``None`` calls the layer.
        recursive: If ``True``, nested Sequential and functional models are cloned layer by
            layer (with ``clone_function``) instead of passed whole to
            ``clone_function``.
        **kwargs: Keras's internal ``cache`` only (a memo of the layers cloned so far,
            which Lamina does not need: it has no effect); any other keyword is a
            ``ValueError``, as in Keras.

    Returns:
        The new model.

    Raises:
        TypeError: If ``model`` is not a ``Model``.
        ValueError: For an unknown keyword argument.

    Example:

    >>> clone = lamina.models.clone_model(model)
    >>> clone.set_weights(model.get_weights())
    """
    if not isinstance(model, Model):
        raise TypeError(f"clone_model: argument 'model' must be a lamina Model; received "
                        f"{type(model).__name__}")
    kwargs.pop("cache", None)          # Keras's recursion memo: nothing to remember here
    if kwargs:
        raise ValueError(f"clone_model: Unexpected keyword argument(s): "
                         f"{tuple(kwargs)}")
    clone_function = clone_function or _default_clone

    def clone_layer(layer):
        if recursive and isinstance(layer, (Sequential, Functional)):
            return clone_model(layer, clone_function=clone_function,
                               call_function=call_function, recursive=True)
        return clone_function(layer)

    if isinstance(model, Sequential):
        clone = _clone_sequential(model, input_tensors, clone_layer)
    elif isinstance(model, Functional):
        clone = _clone_functional(model, input_tensors, clone_layer, call_function)
    else:
        return model.__class__.from_config(model.get_config())
    if getattr(model, "compiled", False):     # compiled as the original (Keras 3)
        clone.compile_from_config(model.get_compile_config())
    return clone


def _clone_sequential(model, input_tensors, clone_layer):
    layers = [clone_layer(layer) for layer in model.layers]
    start = model._stack[0] if model._stack and isinstance(model._stack[0], InputLayer) else None
    if input_tensors is not None:
        first = tree.flatten(input_tensors)[0]
        layers.insert(0, first if isinstance(first, SymbolicTensor) else
                      Input(batch_shape=first.shape, dtype=first.dtype))
    elif start is not None:
        layers.insert(0, Input(batch_shape=start.batch_shape, dtype=start.input_dtype,
                               name=start.name))
    clone = Sequential(layers, name=model.name, trainable=model.trainable)
    if start is None and model.built and model._build_shapes is not None:
        clone.build(model._build_shapes)
    return clone


def _clone_functional(model, input_tensors, clone_layer, call_function):
    values = {}
    if input_tensors is not None:
        new_inputs = tree.flatten(input_tensors)
        if len(new_inputs) != len(model.inputs):
            raise ValueError(f"clone_model: {model.name} has {len(model.inputs)} inputs; "
                             f"argument 'input_tensors' has {len(new_inputs)}")
        try:
            tree.assert_same_structure(input_tensors, model.input)
        except ValueError as error:
            raise ArgumentTypeError(
                f"clone_model: argument 'input_tensors' must nest like {model.name}'s "
                f"inputs (`input_tensors` must have the same structure as model.input); "
                f"expected {_structure(model.input)}, received "
                f"{_structure(input_tensors)}") from error
    else:
        new_inputs = [Input(batch_shape=x.shape, dtype=x.dtype, name=x.history[0].name)
                      for x in model.inputs]
    for old, new in zip(model.inputs, new_inputs):
        values[id(old)] = new
    clones = {}
    for step in model._steps:
        if isinstance(step, LayerNode):
            layer = step.layer
            if id(layer) not in clones:
                clones[id(layer)] = clone_layer(layer)
            fill = (lambda x: values[id(x)] if isinstance(x, SymbolicTensor) else x)
            args = tree.map_structure(fill, step.args)
            kwargs = tree.map_structure(fill, step.kwargs)
            if call_function is not None:
                result = call_function(clones[id(layer)], *args, **kwargs)
            else:
                result = clones[id(layer)](*args, **kwargs)
            for ref, value in zip(step.output_tensors, tree.flatten(result)):
                values[id(ref)] = value
        else:
            node = step.node
            ins = [values[id(x)] if isinstance(x, SymbolicTensor) else x for x in node.inputs]
            result = node.op(*ins, **node.attrs)
            for ref, value in zip(node.outputs, result if isinstance(result, tuple)
                                  else (result,)):
                values[id(ref)] = value
    inputs = tree.pack_sequence_as(model._input_structure, new_inputs)
    outputs = tree.pack_sequence_as(model._output_structure,
                                    [values[id(x)] for x in model.outputs])
    return Functional(inputs, outputs, name=model.name, trainable=model.trainable)


def _structure(value) -> str:
    """A structure with its tensors written as ``T`` (``{'x': T, 'y': T}``)."""
    return repr(tree.map_structure(lambda _: _Leaf(), value))


class _Leaf:
    def __repr__(self) -> str:
        return "T"
