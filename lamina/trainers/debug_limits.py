"""Keras's global debugging caps (``keras.config.set_max_epochs`` /
``set_max_steps_per_epoch``, or the ``KERAS_MAX_EPOCHS`` / ``KERAS_MAX_STEPS_PER_EPOCH``
environment variables): every ``fit`` runs at most that many epochs, and every epoch of
fit, validation, evaluate and predict at most that many steps, with a warning as Keras
gives."""
from __future__ import annotations

import warnings

from .. import settings
from ..traceback_filter import user_stacklevel


def cap_epochs(epochs: int) -> int:
    limit = settings.max_epochs()
    if limit and limit < epochs:
        warnings.warn(f"Limiting epochs to {limit} (keras.config.set_max_epochs)",
                      stacklevel=user_stacklevel())
        return limit
    return epochs


def cap_steps(steps):
    limit = settings.max_steps_per_epoch()
    if limit and (not steps or limit < steps):
        warnings.warn(f"Limiting steps_per_epoch to {limit} "
                      "(keras.config.set_max_steps_per_epoch)", stacklevel=user_stacklevel())
        return limit
    return steps
