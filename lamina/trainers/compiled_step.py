"""A train/test/predict step run as a compiled graph (graph mode, the default)."""
from __future__ import annotations

import warnings

from .. import tree
from ..core.tensor import TensorBase
from ..backend import get_backend
from ..graph.function import GraphFunction
from ..core import structure
from ..errors import InputShapeError
from ..data_adapters.device_batch import to_device
from ..traceback_filter import user_stacklevel

MAX_LEAN_CALLS = 16        # bound of the lean predict calls kept (one per array signature)


class CompiledStep:
    """Calls ``step`` eagerly until the model and its optimizer have created all their
    variables (the first batch builds them), then runs the traced graph of ``step``, one
    trace per batch signature. A change of the model's structure (see
    ``lamina.core.structure``) drops the traces."""

    def __init__(self, model, step, name: str, train: bool = False):
        self.model = model
        self.step = step
        self.train = train
        self.function = GraphFunction(step, name=f"{model.name}.{name}",
                                      batch_polymorphic=True)
        self.eager = False
        self.eager_calls = 0
        self._seen_version = None          # the structure version last checked
        self._fingerprint = None           # the model's structure the traces are of
        self._lean: dict = {}              # (backend, type, shape, dtype) -> bound call

    def ready(self) -> bool:
        if self.eager_calls:
            # One eager step has created whatever the step creates lazily: a model that is
            # never built itself (a GAN whose train_step calls its sub-models) or an
            # optimizer the step never uses must not keep the step eager for ever.
            return True
        if not self.model.built:
            return False
        if self.train:
            optimizer = getattr(self.model, "optimizer", None)
            return optimizer is None or getattr(optimizer, "built", True)
        return True

    def __call__(self, data):
        if self.eager or not self.ready():
            self.eager_calls += 1
            return self.step(data)
        if self._seen_version != structure.version():
            self._check_structure()
        try:
            return self.function(data)
        except Exception as error:
            if getattr(self.function, "trace_error", None) is not error or \
                    isinstance(error, InputShapeError):
                raise                      # a failure while running, not while tracing,
                # or data that fits no Input: eager mode would refuse it the same way
            # Code that cannot be traced (Python `if` on a tensor's value, .numpy() in a
            # step): run this step eagerly from now on, as run_eagerly=True would.
            warnings.warn(f"{self.function.name}: the step could not be compiled into a "
                          f"graph ({type(error).__name__}: {error}); it runs eagerly "
                          f"instead. Pass run_eagerly=True to compile() to choose eager "
                          f"mode explicitly.", stacklevel=user_stacklevel())
            self.eager = True
            return self.step(data)

    def predict_array(self, x):
        """The predict step on one host array, its outputs as host arrays: the latency path
        of ``predict_on_batch``. After a first call of a signature (backend, array type,
        shape, dtype) has run the step the ordinary way in graph mode, later calls with the
        same signature run the bound plan directly: no argument flattening, signature
        building or cache lookups per call. A change of the model's structure drops them."""
        backend = get_backend()
        key = (backend, type(x), x.shape, x.dtype)
        if self._seen_version == structure.version() and not self.eager:
            lean = self._lean.get(key)
            if lean is not None:
                return lean(x)
        data = to_device((x, None, None))
        eager_calls = self.eager_calls
        out = self(data)
        if not self.eager and self.eager_calls == eager_calls:     # the graph ran it
            self._remember(key, backend, x, data)
        return tree.map_structure(lambda t: t.numpy(), out)

    def _remember(self, key, backend, x, data) -> None:
        """Bind the plan that ran ``data`` for later calls of ``key``, when the step fed
        the host array itself (no conversion) to the plan and returns tensors only."""
        graph, plan, tensors = self.function.bind(data)
        if len(tensors) != 1 or tensors[0].data is not x or \
                not all(isinstance(o, TensorBase) for o in graph.flat_outputs):
            return
        to_host = backend.to_host
        if isinstance(graph.outputs, TensorBase):
            def lean(array):
                return to_host(plan([array])[0])
        else:
            outputs = graph.outputs

            def lean(array):
                return tree.pack_sequence_as(outputs, [to_host(r) for r in plan([array])])
        if len(self._lean) >= MAX_LEAN_CALLS:
            self._lean.clear()
        self._lean[key] = lean

    def _check_structure(self) -> None:
        self._lean.clear()
        self._seen_version = structure.version()
        fingerprint = structure.fingerprint(self.model)
        if self._fingerprint is not None and fingerprint != self._fingerprint:
            self.function = GraphFunction(self.step, name=self.function.name)
        self._fingerprint = fingerprint
