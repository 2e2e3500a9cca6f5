"""``Lambda``: wraps a Python function as a layer."""
from __future__ import annotations

import inspect

from ... import tree
from ...core.symbolic import SymbolicTensor
from ...graph import trace as graph_trace
from ...registry import (deserialize_keras_object, get_custom_objects, get_registered_object,
                         in_safe_mode, is_builtin, serialize_keras_object)
from .. import call_context
from ..layer import Layer

_LAMBDA_REFUSED = (
    "{name}: the config's {what!r} is a Python lambda (stored as {{'class_name': "
    "'__lambda__'}}), i.e. Python code: running it carries a potential risk of arbitrary "
    "code execution, and Lamina never runs code from a config or a file, so safe mode (load_model's default, safe_mode=True) refuses it. To opt in, hand "
    "Lamina the function itself: load with safe_mode=False and custom_objects={{{key!r}: "
    "my_fn}} (the Lambda layer's name -> the function). Even with safe_mode=False Lamina "
    "never unmarshals the stored bytecode; it only accepts functions registered "
    "(@lamina.saving.register_keras_serializable()) or passed by name (custom_objects=, "
    "lamina.saving.custom_object_scope). Better: build the layer from a named function, "
    "Lambda(my_fn) with `def my_fn(x): ...`, and save again; it then loads with "
    "custom_objects={{'my_fn': my_fn}} in safe mode too.")
_LAMBDA_NOT_PASSED = (
    "{name}: the config's {what!r} is a Python lambda and safe_mode=False, but no function "
    "was passed under {key!r}. Lamina never runs code from a file, whatever safe_mode says: "
    "it never unmarshals the stored bytecode and only accepts functions passed by name. "
    "Load with custom_objects={{{key!r}: my_fn}} (or inside "
    "lamina.saving.custom_object_scope({{{key!r}: my_fn}})).")


class Lambda(Layer):
    """Calls ``function(inputs, **arguments)`` (Keras 3's ``Lambda``).

    ``function`` may also take ``mask`` and ``training`` arguments. ``output_shape`` (a
    shape without the batch axis, a list of them, or a callable from the full input shape
    to the full output shape) describes the output when the model is built from symbolic
    inputs; without it the function runs on the symbolic input to find the shape.
    ``mask`` is the output mask: a tensor, or a callable ``mask(inputs, input_mask)``.

    Configs store a named function by its registered name; a Python lambda is stored in
    Keras's ``__lambda__`` form without its bytecode. ``from_config`` refuses it in safe
    mode; with ``safe_mode=False`` it takes the function passed in ``custom_objects`` under
    the layer's name (``"<name>.output_shape"`` / ``"<name>.mask"`` for those arguments).

    Args:
        function: The function, called as ``function(inputs, **arguments)``.
        output_shape: Output shape without the batch axis, a list of them, or a callable from
            the input shape; None: found by running ``function`` on the symbolic input.
        mask: Output mask: a tensor, or a callable ``mask(inputs, input_mask)``; None: no mask.
        arguments: Dict of extra keyword arguments passed to ``function``.
    """

    def __init__(self, function, output_shape=None, mask=None, arguments=None, **kwargs):
        super().__init__(**kwargs)
        if not callable(function):
            raise TypeError(f"{self.name}: argument 'function' must be callable; received "
                            f"{function!r}")
        if arguments is not None and not isinstance(arguments, dict):
            raise TypeError(f"{self.name}: argument 'arguments' must be a dict of keyword "
                            f"arguments for the function; received {arguments!r}")
        if output_shape is not None and not callable(output_shape):
            output_shape = _standardize_shape(self.name, output_shape)
        self.function = function
        self._output_shape = output_shape
        self.mask = mask
        self.arguments = dict(arguments or {})
        self.supports_masking = mask is not None
        try:
            params = inspect.signature(function).parameters
        except (TypeError, ValueError):
            params = {}
        self._fn_expects_mask = "mask" in params
        self._fn_expects_training = "training" in params

    def call(self, inputs, mask=None, training=None):
        if self._output_shape is not None and not call_context.is_tracing() and \
                graph_trace.active() is None and any(
                isinstance(x, SymbolicTensor) for x in tree.flatten(inputs)):
            shape = self.compute_output_shape(tree.map_structure(lambda x: x.shape, inputs))
            return _symbolic_like(shape, self.compute_dtype)
        kwargs = dict(self.arguments)
        if self._fn_expects_mask:
            kwargs["mask"] = mask
        if self._fn_expects_training:
            kwargs["training"] = training
        return self.function(inputs, **kwargs)

    def compute_mask(self, inputs, mask=None):
        if callable(self.mask):
            return self.mask(inputs, mask)
        return self.mask

    def compute_output_shape(self, input_shape):
        if self._output_shape is None:
            return super().compute_output_shape(input_shape)
        if callable(self._output_shape):
            return self._output_shape(input_shape)
        batch = tree.flatten(input_shape)[0] if tree.flatten(input_shape) else None
        if _is_shape(self._output_shape):
            return (batch, *self._output_shape)
        return [(batch, *shape) for shape in self._output_shape]

    def get_config(self) -> dict:
        config = {"function": _serialize_function(self.name, self.function)}
        if self._output_shape is not None:
            config["output_shape"] = (_serialize_function(self.name, self._output_shape)
                                      if callable(self._output_shape)
                                      else self._output_shape)
        if self.mask is not None:
            if not callable(self.mask):
                raise TypeError(f"{self.name}.get_config: a tensor 'mask' cannot be stored "
                                f"in a config; pass a function mask(inputs, input_mask) "
                                f"instead")
            config["mask"] = _serialize_function(self.name, self.mask)
        config["arguments"] = serialize_keras_object(self.arguments)
        return {**super().get_config(), **config}

    @classmethod
    def from_config(cls, config, custom_objects=None, safe_mode=None):
        """``safe_mode=None`` follows ``load_model``'s (True outside it)."""
        safe_mode = in_safe_mode() if safe_mode is None else safe_mode
        config = dict(config)
        name = config.get("name") or cls.__name__
        for key in ("function", "output_shape", "mask"):
            value = config.get(key)
            if isinstance(value, dict) and value.get("class_name") == "__lambda__":
                config[key] = _passed_function(name, key, custom_objects, safe_mode)
        config["function"] = deserialize_keras_object(config["function"], custom_objects,
                                                      kind="function")
        for key in ("output_shape", "mask"):
            value = config.get(key)
            if isinstance(value, (str, dict)):
                config[key] = deserialize_keras_object(value, custom_objects, kind="function")
        arguments = config.get("arguments") or {}
        config["arguments"] = {
            k: deserialize_keras_object(v, custom_objects)
            if isinstance(v, dict) and "class_name" in v else v for k, v in arguments.items()}
        return cls(**config)


