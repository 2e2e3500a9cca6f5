"""Argument checks shared by the optimizers: the learning rate, the base-class options
(clipping, weight decay, EMA, loss scaling, gradient accumulation) and hyperparameter
ranges. Every error names the optimizer and the argument, and says what was expected."""
from __future__ import annotations

import numbers
import warnings

from ..core.tensor import TensorBase
from .schedules.learning_rate_schedule import check_number

__all__ = ["check_number", "check_range", "check_learning_rate", "check_base_arguments",
           "pop_legacy_arguments"]


def check_range(owner: str, arg: str, value, low: float, high: float, *,
                high_inclusive: bool = True, low_inclusive: bool = True):
    """A number in ``[low, high]`` (each end open when its ``*_inclusive`` is False)."""
    value = check_number(owner, arg, value)
    above = value >= low if low_inclusive else value > low
    below = value <= high if high_inclusive else value < high
    if not (above and below):
        interval = (("[" if low_inclusive else "(") + f"{low}, {high}"
                    + ("]" if high_inclusive else ")"))
        raise ValueError(f"{owner}: argument '{arg}' must be in {interval}; received {value}")
    return value


def check_learning_rate(owner: str, value) -> float:
    """A learning rate given as a number (or a scalar tensor) as a non-negative float."""
    if isinstance(value, TensorBase) and value.shape == ():
        value = float(value)
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise ValueError(f"{owner}: argument 'learning_rate' must be a float, a "
                         f"LearningRateSchedule or a callable returning the learning rate; "
                         f"received {value!r} of type {type(value).__name__}")
    value = float(value)
    if value != value or value in (float("inf"), float("-inf")) or value < 0:
        raise ValueError(f"{owner}: argument 'learning_rate' must be a finite number >= 0; "
                         f"received {value}")
    return value


def _optional_positive(owner: str, arg: str, value):
    return None if value is None else check_number(owner, arg, value, positive=True)


def check_base_arguments(owner: str, *, weight_decay, clipnorm, clipvalue, global_clipnorm,
                         use_ema, ema_momentum, ema_overwrite_frequency, loss_scale_factor,
                         gradient_accumulation_steps) -> dict:
    """The base-class options, checked and normalized (numpy scalars become Python's)."""
    clips = {"clipnorm": clipnorm, "clipvalue": clipvalue, "global_clipnorm": global_clipnorm}
    given = [name for name, value in clips.items() if value is not None]
    if len(given) > 1:
        raise ValueError(f"{owner}: Only one of `clipnorm`, `clipvalue` and "
                         f"`global_clipnorm` can be set; received "
                         + ", ".join(f"{name}={clips[name]}" for name in given))
    checked = {name: _optional_positive(owner, name, value) for name, value in clips.items()}
    checked["weight_decay"] = (None if weight_decay is None else
                               check_number(owner, "weight_decay", weight_decay,
                                            non_negative=True))
    checked["loss_scale_factor"] = _optional_positive(owner, "loss_scale_factor",
                                                      loss_scale_factor)
    if not isinstance(use_ema, bool):
        raise TypeError(f"{owner}: argument 'use_ema' must be a bool; received {use_ema!r}")
    checked["use_ema"] = use_ema
    checked["ema_momentum"] = check_range(owner, "ema_momentum", ema_momentum, 0.0, 1.0)
    for arg, value, least in (("ema_overwrite_frequency", ema_overwrite_frequency, 1),
                              ("gradient_accumulation_steps", gradient_accumulation_steps, 2)):
        if value is not None and (isinstance(value, bool) or
                                  not isinstance(value, numbers.Integral) or value < least):
            raise ValueError(f"{owner}: argument '{arg}' must be None or an integer >= "
                             f"{least}; received {value!r}")
        checked[arg] = None if value is None else int(value)
    return checked


def pop_legacy_arguments(owner: str, learning_rate, kwargs: dict):
    """Keras 2's ``lr`` (an alias of ``learning_rate``) and ``decay`` (no longer supported,
    ignored with a warning as in Keras 3); any other keyword is an error."""
    if "lr" in kwargs:
        warnings.warn(f"{owner}: argument 'lr' is deprecated; use 'learning_rate'",
                      stacklevel=4)
        learning_rate = kwargs.pop("lr")
    decay = kwargs.pop("decay", None)
    if decay:
        warnings.warn(f"{owner}: argument 'decay' is no longer supported and is ignored "
                      f"(received decay={decay}); use a learning-rate schedule instead",
                      stacklevel=4)
    if kwargs:
        # ValueError, as Keras 3 raises for unrecognized optimizer arguments.
        raise ValueError(f"{owner}: argument(s) not recognized: {sorted(kwargs)}; "
                         f"received {kwargs}")
    return learning_rate
