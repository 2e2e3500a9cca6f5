"""Training and inference loops mixed into ``Model``."""
from .trainer import Trainer

__all__ = ["Trainer"]
