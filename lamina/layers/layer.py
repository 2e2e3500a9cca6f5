"""The Layer base class: Keras 3's four-method contract."""
from __future__ import annotations

import functools
import inspect

from .. import constraints, initializers, regularizers, tree
from ..core.stateless_scope import get_stateless_scope
from ..core.tensor import Tensor, TensorBase
from ..core.variable import Variable
from ..core import structure, weight_budget
from ..core.symbolic import SymbolicTensor
from ..dtypes import is_float, itemsize, standardize
from ..errors import describe_shape
from ..traceback_filter import filter_traceback
from ..graph import trace as graph_trace
from ..ops import convert_to_tensor
from . import call_context
from .call_protocol import run_call
from .config import LayerConfigMixin
from .input_spec import check_input_compatibility
from ..core.naming import to_snake_case, unique_name
from .node import LayerNode
from .own_variables import LayerError, OwnVariablesMixin
from .quantize import QuantizeMixin
from .tracking import LayerTrackingMixin
from .add_weight_args import resolve_positional
from .shape_arguments import declares_output_shape, shape_arguments, spec_from_output_shape
from . import initial_values, remat_scope
from .remat_scope import get_current_remat_mode
from .stateless_call import stateless_call
from ..core.saveable import register_saveable_base

_CONSTRUCTION_KWARGS = {"input_shape", "input_dim", "batch_input_shape", "batch_size",
                        "input_length"}


