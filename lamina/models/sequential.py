"""``Sequential``: a plain stack of layers, each with one input and one output."""
from __future__ import annotations

import inspect

from .. import tree
from ..core.symbolic import SymbolicTensor
from ..layers.core.input_layer import InputLayer
from ..core import structure
from ..errors import ArgumentTypeError, LaminaError
from ..layers.layer import Layer
from ..registry import serialize_keras_object
from .functional import Functional
from ..trainers.host_prefix import apply_host_prefix, host_prefix
from .model import Model
from ..layers import deserialize


class UnbuiltSequentialError(LaminaError, AttributeError):
    """An unbuilt Sequential model has no inputs, outputs or shapes yet."""


class Sequential(Model):
    """A model that is a plain stack of layers, each feeding the next.

    Give the layers as a list, or ``add``/``pop`` them one by one. Start with
    ``lamina.Input(shape)`` (or give the first layer ``input_shape=``) to build it at once;
    otherwise it builds on its first call. Once built it runs as a functional model of its
    layers.

    Args:
        layers: An optional list of layers (the first may be an ``Input`` tensor).
        trainable: Whether the model's weights are updated by training. Defaults to
            ``True``.
        name: The model's name; ``None`` gives ``"sequential"``, ``"sequential_1"``, ...

    Raises:
        ArgumentTypeError: If an element of ``layers`` is not a layer.

    Example:

    >>> model = lamina.Sequential([lamina.Input((16,)),
    ...                            lamina.layers.Dense(8, activation="relu"),
    ...                            lamina.layers.Dense(1)])
    >>> model.output_shape
    (None, 1)
    """
    saving_kind = "Sequential"

    def __init__(self, layers=None, trainable=True, name=None):
        super().__init__(trainable=trainable, name=name)
        self.__dict__["_stack"] = []
        self.__dict__["_functional"] = None
        names: set = set()
        for layer in layers or []:
            self._add(layer, rebuild=False, names=names)
        self._rebuild()

    def add(self, layer, rebuild: bool = True) -> None:
        """Append a layer (or an ``Input`` tensor as the first element)."""
        self._add(layer, rebuild, names=None)

    def _add(self, layer, rebuild: bool, names: set | None) -> None:
        """``add``; ``names``, when given, holds the names of the layers in the stack (kept
        up to date here), so adding thousands of layers in one loop stays linear."""
        if isinstance(layer, SymbolicTensor) and layer.history is not None and \
                isinstance(layer.history[0], InputLayer):
            layer = layer.history[0]
        if not isinstance(layer, Layer):
            raise ArgumentTypeError(f"{self.name}.add: expected a Layer instance (Only instances "
                                    f"of `keras.Layer` can be added to a Sequential model); "
                                    f"received {type(layer).__name__} ({layer!r})")
        if isinstance(layer, InputLayer) and self._stack:
            raise ValueError(f"{self.name}.add: an InputLayer may only be the first layer: the "
                             f"model's input has already been configured (first layer "
                             f"{self._stack[0].name!r})")
        if not self._stack and not isinstance(layer, InputLayer) and \
                layer._batch_input_shape is not None:
            self._stack.append(InputLayer(batch_shape=layer._batch_input_shape))
            if names is not None:
                names.add(self._stack[-1].name)
        elif not self._stack and _single_input(layer) is not None:
            # a built model first (Keras 3 builds on its input_shape): its one Input
            x = _single_input(layer)
            self._stack.append(InputLayer(batch_shape=tuple(x.shape), dtype=x.dtype))
            if names is not None:
                names.add(self._stack[-1].name)
        if (layer.name in names) if names is not None else \
                any(existing.name == layer.name for existing in self._stack):
            raise ValueError(f"{self.name}.add: all layers of a Sequential model should have "
                             f"unique names; {layer.name!r} is already used")
        self._stack.append(layer)
        if names is not None:
            names.add(layer.name)
        structure.changed()
        self.built = False
        self.__dict__["_functional"] = None
        if rebuild:
            self._rebuild()

    def pop(self, rebuild: bool = True) -> Layer:
        """Remove and return the last layer."""
        if not self.layers:
            raise IndexError(f"{self.name}.pop: the model has no layers to remove")
        layer = self._stack.pop()
        structure.changed()
        self.built = False
        self.__dict__["_functional"] = None
        if rebuild:
            self._rebuild()
        return layer

    def _rebuild(self) -> None:
        if self._stack and isinstance(self._stack[0], InputLayer) and len(self._stack) > 1:
            self._build_graph(self._stack[0])

    def _build_graph(self, input_layer: InputLayer) -> None:
        x = input_layer.output
        skip = host_prefix(self)           # they run on the data before the graph
        for layer in self._stack[1:]:
            if any(layer is h for h in skip):
                continue
            _check_single_positional(self.name, layer)
            x = layer(x)
            if len(tree.flatten(x)) != 1:
                raise ValueError(f"{self.name}: every layer of a Sequential model must have "
                                 f"one output; {layer.name} returned {len(tree.flatten(x))}")
        functional = Functional(input_layer.output, x, name=f"{self.name}_graph")
        functional.__dict__["_shown_name"] = self.name      # errors name the user's model
        # Keras 3 checks no sizes against a Sequential's Input: its layers check them
        functional.__dict__["_layers_check_sizes"] = True
        self.__dict__["_functional"] = functional
        self._build_shapes = input_layer.batch_shape
        self.built = True
        structure.changed()

    @property
    def layers(self) -> list[Layer]:
        return [layer for layer in self._stack if not isinstance(layer, InputLayer)]

    @layers.setter
    def layers(self, _):
        raise AttributeError(f"{self.name}: `Model.layers` attribute is reserved and should "
                             f"not be used. Use `add()` and `pop()` to change the layers in "
                             f"this model.")

    def _sublayers(self) -> list[Layer]:
        return self.layers

    def build(self, input_shape=None) -> None:
        """Build for inputs of ``input_shape`` (batch size included, e.g. ``(None, 3)``)."""
        first = self._stack[0] if self._stack else None
        if input_shape is not None and isinstance(first, InputLayer) and \
                _is_shape(input_shape) and not _compatible(first.batch_shape, input_shape):
            raise ValueError(f"{self.name}.build: the model's input has already been "
                             f"configured with shape {first.batch_shape}; received "
                             f"input_shape {tuple(input_shape)}")
        if self._functional is not None:
            self.built = True
            return
        if input_shape is None:
            if self._stack and isinstance(self._stack[0], InputLayer):
                input_shape = self._stack[0].batch_shape
            else:
                raise ValueError(f"{self.name}.build: argument 'input_shape' is required "
                                 f"(e.g. (None, 784)); the model has no Input")
        if isinstance(input_shape, list) and input_shape and isinstance(input_shape[0],
                                                                        (list, tuple)):
            raise ValueError(f"{self.name}: a Sequential model has one input; received "
                             f"input_shape {input_shape}")
        if not self._stack or not isinstance(self._stack[0], InputLayer):
            self._stack.insert(0, InputLayer(batch_shape=tuple(input_shape)))
        if len(self._stack) == 1:
            raise ValueError(f"{self.name}.build: the model has no layers")
        self._build_graph(self._stack[0])

    def __call__(self, *args, **kwargs):
        if args and host_prefix(self):
            args = (apply_host_prefix(self, args[0]), *args[1:])
        return super().__call__(*args, **kwargs)

    def _maybe_build(self, inputs, args, kwargs) -> None:
        if not self.built:
            shape = getattr(inputs, "shape", None)
            if shape is None and isinstance(inputs, (list, tuple, dict)):
                # Keras 3: nested inputs (a list, a dict) build no graph; call() then runs
                # the layers one after the other on the structure
                self.built = True
                return
            if shape is None:
                raise ValueError(f"{self.name}: a Sequential model takes one tensor (or a "
                                 f"list or dict of tensors) as input; received "
                                 f"{type(inputs).__name__}")
            self.build((None, *tuple(shape)[1:]))

    def call(self, inputs, training=None, mask=None):
        if self._functional is not None:
            return self._functional.call(inputs, training=training, mask=mask)
        x = inputs
        for layer in self.layers:
            x = layer(x)
        return x

    def _built_functional(self, attribute: str):
        if self._functional is None:        # Keras: AttributeError, so hasattr() is False
            raise UnbuiltSequentialError(
                f"Sequential model '{self.name}' has no defined {attribute} yet: its "
                f"input shape is unknown until it is built (start it with "
                f"lamina.Input(shape), or call or build it first)")
        return self._functional

    @property
    def inputs(self):
        return self._built_functional("inputs").inputs

    @property
    def outputs(self):
        return self._built_functional("outputs").outputs

    @property
    def input_shape(self):
        return self._built_functional("input_shape").input_shape

    @property
    def output_shape(self):
        return self._built_functional("output_shape").output_shape

    @property
    def input(self):
        return self._functional.input if self._functional else super().input

    @property
    def output(self):
        return self._functional.output if self._functional else super().output

    def get_config(self) -> dict:
        layers = []
        for layer in self._stack:
            entry = serialize_keras_object(layer)
            layers.append(entry)
        config = {"name": self.name, "trainable": self.trainable,
                  "dtype": Layer.get_config(self)["dtype"], "layers": layers}
        if self._build_shapes is not None:
            config["build_input_shape"] = list(self._build_shapes)
        return config

    @classmethod
    def from_config(cls, config: dict, custom_objects=None):
        if not isinstance(config, dict) or "name" not in config or "layers" not in config:
            raise ArgumentTypeError(
                f"Sequential.from_config: argument 'config' must be a dict with 'name' and "
                f"'layers' keys (A Sequential model configuration must be a dictionary "
                f"containing the 'name' and 'layers' keys); received "
                f"{sorted(config) if isinstance(config, dict) else type(config).__name__}")
        model = cls(name=config.get("name"), trainable=config.get("trainable", True))
        names: set = set()
        for entry in config.get("layers", []):
            layer = deserialize(entry, custom_objects)
            model._add(layer, rebuild=False, names=names)
        shape = config.get("build_input_shape")
        if model._stack and isinstance(model._stack[0], InputLayer):
            model._rebuild()
        elif shape is not None:
            shape = tuple(shape)
            stateful = any(getattr(layer, "stateful", False) for layer in model.layers)
            if not stateful:      # a model built by fit() records that batch's size
                shape = (None, *shape[1:])
            model.build(shape)
        return model


