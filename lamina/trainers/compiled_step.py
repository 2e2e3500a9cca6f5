"""A train/test/predict step run as a compiled graph (graph mode, the default)."""
from __future__ import annotations

from ..graph.function import GraphFunction


class CompiledStep:
    """Calls ``step`` eagerly until the model and its optimizer have created all their
    variables (the first batch builds them), then runs the traced graph of ``step``, one
    trace per batch signature."""

    def __init__(self, model, step, name: str, train: bool = False):
        self.model = model
        self.step = step
        self.train = train
        self.function = GraphFunction(step, name=f"{model.name}.{name}")

    def ready(self) -> bool:
        if not self.model.built:
            return False
        if self.train:
            optimizer = getattr(self.model, "optimizer", None)
            return optimizer is None or getattr(optimizer, "built", True)
        return True

    def __call__(self, data):
        if not self.ready():
            return self.step(data)
        return self.function(data)
