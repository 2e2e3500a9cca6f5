"""``Model``: a layer with training, inspection and saving (Keras 3's ``keras.Model``).

``Model(inputs, outputs)`` builds a functional model; subclassing ``Model`` and writing
``call`` gives a subclassed one, built on its first call.
"""
from __future__ import annotations

import inspect

from .. import tree
from ..core.saveable import register_saveable_base
from ..core.symbolic import SymbolicTensor
from ..layers import call_context
from ..layers.layer import Layer
from .graph_methods import GraphMixin
from .quantize import ModelQuantizeMixin
from .state_tree import StateTreeMixin
from .summary import print_summary
from ..saving.model_methods import SavingMixin
from ..trainers import Trainer
from . import functional


def _functional_arguments(args, kwargs) -> bool:
    return len(args) == 2 or (len(args) == 1 and "outputs" in kwargs) or (
        "inputs" in kwargs and "outputs" in kwargs)


class Model(ModelQuantizeMixin, GraphMixin, StateTreeMixin, SavingMixin, Trainer, Layer):
    """Groups layers into an object with training and inference features."""

    _keras_module = "keras"

    def __new__(cls, *args, **kwargs):
        if cls is Model and _functional_arguments(args, kwargs):
            Functional = _functional().Functional
            return Functional.__new__(Functional, *args, **kwargs)
        return super().__new__(cls, *args, **kwargs)

    def __init__(self, *args, **kwargs):
        if _functional_arguments(args, kwargs):
            Functional = _functional().Functional
            if not isinstance(self, Functional):
                # A Model subclass that calls super().__init__(inputs, outputs) becomes a
                # functional model too; its own call(), if any, still wins.
                self.__class__ = _with_functional(type(self), Functional)
                Functional._init_graph(self, *args, **kwargs)
                return
        Layer.__init__(self, *args, **kwargs)
        Trainer.__init__(self)          # not compiled yet: model.compiled is False (Keras 3)

    # ---------------------------------------------------------------- inspection
    @property
    def layers(self) -> list[Layer]:
        return list(self._sublayers())

    @layers.setter
    def layers(self, _):
        raise AttributeError(f"{self.name}: `Model.layers` attribute is reserved and should "
                             f"not be used. Please use another name.")

    def _flatten_layers(self, include_self: bool = True, recursive: bool = True) -> list:
        """This model (with ``include_self``) and its layers, each once, depth first:
        a nested model's layers follow it (Keras 3's ``_flatten_layers``)."""
        result = [self] if include_self else []
        seen = {id(self)}
        pending = list(self._sublayers())
        while pending:
            layer = pending.pop(0)
            if id(layer) in seen:
                continue
            seen.add(id(layer))
            result.append(layer)
            if recursive:
                pending[:0] = list(getattr(layer, "_sublayers", lambda: [])())
        return result

    def get_layer(self, name: str | None = None, index: int | None = None) -> Layer:
        """A layer by unique name or by index in :attr:`layers`."""
        if index is not None and name is not None:
            raise ValueError(f"{self.name}.get_layer: provide either 'name' or 'index', not "
                             f"both; received name={name!r}, index={index!r}")
        if index is not None:
            if not -len(self.layers) <= index < len(self.layers):
                raise ValueError(f"{self.name}.get_layer: argument 'index' must be in "
                                 f"[0, {len(self.layers)}); received {index}")
            return self.layers[index]
        if name is None:
            raise ValueError(f"{self.name}.get_layer: provide a layer 'name' or 'index'")
        for layer in self.layers:
            if layer.name == name:
                return layer
        names = ", ".join(repr(layer.name) for layer in self.layers)
        raise ValueError(f"{self.name}.get_layer: no layer named {name!r}; the model's "
                         f"layers are {names}")

    def summary(self, line_length=None, positions=None, print_fn=None, expand_nested=False,
                show_trainable=False, layer_range=None) -> None:
        """Print the layers, their output shapes and parameter counts (Keras 3's layout)."""
        print_summary(self, line_length=line_length, positions=positions, print_fn=print_fn,
                      expand_nested=expand_nested, show_trainable=show_trainable,
                      layer_range=layer_range)

    def build(self, input_shape=None) -> None:
        """Build a subclassed model by calling it on a symbolic input of this shape."""
        if input_shape is None:
            raise ValueError(f"{self.name}.build: argument 'input_shape' is required for a "
                             f"subclassed model; received None")
        if not self.built and type(self).build is Model.build and \
                type(self).call is not Layer.call:
            self.built = True        # so the call below does not come back here
            try:
                inputs = (SymbolicTensor(input_shape, self.compute_dtype)
                          if _is_shape(input_shape)
                          else [SymbolicTensor(s, self.compute_dtype) for s in input_shape])
                with call_context.tracing():
                    self.call(inputs)
            except Exception:
                self.built = False
                raise
        self._build_shapes = input_shape
        self.built = True

    def _maybe_build(self, inputs, args, kwargs) -> None:
        # A subclassed model builds its sublayers by running: no symbolic trace first, so
        # Python control flow on values in call() keeps working eagerly.
        if type(self).build is Model.build:
            self._build_shapes = tree.map_structure(   # for get_build_config / load_model
                lambda x: (None, *tuple(x.shape)[1:]) if hasattr(x, "shape") else None, inputs)
            self.built = True
            return
        Layer._maybe_build(self, inputs, args, kwargs)

    def get_config(self) -> dict:
        return {"name": self.name, "trainable": self.trainable,
                **(self._auto_config() or {})}

    @classmethod
    def from_config(cls, config: dict, custom_objects=None):
        """A model from ``get_config()``: a functional config rebuilds the graph (and
        passes any other keys of the config, a subclass's own arguments, to ``cls``);
        any other config is ``cls(**config)``."""
        functional = all(k in config for k in ("name", "layers", "input_layers",
                                                "output_layers"))
        if functional and _revivable_as_functional(cls):
            return _functional().functional_from_config(cls, config, custom_objects)
        try:
            return cls(**config)
        except TypeError as error:
            raise TypeError(f"{cls.__name__}.from_config: Unable to revive model from config "
                            f"({error}). A get_config() override must return every "
                            f"argument of the constructor, or the class must define "
                            f"from_config(cls, config); received config keys "
                            f"{sorted(config)}") from error


