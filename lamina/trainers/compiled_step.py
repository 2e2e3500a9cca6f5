"""A train/test/predict step run as a compiled graph (graph mode, the default)."""
from __future__ import annotations

import warnings

from ..graph.function import GraphFunction
from ..core import structure


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
            if getattr(self.function, "trace_error", None) is not error:
                raise                      # a failure while running, not while tracing
            # Code that cannot be traced (Python `if` on a tensor's value, .numpy() in a
            # step): run this step eagerly from now on, as run_eagerly=True would.
            warnings.warn(f"{self.function.name}: the step could not be compiled into a "
                          f"graph ({type(error).__name__}: {error}); it runs eagerly "
                          f"instead. Pass run_eagerly=True to compile() to choose eager "
                          f"mode explicitly.", stacklevel=3)
            self.eager = True
            return self.step(data)

    def _check_structure(self) -> None:
        self._seen_version = structure.version()
        fingerprint = structure.fingerprint(self.model)
        if self._fingerprint is not None and fingerprint != self._fingerprint:
            self.function = GraphFunction(self.step, name=self.function.name)
        self._fingerprint = fingerprint