class Layer(LayerConfigMixin, OwnVariablesMixin, QuantizeMixin, LayerTrackingMixin):
    """A unit of computation with state: subclass it and write four methods.

    - ``__init__(self, ..., **kwargs)`` validates and stores the configuration and passes
      ``**kwargs`` (name, dtype, trainable, ...) to ``super().__init__``. No weights yet:
      the input size is not known.
    - ``build(self, input_shape)`` creates the weights with :meth:`add_weight`. It runs
      once, on the first call, with the input's shape (None for the batch size).
    - ``call(self, inputs, training=None, mask=None)`` computes the output with
      ``lamina.ops``. ``training=None`` means "inherit": the caller's value (``fit`` sets
      True, ``predict`` False) reaches every nested layer. Declare only the arguments the
      layer uses; ``mask`` is filled from the inputs' masks when ``call`` accepts it.
    - ``get_config(self)`` returns the constructor arguments merged with the base config
      (name, trainable, dtype), so ``cls.from_config(config)`` makes an equal layer.

    Example::

        class Scale(lamina.layers.Layer):
            def __init__(self, init=1.0, **kwargs):
                super().__init__(**kwargs)
                self.init = init

            def build(self, input_shape):
                self.scale = self.add_weight(shape=(input_shape[-1],), name="scale",
                                             initializer=lamina.initializers.Constant(self.init))

            def call(self, inputs):
                return inputs * self.scale

            def get_config(self):
                return {**super().get_config(), "init": self.init}

    Layers that produce or pass masks set ``supports_masking = True`` or override
    ``compute_mask(inputs, mask)``. ``input_spec`` (an :class:`InputSpec`) is checked before
    every call, so misuse raises an error that names the layer.

    Args:
        activity_regularizer: Regularizer applied to the layer's output (added to
            ``layer.losses``), or None.
        trainable: Whether the layer's weights are updated in training.
        dtype: Dtype or dtype policy (e.g. 'float32', 'mixed_float16'); None uses the global
            policy.
        autocast: Whether float inputs are cast to the layer's compute dtype.
        name: Name of the layer; None derives a unique one from the class name.
    """
    saving_kind = "Layer"           # what lamina/saving asks (core/saveable.py)

    _keras_module = "keras.layers"

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        if "build" in cls.__dict__:
            cls.build = _marks_built(cls.__dict__["build"])
        if "__call__" in cls.__dict__:          # an override is an entry point too
            cls.__call__ = filter_traceback(cls.__dict__["__call__"])

    class _ConstructorSignature:
        """``inspect.signature(SomeLayer)`` is its ``__init__``'s, as in Keras (``__new__``
        below takes ``*args, **kwargs`` only to record the arguments for ``get_config``)."""

        def __get__(self, instance, cls):
            if instance is not None:
                raise AttributeError("__signature__")
            signature = inspect.signature(cls.__init__)
            return signature.replace(parameters=list(signature.parameters.values())[1:])

    __signature__ = _ConstructorSignature()

    def __new__(cls, *args, **kwargs):
        instance = super().__new__(cls)
        instance.__dict__["_init_arguments"] = (args, kwargs)
        return instance

    def __init__(self, *, activity_regularizer=None, trainable: bool = True, dtype=None,
                 autocast: bool = True, name: str | None = None, **kwargs):
        unknown = set(kwargs) - _CONSTRUCTION_KWARGS
        cls_name = type(self).__name__
        if unknown:
            raise TypeError(f"{cls_name}: unrecognized keyword argument(s) "
                            f"{', '.join(sorted(map(repr, unknown)))}")
        if not isinstance(trainable, bool):
            raise ValueError(f"{cls_name}: Expected `trainable` to be a boolean; received "
                             f"trainable={trainable!r} (of type {type(trainable).__name__})")
        if name is not None and (not isinstance(name, str) or not name or "/" in name):
            raise ValueError(f"{cls_name}: argument 'name' must be a non-empty string "
                             f"without '/'; received {name!r}")
        self._init_tracking()
        d = self.__dict__
        d.setdefault("_path", None)          # set by build: see ``path``
        d["_losses"] = []
        d["_inbound_nodes"] = []
        d["_trainable"] = bool(trainable)
        self.name = name or unique_name(to_snake_case(cls_name))
        self._set_dtype_policy(dtype)
        self.autocast = autocast
        self.built = False
        self.input_spec = None
        self.supports_masking = getattr(self, "supports_masking", False)
        self._build_shapes = None
        self.activity_regularizer = regularizers.get(activity_regularizer)
        self._batch_input_shape = _batch_shape_from_kwargs(kwargs)
        d["_remat_mode"] = get_current_remat_mode()     # a RematScope at creation (Keras)

    # ---------------------------------------------------------------- weights
    def add_variable(self, shape, initializer, dtype=None, trainable: bool = True,
                     autocast: bool = True, regularizer=None, constraint=None,
                     name: str | None = None) -> Variable:
        """Keras 3's alias of :meth:`add_weight` (shape and initializer required)."""
        return self.add_weight(shape=shape, initializer=initializer, dtype=dtype,
                               trainable=trainable, autocast=autocast,
                               regularizer=regularizer, constraint=constraint, name=name)

    def add_weight(self, *args, shape=None, initializer=None, dtype=None,
                   trainable: bool = True, autocast: bool = True, regularizer=None,
                   constraint=None, aggregation: str = "none",
                   overwrite_with_gradient: bool = False, name: str | None = None) -> Variable:
        """Create a weight (Keras 3's signature) owned by this layer; ``args`` may give
        ``shape``, ``initializer`` and ``dtype`` by position."""
        given = resolve_positional(self.name, args, {"shape": shape, "initializer":
                                                     initializer, "dtype": dtype})
        shape, initializer, dtype = given["shape"], given["initializer"], given["dtype"]
        self._init_tracking()
        self._tracker.check(self, f"a new weight {name or 'variable'!r} from add_weight")
        shape = () if shape is None else tuple(shape)
        for size in shape:
            if not isinstance(size, int) or size < 0:
                raise ValueError(f"{self.name}.add_weight({name!r}): argument 'shape' must be "
                                 f"a tuple of non-negative ints; received {shape}")
        dtype = standardize(dtype) if dtype is not None else self.variable_dtype
        if initializer is None:
            initializer = "glorot_uniform" if is_float(dtype) else "zeros"
        init = initializers.get(initializer)
        # a model rebuilt from a file may not declare more weights than the file holds
        weight_budget.charge(shape, itemsize(dtype), f"{self.name}/{name or 'variable'}")
        with graph_trace.suspended():        # weights start from real numbers, even mid-trace
            value = initial_values.draw(init, shape, dtype)
        # A frozen layer's weights start frozen; unfreezing the layer thaws them.
        variable = Variable(value, dtype=dtype, trainable=trainable and self.trainable,
                            autocast=autocast,
                            aggregation=aggregation, name=name or "variable")
        inside_build = call_context.current_scope() == self.name
        variable.path = call_context.weight_path(
            variable.name if inside_build else f"{self.name}/{variable.name}")
        variable.regularizer = regularizers.get(regularizer)
        variable.constraint = constraints.get(constraint)
        variable.overwrite_with_gradient = overwrite_with_gradient
        initial_values.note(variable, init, shape, dtype)
        store = self._trainable_variables if trainable else self._non_trainable_variables
        store.append(variable)
        structure.changed()                 # compiled steps of older weights are stale
        return variable

    def get_weights(self) -> list:
        """Copies of the weights as host numpy arrays, in :attr:`weights` order."""
        return [v.numpy() for v in self.weights]

    def set_weights(self, weights) -> None:
        """Write arrays into the existing weights (same order and shapes as get_weights)."""
        own = self.weights
        weights = list(weights)
        if len(weights) != len(own):
            raise ValueError(
                f"{self.name}.set_weights: expected a list of {len(own)} arrays "
                f"({', '.join(v.path for v in own) or 'the layer has no weights yet'}); "
                f"received {len(weights)}")
        for variable, value in zip(own, weights):
            shape = tuple(getattr(value, "shape", ()))
            if shape != variable.shape:
                raise ValueError(
                    f"{self.name}.set_weights: weight '{variable.path}' has shape "
                    f"{describe_shape(variable.shape)}; received an array of shape "
                    f"{describe_shape(shape)}")
        for variable, value in zip(own, weights):
            variable.assign(value)

    def count_params(self) -> int:
        if not self.built:
            raise ValueError(f"{self.name}.count_params: the layer is not built yet; call it "
                             f"on an input or call build(input_shape) first")
        total = 0
        for variable in self.weights:
            size = 1
            for d in variable.shape:
                size *= d
            total += size
        return total

    # ---------------------------------------------------------------- losses
    def add_loss(self, loss) -> None:
        """Add a scalar to the model's loss for this call."""
        if _is_symbolic(loss) and graph_trace.active() is None:
            return            # functional-API building: real calls add the loss again
        if not isinstance(loss, TensorBase):
            loss = convert_to_tensor(loss)
        scope = get_stateless_scope()
        if scope is None:
            self._losses.append(loss)
        elif scope.collect_losses:          # a StatelessScope keeps them; else dropped
            scope.add_loss(loss)
            self.__dict__.setdefault("_loss_ids", set()).add(id(loss))

    @property
    def losses(self) -> list:
        """This call's added losses plus the regularization of the weights, with sublayers'."""
        scope = get_stateless_scope()
        if scope is None:
            result = list(self._losses)
        else:
            ids = self.__dict__.get("_loss_ids", ())
            result = [x for x in scope.losses if id(x) in ids]
        for variable in self._trainable_variables:
            if variable.regularizer is not None and variable.trainable:
                result.append(variable.regularizer(variable))
        for layer in self._sublayers():
            result.extend(layer.losses)
        return result

    def _clear_losses(self) -> None:
        ids = self.__dict__.get("_loss_ids")
        if ids:
            scope = get_stateless_scope()
            if scope is not None:
                scope.losses[:] = [x for x in scope.losses if id(x) not in ids]
            ids.clear()
        self._losses.clear()
        for layer in self._sublayers():
            layer._clear_losses()

    def stateless_call(self, trainable_variables, non_trainable_variables, *args,
                       return_losses=False, **kwargs):
        """Call the layer on the given weight values without changing its variables:
        returns ``(outputs, non_trainable_variables)`` (the new values of the
        non-trainable state), plus the losses with ``return_losses=True``."""
        return stateless_call(self, trainable_variables, non_trainable_variables, args,
                              kwargs, return_losses)

    # ---------------------------------------------------------------- build and call
    def build(self, input_shape) -> None:
        """Create the weights for inputs of ``input_shape``; the default creates none."""
        self.built = True

    @property
    def _call_context_args(self) -> frozenset:
        """The call arguments that nested layer calls inherit: ``training``, plus those
        registered with :meth:`_register_call_context_args` (Keras 3)."""
        return frozenset({"training", *self.__dict__.get("_context_arg_names", ())})

    def _register_call_context_args(self, *names: str) -> None:
        """Keras 3's hook: make each of ``names`` a call-context argument of this layer.
        A value passed to the layer's call (or inherited from an enclosing layer that
        registered the name) reaches ``call`` when it declares that argument, and every
        nested layer call that registered the name too; ``call`` need not declare it."""
        if self.__dict__.get("_called"):
            raise RuntimeError(f"{self.name}: Cannot add call-context args after the layer "
                               f"has been called. (received {', '.join(names)})")
        for name in names:
            if not isinstance(name, str) or not name.isidentifier() or name == "training":
                raise ValueError(f"{self.name}._register_call_context_args: each name must be "
                                 f"an argument name other than 'training'; received "
                                 f"{name!r}")
        known = self.__dict__.get("_context_arg_names", ())
        self.__dict__["_context_arg_names"] = tuple(dict.fromkeys((*known, *names)))

    def _build_at_init(self) -> None:
        """Mark a stateless layer built at the end of its ``__init__`` (Keras 3's hook):
        only when the class keeps the default ``build``, so a subclass that defines one
        still has it called on the first input."""
        if type(self).build is Layer.build:
            self.built = True
            self._lock_state()

    def call(self, inputs, *args, **kwargs):
        raise NotImplementedError(f"Layer {type(self).__name__} does not have a `call` method "
                                  f"implemented. ({self.name} defines no call(); subclass "
                                  f"Layer and write one)")

    def rematerialized_call(self, layer_call, *args, **kwargs):
        """``layer_call`` as this layer's RematScope mode says (Keras 3's method): itself
        for a layer created outside a RematScope; ``args``/``kwargs`` are the inputs the
        call will get, which the ``"larger_than"`` mode measures."""
        if not remat_scope.applies(self, symbolic=False):
            return layer_call
        return remat_scope.rematerialized_call(self, tuple, args, kwargs, call=layer_call)

    def compute_mask(self, inputs, mask=None):
        """The output mask: the input's mask when the layer supports masking, else None."""
        return mask if self.supports_masking else None

    @filter_traceback
    def __call__(self, *args, **kwargs):
        return run_call(self, args, kwargs)

    def _maybe_build(self, inputs, args, kwargs) -> None:
        if self.built:
            return
        shapes = tree.map_structure(lambda x: _shape_of(x), inputs)
        build_kwargs = shape_arguments(self, self.build, args, kwargs)
        with call_context.name_scope(self.name):
            _record_path(self, 0)
            if build_kwargs is None:
                self.build(shapes)
            else:
                self.build(**build_kwargs)
        self._build_shapes = shapes
        self.built = True
        self._lock_state()

    def get_build_config(self) -> dict | None:
        """``{"input_shape": ...}`` once built, so a loader can build before setting weights."""
        if self._build_shapes is None:
            # built by ``build()`` with no shape (Embedding): Keras's empty shapes_dict,
            # so that a loader builds the layer before setting its weights
            return {"shapes_dict": {}} if self.__dict__.get("_built_without_shape") else None
        return {"input_shape": _as_lists(self._build_shapes)}

    def build_from_config(self, config: dict) -> None:
        """Build from ``get_build_config()``'s output (or Keras's ``shapes_dict`` form)."""
        config = config or {}
        if self.built:
            return
        if config.get("shapes_dict") is not None:
            shapes = {k: _as_tuples(v) for k, v in config["shapes_dict"].items()}
            self.build(**shapes)
        elif config.get("input_shape") is not None:
            shape = _as_tuples(config["input_shape"])
            self.build(shape)
            self._build_shapes = shape

    # ---------------------------------------------------------------- shape inference
    def compute_output_spec(self, *args, **kwargs):
        """Output SymbolicTensor(s) for inputs described by ``args`` (tensors or specs):
        from ``compute_output_shape`` where a user's layer defines it (Keras 3), else by
        running ``call`` on symbolic inputs."""
        if declares_output_shape(self):
            return spec_from_output_shape(self, args, kwargs)
        return self._spec_by_call(args, kwargs)

    def _spec_by_call(self, args, kwargs):
        def as_symbolic(x):
            if isinstance(x, SymbolicTensor) or not hasattr(x, "shape"):
                return x
            return SymbolicTensor(x.shape, getattr(x, "dtype", None) or self.compute_dtype)
        args = tree.map_structure(as_symbolic, args)
        with call_context.tracing():
            return self(*args, **kwargs)

    def compute_output_shape(self, input_shape):
        """The output shape for ``input_shape`` (None for unknown sizes), found by running
        ``call`` on symbolic inputs; a layer without ``call`` has none to find."""
        if type(self).call is Layer.call:
            raise NotImplementedError(f"Layer {type(self).__name__} does not have a "
                                      f"`compute_output_shape` method implemented. "
                                      f"({self.name} defines neither it nor call())")
        if _is_shape(input_shape):
            inputs = SymbolicTensor(input_shape, self.compute_dtype)
        else:
            inputs = [SymbolicTensor(shape, self.compute_dtype) for shape in input_shape]
        out = self._spec_by_call((inputs,), {})
        return tree.map_structure(lambda t: t.shape, out)

    # ---------------------------------------------------------------- graph connectivity
    def _node_output(self, attribute: str):
        if not self._inbound_nodes:
            raise AttributeError(f"layer {self.name} has never been called on a symbolic "
                                 f"input, so it has no {attribute}")
        node = self._inbound_nodes[0]
        if attribute == "input":
            tensors = node.input_tensors
            return tensors[0] if len(tensors) == 1 else tensors
        return node.outputs

    @property
    def input(self):
        return self._node_output("input")

    @property
    def output(self):
        return self._node_output("output")

    @property
    def path(self) -> str:
        """Where the layer sits: its name inside the name scopes open when it was built
        (Keras 3; a DTypePolicyMap is keyed by it); its name before it is built."""
        return self.__dict__.get("_path") or self.name

    def __repr__(self) -> str:
        return f"<{type(self).__name__} name={self.name}, built={self.built}>"