def _revivable_as_functional(cls) -> bool:
    """Whether ``cls(inputs=..., outputs=..., name=..., **rest)`` makes the model: Model,
    Functional, or a subclass whose constructor takes Functional's arguments or passes
    ``*args, **kwargs`` on (Keras 3's rule)."""
    Functional = _functional().Functional
    if cls in (Model, Functional) or cls.__dict__.get("_functional_mixin"):
        return True
    spec = inspect.getfullargspec(cls.__init__)
    functional_args = inspect.getfullargspec(Functional.__init__).args[1:]
    return spec.args[1:] == functional_args or (spec.varargs is not None and
                                                spec.varkw is not None)


_FUNCTIONAL_SUBCLASSES: dict[type, type] = {}


def _with_functional(cls: type, functional: type) -> type:
    if cls not in _FUNCTIONAL_SUBCLASSES:
        _FUNCTIONAL_SUBCLASSES[cls] = type(cls.__name__, (cls, functional),
                                           {"__module__": cls.__module__,
                                            "_functional_mixin": True})
    return _FUNCTIONAL_SUBCLASSES[cls]


def _is_shape(x) -> bool:
    return isinstance(x, (list, tuple)) and all(d is None or isinstance(d, int) for d in x)


register_saveable_base("Model", Model)     # saving checks "is this a model?" by kind


def _functional():
    """``models/functional.py``, which subclasses Model (so it imports this module first)."""
    return functional
