"""Variables: trainable state held in a buffer whose identity never changes."""
from __future__ import annotations

import itertools
import weakref

from ..dtypes import floatx, is_float, itemsize, standardize
from ..errors import ShapeError, describe_shape
from . import mode, structure, weight_budget
from .layer_path import scope_names
from .symbolic import SymbolicTensor
from .tensor import Tensor

_uid = itertools.count()


def note_views(owner: "Variable", outputs) -> None:
    """Called by the eager dispatcher for an op that read ``owner`` (or a tensor sharing its
    buffer): remember the outputs that share the buffer too (a view, or the buffer itself),
    so that the next in-place write copies them first. Outputs with their own memory (a
    matmul's, an add's) cost two identity checks and are not recorded."""
    buffer = owner.data
    for out in outputs:
        data = out.data
        if data is buffer or getattr(data, "base", None) is buffer:
            out._owner = owner
            views = owner._views
            if len(views) >= owner._views_limit:      # drop the dead ones now and then
                views[:] = [ref for ref in views if ref() is not None]
                owner._views_limit = max(16, 2 * len(views))
            views.append(weakref.ref(out))


class Variable(Tensor):
    """Mutable state read by ops like a tensor (Keras 3's ``keras.Variable``).

    ``assign``/``assign_add``/``assign_sub`` write into the existing buffer, so anything
    bound to it (an optimizer slot, a compiled step) sees the new value. Tensors read from
    it before the write keep their value: they share the buffer until the write, which
    first copies those still alive (copy-on-write; see ``note_views``).

    >>> v = Variable([1.0, 2.0], name="w")
    >>> v.assign_add([1.0, 1.0]).numpy()
    array([2., 3.], dtype=float32)

    Args:
        initializer: the initial value (array-like or tensor), or an initializer
            (instance, name or callable ``(shape, dtype)``) used with ``shape``.
        shape: the variable's shape; required with an initializer.
        dtype: the variable's dtype (None: from the value, or ``floatx()``).
        trainable: bool; whether gradients update it (default True).
        autocast: bool; read it in the compute dtype under mixed precision
            (default True).
        aggregation: how replicas combine it, kept for Keras compatibility: ``"none"``
            (default), ``"mean"``, ``"sum"`` or ``"only_first_replica"``.
        synchronization: when replicas synchronize it, kept for Keras compatibility
            (default ``"auto"``).
        name: the variable's name (None: an automatic one).
        layout: None, or a replicated ``TensorLayout`` (every axis None); anything else
            raises ValueError.
        **kwargs: Lamina's own ``backend`` (which backend holds the value); anything
            else raises TypeError.
    """
    __slots__ = ("_trainable", "name", "path", "autocast", "aggregation", "synchronization",
                 "regularizer", "constraint", "_uid", "_version", "_views", "_views_limit",
                 "_overwrite_with_gradient")

    def __init__(self, initializer, shape=None, dtype=None, trainable: bool = True,
                 autocast: bool = True, aggregation: str = "none",
                 synchronization: str = "auto", name: str | None = None, layout=None,
                 **kwargs):
        backend = kwargs.pop("backend", None)      # Lamina's: which backend holds the value
        if kwargs:
            raise TypeError(f"Variable: unrecognized keyword arguments {sorted(kwargs)}")
        axes = getattr(layout, "axes", None)
        if layout is not None and (axes is None or any(a is not None for a in axes)):
            # a replicated layout (every axis None) is what every variable has already
            raise ValueError(f"Variable: argument 'layout' must be None or a TensorLayout "
                             f"that splits no dimension (axes all None): Lamina's "
                             f"keras.distribution is data-parallel only, every process "
                             f"holds the whole variable; received {layout!r}")
        # Initial values are real numbers, also when a variable is created while tracing.
        with mode.trace_suspended():
            self._create(initializer, shape, dtype, trainable, autocast, aggregation,
                         synchronization, name, backend)

    def _create(self, initializer, shape, dtype, trainable, autocast, aggregation,
                synchronization, name, backend) -> None:
        ops = mode.ops()
        convert_to_tensor, to_backend_tensor = ops.convert_to_tensor, ops._to_backend_tensor
        if callable(initializer) and not isinstance(initializer, Tensor):
            if shape is None:
                raise ValueError("Variable: argument 'shape' is required when the initializer "
                                 f"is a callable; received initializer={initializer!r}")
            dtype = standardize(dtype) if dtype is not None else floatx()
            weight_budget.charge(shape, itemsize(dtype), name or "variable")
            initializer = initializer(tuple(shape), dtype=dtype)
        value = to_backend_tensor(initializer, dtype=dtype, backend=backend)
        if dtype is None and is_float(value.dtype) and value.dtype != floatx():
            value = convert_to_tensor(value, dtype=floatx())   # Keras: floats default to floatx
        if shape is not None and tuple(shape) != value.shape:
            raise ShapeError(f"Variable '{name}': argument 'shape' is {describe_shape(shape)} "
                             f"but the initial value has shape {describe_shape(value.shape)}")
        self.backend = value.backend
        # Own a fresh, writable, contiguous buffer.
        self.data = value.backend.xp.array(value.data, copy=True, order="C")
        self._trainable = bool(trainable)
        self.autocast = bool(autocast)
        self.aggregation = aggregation
        self.synchronization = synchronization
        self._uid = next(_uid)
        self._version = 0              # bumped by every in-place write (see GradientTape)
        self._owner = self             # ops reading the buffer note their views (tensor.py)
        self._views: list = []         # weak references to tensors sharing the buffer
        self._views_limit = 16
        self.name = name if name is not None else f"variable_{self._uid}"
        # Keras: a variable made inside name scopes has them as its path's prefix; a layer
        # or an optimizer that owns it sets its path again
        self.path = "/".join([*scope_names(), self.name])
        self.regularizer = None        # set by Layer.add_weight
        self.constraint = None         # applied by optimizers after each update
        self._overwrite_with_gradient = False

    @property
    def trainable(self) -> bool:
        return self._trainable

    @trainable.setter
    def trainable(self, value) -> None:
        """Freezing or unfreezing a weight changes what compiled training steps update:
        they are traced again (``lamina.core.structure``)."""
        if bool(value) != self._trainable:
            self._trainable = bool(value)
            structure.changed()

    @property
    def overwrite_with_gradient(self) -> bool:
        """Whether optimizers assign this variable its "gradient" instead of stepping
        (Keras 3: the delayed-scaling state of float8 layers, whose custom gradients are
        the new values)."""
        return self._overwrite_with_gradient

    @overwrite_with_gradient.setter
    def overwrite_with_gradient(self, value) -> None:
        if not isinstance(value, bool):
            raise TypeError(f"`overwrite_with_gradient` must be a boolean. Received: "
                            f"{value}")
        self._overwrite_with_gradient = value

    def numpy(self):
        """A host copy of the current value: later assigns do not change it."""
        scoped = self._scoped_value()
        if scoped is not None:
            return scoped.numpy()
        host = self.backend.to_host(self.data)
        return host.copy() if host is self.data or getattr(host, "base", None) is self.data \
            else host

    @property
    def value(self) -> Tensor:
        """The current value, as a plain tensor that does not change with later assigns
        (while a graph is traced: the value the graph reads when it runs)."""
        scoped = self._scoped_value()
        if scoped is not None:
            return scoped
        recording = mode.active_trace()
        if recording is not None:
            return recording.read(self)
        return mode.ops()._read_value(self)

    def _scoped_value(self):
        """The value the innermost open StatelessScope gives this variable, or None."""
        scope = mode.current("stateless")
        return None if scope is None else scope.get_current_value(self)

    def before_write(self) -> None:
        """Call before writing into ``self.data`` in place (assign, a graph plan's update):
        eager tensors that still share the buffer get their own copy first."""
        if self._views:
            self._release_views()

    def after_write(self) -> None:
        """Call after writing into ``self.data`` in place: the version the tape checks
        (a value recorded before the write is no longer the variable's) moves on."""
        self._version += 1

    def _release_views(self) -> None:
        """Tensors still sharing the buffer get their own copy (see before_write)."""
        views = self._views
        for ref in views:
            t = ref()
            if t is not None and t._owner is self:
                t.data = t.data.copy()
                t._owner = None
        views.clear()

    def _coerce(self, value, method: str):
        t = mode.ops()._to_backend_tensor(value, dtype=self.dtype, backend=self.backend)
        if t.shape != self.shape:
            raise ShapeError(f"Variable '{self.name}'.{method}: expected a value of shape "
                             f"{describe_shape(self.shape)}; received shape "
                             f"{describe_shape(t.shape)}")
        return t.data

    def _write_in_scope(self, value, combine=None) -> bool:
        """Inside a StatelessScope: record the write there (``combine(current, value)``
        for assign_add/assign_sub) and return True."""
        scope = mode.current("stateless")
        if scope is None:
            return False
        if combine is not None:
            value = combine(self.value, mode.ops().convert_to_tensor(value, dtype=self.dtype))
        scope.record_write(self, value)
        return True

    def assign(self, value) -> "Variable":
        if self._write_in_scope(value):
            return self
        recording = mode.active_trace()
        if recording is not None:          # compiling: record the write
            recording.assign(self, value)
            return self
        if isinstance(value, SymbolicTensor):   # building a functional model: no value to
            return self                         # write, so Keras skips the update
        value = self._coerce(value, "assign")
        self.before_write()
        self.backend.copy_(self.data, value)
        self.after_write()
        return self

    def assign_add(self, delta) -> "Variable":
        ops = mode.ops()
        if self._write_in_scope(delta, ops.add):
            return self
        recording = mode.active_trace()
        if recording is not None:
            recording.assign(self, ops.add(recording.read(self), ops.cast(delta, self.dtype)))
            return self
        if isinstance(delta, SymbolicTensor):   # (functional-API building, as assign)
            return self
        delta = self._coerce(delta, "assign_add")
        self.before_write()
        self.backend.binary("add", self.data, delta, out=self.data)
        self.after_write()
        return self

    def assign_sub(self, delta) -> "Variable":
        ops = mode.ops()
        if self._write_in_scope(delta, ops.subtract):
            return self
        recording = mode.active_trace()
        if recording is not None:
            recording.assign(self, ops.subtract(recording.read(self),
                                                ops.cast(delta, self.dtype)))
            return self
        if isinstance(delta, SymbolicTensor):   # (functional-API building, as assign)
            return self
        delta = self._coerce(delta, "assign_sub")
        self.before_write()
        self.backend.binary("subtract", self.data, delta, out=self.data)
        self.after_write()
        return self

    def __repr__(self) -> str:
        return (f"<Variable '{self.name}' shape={self.shape} dtype={self.dtype} "
                f"trainable={self.trainable}>")

    def __reduce__(self):
        return (_rebuild_variable, (self.numpy(), self.trainable, self.name,
                                    self.backend.name))


def _rebuild_variable(array, trainable, name, backend_name):
    return Variable(array, dtype=array.dtype.name, trainable=trainable, name=name,
                    backend=backend_name)