def _passed_function(name: str, what: str, custom_objects, safe_mode: bool):
    """The function the user passed for a stored lambda: under the layer's name for
    'function', ``"<name>.<what>"`` for 'output_shape' and 'mask'."""
    key = name if what == "function" else f"{name}.{what}"
    if safe_mode:
        raise ValueError(_LAMBDA_REFUSED.format(name=name, what=what, key=key))
    fn = get_registered_object(key, custom_objects)
    # Found only among Lamina's built-ins (a layer named 'relu', say) is not "passed".
    passed = custom_objects is not None and custom_objects.get(key) is fn
    if fn is None or isinstance(fn, type) or not callable(fn) or (
            (is_builtin(fn) or fn is get_custom_objects().get(key)) and not passed):
        raise ValueError(_LAMBDA_NOT_PASSED.format(name=name, what=what, key=key))
    return fn


def _is_shape(value) -> bool:
    return isinstance(value, (list, tuple)) and all(
        d is None or (isinstance(d, int) and not isinstance(d, bool)) for d in value)


def _standardize_shape(name: str, shape):
    if _is_shape(shape):
        return tuple(shape)
    if isinstance(shape, (list, tuple)) and shape and all(_is_shape(s) for s in shape):
        return [tuple(s) for s in shape]
    raise TypeError(f"{name}: argument 'output_shape' must be a shape tuple without the "
                    f"batch axis (e.g. (10,)), a list of such tuples, or a callable; "
                    f"received {shape!r}")


def _symbolic_like(shape, dtype):
    if _is_shape(shape):
        return SymbolicTensor(shape, dtype)
    return [SymbolicTensor(s, dtype) for s in shape]


def _serialize_function(name: str, fn):
    if getattr(fn, "__name__", None) == "<lambda>":
        # Keras's form, without the marshalled bytecode: Lamina never loads code.
        return {"class_name": "__lambda__",
                "config": {"code": None, "defaults": None, "closure": None}}
    config = serialize_keras_object(fn)
    if isinstance(config, str):         # a built-in, stored the way Keras stores functions
        config = {"module": "builtins", "class_name": "function", "config": config,
                  "registered_name": "function"}
    return config
