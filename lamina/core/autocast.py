"""Mixed precision's variable autocasting (Keras 3's ``AutocastScope``).

While a layer whose compute dtype differs from its variable dtype runs ``call`` (the
``mixed_float16`` policy: float32 variables, float16 compute), every float Variable with
``autocast=True`` that an op reads is cast to the compute dtype first. The variables stay
float32; the cast's gradient casts back, so optimizers update float32 weights. The cast is
an ordinary ``cast`` op, so eager mode and compiled graphs compute the same thing.

``core/mode.py`` asks the innermost open scope to cast an op's inputs (``cast_inputs``), and
so do the ops' argument conversions (``as_tensor`` and ``as_tensors`` in
``lamina/ops/core.py``, before dtype promotion would turn a float16 input into float32);
with no scope open, mixed precision costs nothing.
"""
from __future__ import annotations

from ..dtypes import is_float
from . import mode
from .op import OP_REGISTRY
from .variable import Variable


def autocast_dtype() -> str | None:
    """The dtype float variables are read in right now, or None (no autocasting)."""
    scope = mode.current("autocast")
    return None if scope is None else scope.dtype


class AutocastScope:
    """Within the ``with`` block, float autocast Variables read by ops are cast to ``dtype``
    (None: not cast, e.g. inside a float32 layer of a mixed model)."""

    def __init__(self, dtype: str | None):
        if dtype is not None and not is_float(dtype):
            raise ValueError(f"AutocastScope: argument 'dtype' must be a float dtype or None; "
                             f"received {dtype!r}")
        self.dtype = dtype

    def __enter__(self):
        mode.enter("autocast", self)
        return self

    def __exit__(self, *exc) -> None:
        mode.leave("autocast", self)

    def cast_inputs(self, op, inputs):
        """``inputs`` with castable variables cast; ``op`` is the op about to run (None
        while an op function converts its arguments)."""
        dtype = self.dtype
        if dtype is None or (op is not None and op.name == "cast"):   # the cast reads it
            return inputs
        if not any(_castable(x, dtype) for x in inputs):
            return inputs
        cast = OP_REGISTRY["cast"]
        return tuple(cast(x, dtype=dtype) if _castable(x, dtype) else x for x in inputs)


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


def _castable(x, dtype: str) -> bool:
    return isinstance(x, Variable) and x.autocast and x.dtype != dtype and is_float(x.dtype)
