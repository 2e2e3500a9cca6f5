"""Automatic layer names: Keras's snake_case of the class name, made unique with ``_N``."""
from __future__ import annotations

import re

from .. import settings

_counters: dict[str, int] = {}


def to_snake_case(name: str) -> str:
    """``Conv2D`` -> ``conv2d``, ``PReLU`` -> ``p_re_lu``, ``RMSprop`` -> ``rm_sprop``."""
    name = re.sub(r"\W+", "", name)
    name = re.sub(r"(.)([A-Z][a-z]+)", r"\1_\2", name)
    name = re.sub(r"([a-z])([A-Z])", r"\1_\2", name)
    return name.lower()


def unique_name(base: str) -> str:
    """``base`` the first time, then ``base_1``, ``base_2``, ... until ``clear_session``."""
    count = _counters.get(base, 0)
    _counters[base] = count + 1
    return base if count == 0 else f"{base}_{count}"


def reset() -> None:
    _counters.clear()


settings.register_clear_hook(reset)