# ------------------------------------------------------------------------ helpers
def _marks_built(build):
    """Wrap a subclass's ``build`` so that calling it directly, as Keras allows, also marks
    the layer built and scopes its weight names."""
    @functools.wraps(build)
    def wrapper(self, *args, **kwargs):
        depth = self.__dict__.get("_build_depth", 0)
        self.__dict__["_build_depth"] = depth + 1      # a subclass's build calls super's
        try:
            if call_context.current_scope() == self.name:
                _record_path(self, depth)
                result = build(self, *args, **kwargs)
            else:
                with call_context.name_scope(self.name):
                    _record_path(self, depth)
                    result = build(self, *args, **kwargs)
        finally:
            if depth:
                self.__dict__["_build_depth"] = depth
            else:
                self.__dict__.pop("_build_depth", None)
        self.built = True
        if depth == 0:                      # the outermost build is over: lock (Keras)
            self._refresh_tracking()        # state appended to lists in build counts
            self._lock_state()
        if self._build_shapes is None and args:
            self._build_shapes = args[0]
        elif not args and all(v is None for v in kwargs.values()):
            self.__dict__["_built_without_shape"] = True
        return result
    return wrapper


def _record_path(layer, depth: int) -> None:
    """Keras's ``layer.path``: the name scopes open when the (outermost) build starts, the
    layer's own last (``"mha/query"`` for a sublayer built in its parent's build)."""
    if depth == 0:
        layer.__dict__["_path"] = call_context.weight_path("")[:-1] or layer.name


