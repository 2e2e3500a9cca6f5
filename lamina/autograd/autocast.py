"""Mixed precision's variable autocasting (Keras 3's ``AutocastScope``).

While a layer whose compute dtype differs from its variable dtype runs ``call`` (the
``mixed_float16`` policy: float32 variables, float16 compute), every float Variable with
``autocast=True`` that an op reads is cast to the compute dtype first. The variables stay
float32; the cast's gradient casts back, so optimizers update float32 weights. The cast is
an ordinary ``cast`` op, so eager mode and compiled graphs compute the same thing.

``apply`` (``lamina/ops/op.py``) and the ops' argument conversion (``as_tensor`` and
``as_tensors`` in ``lamina/ops/core.py``, before dtype promotion would turn a float16 input
into float32) call the hook installed here once a scope has been entered; until then mixed
precision costs nothing.
"""
from __future__ import annotations

import threading

from ..dtypes import is_float
from ..ops import op as _op
from .variable import Variable

_state = threading.local()


def autocast_dtype() -> str | None:
    """The dtype float variables are read in right now, or None (no autocasting)."""
    return getattr(_state, "dtype", None)


class AutocastScope:
    """Within the ``with`` block, float autocast Variables read by ops are cast to ``dtype``
    (None: not cast, e.g. inside a float32 layer of a mixed model)."""

    def __init__(self, dtype: str | None):
        if dtype is not None and not is_float(dtype):
            raise ValueError(f"AutocastScope: argument 'dtype' must be a float dtype or None; "
                             f"received {dtype!r}")
        self.dtype = dtype
        self._previous = None

    def __enter__(self):
        if _op._autocast_inputs is None:
            _op._autocast_inputs = _cast_variables
        self._previous = autocast_dtype()
        _state.dtype = self.dtype
        return self

    def __exit__(self, *exc) -> None:
        _state.dtype = self._previous


def scope_for_layer(layer) -> AutocastScope | None:
    """The scope a layer's ``call`` runs in (Keras 3's ``Layer.__call__``), or None to keep
    the caller's: a mixed layer casts to its compute dtype; a layer with ``autocast=False``
    or a non-float compute dtype stops its caller's casting; a plain layer inside a mixed
    one casts to its own compute dtype (float32 variables then stay as they are)."""
    current = autocast_dtype()
    compute = layer.compute_dtype
    if not layer.autocast or not is_float(compute):
        return AutocastScope(None) if current is not None else None
    if compute != layer.variable_dtype or (current is not None and current != compute):
        return AutocastScope(compute)
    return None


def _cast_variables(op, inputs):
    """``inputs`` with castable variables cast; ``op`` is the op about to run (None while
    an op function converts its arguments)."""
    dtype = getattr(_state, "dtype", None)
    if dtype is None or (op is not None and op.name == "cast"):   # the cast reads the variable
        return inputs
    if not any(_castable(x, dtype) for x in inputs):
        return inputs
    cast = _op.OP_REGISTRY["cast"]
    return tuple(cast(x, dtype=dtype) if _castable(x, dtype) else x for x in inputs)


def _castable(x, dtype: str) -> bool:
    return isinstance(x, Variable) and x.autocast and x.dtype != dtype and is_float(x.dtype)
