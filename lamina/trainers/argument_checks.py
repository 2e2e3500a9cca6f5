"""Type and range checks of the numbers users pass to fit / evaluate / predict.

Each check names the method, the argument, what it accepts and what it received: a wrong
type is a ``TypeError`` (``batch_size="32"``, ``2.5``, ``True`` — a bool is not a count),
a number out of range a ``ValueError`` (``batch_size=0``). numpy integers count as ints.
"""
from __future__ import annotations

import numbers
from collections.abc import Mapping


def _received(value) -> str:
    return f"{value!r} of type {type(value).__name__}"


def _is_int(value) -> bool:
    return isinstance(value, numbers.Integral) and not isinstance(value, bool)


def _is_real(value) -> bool:
    return isinstance(value, numbers.Real) and not isinstance(value, bool)


def _count(what: str, name: str, value, low: int, expected: str) -> int:
    """``value`` as an int >= ``low``; ``expected`` says what is accepted."""
    if not _is_int(value):
        raise TypeError(f"{what}: argument '{name}' must be {expected}; received "
                        f"{_received(value)}")
    if value < low:
        raise ValueError(f"{what}: argument '{name}' must be {expected}; received {value!r}")
    return int(value)


def positive_int_or_none(what: str, name: str, value):
    """``value`` as an int (None stays None); raises unless it is a positive int or None."""
    if value is None:
        return None
    return _count(what, name, value, 1, "a positive int or None")


def non_negative_int(what: str, name: str, value) -> int:
    return _count(what, name, value, 0, "a non-negative int")


def validation_split(value) -> float:
    """A fraction in [0, 1) (0: no split)."""
    if not _is_real(value):
        raise TypeError(f"fit: argument 'validation_split' must be a float in [0, 1); "
                        f"received {_received(value)}")
    if not 0.0 <= value < 1.0:
        raise ValueError(f"fit: argument 'validation_split' must be a float in [0, 1); "
                         f"received {value!r}")
    return float(value)


def validation_freq(value):
    """A positive int (validate every that many epochs) or a collection of the 1-based
    epochs to validate after."""
    if _is_int(value):
        if value < 1:
            raise ValueError(f"fit: argument 'validation_freq' must be a positive int or a "
                             f"list of epochs; received {value!r}")
        return int(value)
    if isinstance(value, (list, tuple, set, frozenset, range)):
        bad = [v for v in value if not _is_int(v) or v < 1]
        if bad:
            raise ValueError(f"fit: argument 'validation_freq' as a list must hold epoch "
                             f"numbers (positive ints); received {list(value)!r}")
        return {int(v) for v in value}
    raise TypeError(f"fit: argument 'validation_freq' must be a positive int or a list of "
                    f"epochs; received {_received(value)}")


def class_weight(what: str, value):
    """None or a dict from class indices (ints) to weights (numbers)."""
    if value is None:
        return None
    if not isinstance(value, Mapping):
        raise TypeError(f"{what}: argument 'class_weight' must be a dict mapping class "
                        f"indices to weights, e.g. {{0: 1.0, 1: 5.0}}; received "
                        f"{_received(value)}")
    for key, weight in value.items():
        if not _is_int(key):
            raise TypeError(f"{what}: argument 'class_weight' must have int keys (class "
                            f"indices); received the key {_received(key)}")
        if not _is_real(weight):
            raise TypeError(f"{what}: argument 'class_weight' must have number values; "
                            f"received {_received(weight)} for class {key}")
    return {int(k): float(w) for k, w in value.items()}


def shuffle(what: str, value):
    if isinstance(value, bool) or (isinstance(value, str) and value == "batch"):
        return value
    raise TypeError(f"{what}: argument 'shuffle' must be True, False or 'batch'; received "
                    f"{_received(value)}")
