"""Knowledge distillation (Keras 3's ``keras.distillation``): a frozen teacher model
guides a student through extra losses on their outputs or intermediate features."""
from .distillation_loss import DistillationLoss, FeatureDistillation, LogitsDistillation
from .distiller import Distiller

__all__ = ["DistillationLoss", "FeatureDistillation", "LogitsDistillation", "Distiller"]