def _as_lists(shape):
    if isinstance(shape, (list, tuple)):
        return [_as_lists(d) for d in shape]
    return shape


def _as_tuples(shape):
    if isinstance(shape, (list, tuple)):
        if all(d is None or isinstance(d, int) for d in shape):
            return tuple(shape)
        return [_as_tuples(d) for d in shape]
    if isinstance(shape, dict):
        return {k: _as_tuples(v) for k, v in shape.items()}
    return shape


def _is_symbolic(x) -> bool:
    return isinstance(x, SymbolicTensor)


def _is_shape(x) -> bool:
    return isinstance(x, (list, tuple)) and all(d is None or isinstance(d, int) for d in x)


def _shape_of(x):
    return tuple(x.shape) if hasattr(x, "shape") else None


def _batch_shape_from_kwargs(kwargs: dict):
    if kwargs.get("batch_input_shape") is not None:
        return tuple(kwargs["batch_input_shape"])
    if kwargs.get("input_shape") is not None:
        return (kwargs.get("batch_size"), *tuple(kwargs["input_shape"]))
    if kwargs.get("input_dim") is not None:
        return (kwargs.get("batch_size"), kwargs["input_dim"])
    return None


# saving/object_graph.py leaves out the attributes every plain Layer has (Keras's rule)
register_saveable_base("Layer", Layer, lambda: Layer(name="saving_reference"))

__all__ = ["Layer", "LayerError", "LayerNode", "check_input_compatibility", "Tensor"]
