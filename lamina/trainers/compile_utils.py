"""What ``compile(loss=..., metrics=...)`` becomes: one object for the losses of all outputs
(:mod:`.compile_loss`) and one for their metrics (:mod:`.compile_metrics`), laid over the
structure of the model's outputs as Keras 3 does."""
from __future__ import annotations

from .compile_loss import CompileLoss, get_loss, loss_weight
from .compile_metrics import CompileMetrics, get_metric


__all__ = ["CompileLoss", "CompileMetrics", "get_loss", "get_metric", "loss_weight"]
