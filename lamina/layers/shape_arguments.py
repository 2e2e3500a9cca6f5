"""How ``build`` and ``compute_output_shape`` receive the shapes of a call's arguments
(Keras 3's rule): a method of one argument gets the first input's shape, whatever its
name; a method of several gets ``<arg>_shape`` for each call argument ``<arg>`` (a name
without the ``_shape`` suffix, or naming no argument of ``call``, is an error)."""
from __future__ import annotations

import inspect

from .. import tree
from ..core.symbolic import SymbolicTensor
from .own_variables import LayerError

_NAMED = (inspect.Parameter.POSITIONAL_ONLY, inspect.Parameter.POSITIONAL_OR_KEYWORD,
          inspect.Parameter.KEYWORD_ONLY)


def shape_of(x):
    return tuple(x.shape) if hasattr(x, "shape") else None


def shape_arguments(layer, method, args: tuple, kwargs: dict) -> dict | None:
    """The keyword arguments to call ``method`` (``layer.build`` or
    ``layer.compute_output_shape``) with, for a call of ``layer`` on ``args``/``kwargs``;
    None when it takes one argument (the first input's shape)."""
    params = [p for p in inspect.signature(method).parameters.values() if p.kind in _NAMED]
    if len(params) <= 1:
        return None
    call_params = [name for name, p in inspect.signature(layer.call).parameters.items()
                   if p.kind in _NAMED]
    values = dict(zip(call_params, args))
    values.update(kwargs)
    method_name = method.__name__
    preamble = (f"For a `{method_name}()` method with more than one argument, all arguments "
                f"should have a `_shape` suffix and match an argument from `call()`. E.g. "
                f"`{method_name}(self, foo_shape, bar_shape)`.")
    result = {}
    for p in params:
        if not p.name.endswith("_shape"):
            if p.default is not inspect.Parameter.empty:
                if p.name in values:               # an option of the call (reverse=True)
                    result[p.name] = values[p.name]
                continue
            raise LayerError(f"{preamble} For layer '{type(layer).__name__}' "
                             f"({layer.name}), received `{method_name}()` argument "
                             f"`{p.name}`, which does not end in `_shape`.")
        argument = p.name[:-len("_shape")]
        if argument not in call_params:
            raise LayerError(f"{preamble} For layer '{type(layer).__name__}' "
                             f"({layer.name}), received `{method_name}()` argument "
                             f"`{p.name}`, but `call()` does not have argument "
                             f"`{argument}`.")
        value = values.get(argument)
        if value is not None:
            result[p.name] = tree.map_structure(shape_of, value)
    return result


def declares_output_shape(layer) -> bool:
    """Whether the layer's symbolic outputs come from its ``compute_output_shape`` without
    running ``call``, as Keras's ``compute_output_spec`` and symbolic calls do: for a
    user's layer that defines it. Lamina's own layers run ``call`` on symbolic tensors,
    which gives the exact output dtypes as well."""
    method = type(layer).compute_output_shape
    return not getattr(method, "__module__", "lamina.").startswith("lamina.")


def spec_from_output_shape(layer, args: tuple, kwargs: dict):
    """``compute_output_spec`` of a layer that defines ``compute_output_shape``: symbolic
    tensors of the shapes it gives, in the layer's compute dtype (``call`` does not run)."""
    method = layer.compute_output_shape
    named = shape_arguments(layer, method, args, kwargs)
    if named is None:
        first = args[0] if args else next(iter(kwargs.values()), None)
        shape = method(tree.map_structure(shape_of, first))
    else:
        shape = method(**named)
    if isinstance(shape, list) and shape and isinstance(shape[0], (int, type(None))):
        shape = tuple(shape)
    if not isinstance(shape, (list, tuple, dict)):
        try:
            shape = tuple(shape)
        except TypeError:
            raise LayerError(f"Method `compute_output_shape()` of layer "
                             f"{type(layer).__name__} ({layer.name}) is returning a type "
                             f"that cannot be interpreted as a shape. It should return a "
                             f"shape tuple. Received: {shape!r}") from None
    return _specs(shape, layer.compute_dtype)


def _specs(shape, dtype):
    if isinstance(shape, dict):
        return {k: _specs(v, dtype) for k, v in shape.items()}
    if isinstance(shape, (list, tuple)) and all(d is None or isinstance(d, int)
                                                for d in shape):
        return SymbolicTensor(tuple(shape), dtype)
    if isinstance(shape, (list, tuple)):
        return type(shape)(_specs(s, dtype) for s in shape)
    return SymbolicTensor(tuple(shape), dtype)