def _check_single_positional(model: str, layer) -> None:
    """Each layer of a Sequential model takes the previous one's output as its one required
    positional argument (Keras 3 refuses others when it builds the model)."""
    try:
        params = inspect.signature(layer.call).parameters.values()
    except (TypeError, ValueError):        # a builtin or C callable: nothing to check
        return
    positional = [p for p in params if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    required = [p.name for p in positional if p.default is p.empty]
    if not positional and not any(p.kind is p.VAR_POSITIONAL for p in params):
        raise ValueError(f"{model}: Layers added to a Sequential model should have a single "
                         f"positional argument, the input tensor; layer {layer.name!r} "
                         f"({type(layer).__name__}) has no positional arguments")
    if len(required) > 1:
        raise ValueError(f"{model}: Layers added to a Sequential model can only have a single "
                         f"required positional argument, the input tensor; layer "
                         f"{layer.name!r} ({type(layer).__name__}) requires {required}")


def _single_input(layer):
    """The one input tensor of a model that has its inputs (a functional model, a built
    Sequential), else None."""
    if not isinstance(layer, Model):
        return None
    try:
        inputs, structure = layer.inputs, layer.input
    except AttributeError:             # an unbuilt Sequential or a subclassed model
        return None
    if isinstance(structure, dict) or not isinstance(inputs, list) or len(inputs) != 1:
        return None
    return inputs[0]


def _compatible(batch_shape, input_shape) -> bool:
    """Whether ``input_shape`` describes inputs of ``batch_shape`` (None matches any size)."""
    input_shape = tuple(input_shape)
    return len(batch_shape) == len(input_shape) and all(
        a is None or b is None or a == b for a, b in zip(batch_shape, input_shape))


def _is_shape(value) -> bool:
    return isinstance(value, (list, tuple)) and all(d is None or isinstance(d, int)
                                                     for d in value)
