"""The loss contract: ``Loss.__call__(y_true, y_pred, sample_weight=None)`` casts both to the
loss's dtype, asks ``call`` for per-sample losses, weights them and reduces them (see
:mod:`lamina.losses.reduction`).

A subclass implements ``call(y_true, y_pred)`` with ops and returns one loss per sample (or
per timestep); ``get_config`` adds its constructor arguments to the base config::

    class ScaledMSE(lamina.losses.Loss):
        def __init__(self, scale=1.0, **kwargs):
            super().__init__(**kwargs)
            self.scale = scale

        def call(self, y_true, y_pred):
            return self.scale * ops.mean(ops.square(y_true - y_pred), axis=-1)

        def get_config(self):
            return {**super().get_config(), "scale": self.scale}

``LossFunctionWrapper(fn, **kwargs)`` makes a loss of any function
``fn(y_true, y_pred, **kwargs)``; the built-in classes are such wrappers around the
functions of the same name.
"""
from __future__ import annotations

from typing import Callable

from .. import ops, tree
from ..core.tensor import TensorBase
from ..dtypes import FLOAT_DTYPES, floatx, is_float, standardize
from ..errors import DTypeError
from ..core.naming import to_snake_case, unique_name
from ..registry import register_builtin, serialize_keras_object
from .reduction import (convert_like, reduce_weighted_values, squeeze_or_expand_to_same_rank,
                        standardize_reduction)


def _loss_dtype(owner: str, dtype) -> str:
    """A float dtype name from a string, a dtype policy (its compute dtype) or a policy's
    config dict; None means ``floatx()``."""
    if isinstance(dtype, dict):                          # {"class_name": "DTypePolicy", ...}
        dtype = dtype.get("config", {}).get("name")
    dtype = getattr(dtype, "compute_dtype", dtype)
    if isinstance(dtype, str) and dtype.startswith("mixed_"):
        dtype = dtype[len("mixed_"):]
    try:
        resolved = floatx() if dtype is None else standardize(dtype)
    except DTypeError:
        resolved = None
    if not is_float(resolved):
        raise DTypeError(f"{owner}: argument 'dtype' must be a float dtype {FLOAT_DTYPES}; "
                         f"received {dtype!r}")
    return resolved


def _convert(x, dtype: str, reference=None):
    """A leaf as a tensor of ``dtype`` on the reference tensor's backend; dicts are walked,
    and so are lists and tuples of arrays (a loss over a structure of outputs, Keras 3)."""
    if isinstance(x, dict):
        return {key: _convert(value, dtype, reference) for key, value in x.items()}
    nested_reference = isinstance(reference, (list, tuple, dict))
    if nested_reference:
        reference = next(iter(tree.flatten(reference)), None)
    if isinstance(x, (list, tuple)) and x and (reference is None or nested_reference) and \
            all(hasattr(leaf, "shape") for leaf in tree.flatten(x)):
        return tree.map_structure(lambda leaf: convert_like(leaf, reference, dtype), x)
    return convert_like(x, reference, dtype)


@register_builtin
class Loss:
    """Base class of losses (Keras 3's ``keras.losses.Loss``).

    Args:
        name: the loss's name (default: the class name in snake case, made unique).
        reduction: ``"sum_over_batch_size"`` (default), ``"sum"``, ``"mean"``,
            ``"mean_with_sample_weight"``, ``"none"`` or None.
        dtype: the dtype the loss is computed in (default ``floatx()``).
    """

    _keras_module = "keras.losses"

    def __init__(self, name: str | None = None, reduction="sum_over_batch_size",
                 dtype=None) -> None:
        owner = type(self).__name__
        if name is not None and not isinstance(name, str):
            raise TypeError(f"{owner}: argument 'name' must be a string or None; received "
                            f"{name!r}")
        self.name = name or unique_name(to_snake_case(owner))
        self.reduction = standardize_reduction(owner, reduction)
        self._dtype = _loss_dtype(owner, dtype)
        self._dtype_arg = None if dtype is None else self._dtype

    @property
    def dtype(self) -> str:
        return self._dtype

    def __call__(self, y_true, y_pred, sample_weight=None):
        in_mask = getattr(y_pred, "_keras_mask", None)
        y_pred = _convert(y_pred, self.dtype)
        y_true = _convert(y_true, self.dtype, y_pred)
        losses = self.call(y_true, y_pred)
        out_mask = getattr(losses, "_keras_mask", None)
        if in_mask is not None and out_mask is not None:
            mask = ops.logical_and(in_mask, out_mask)
        else:
            mask = in_mask if out_mask is None else out_mask
        return reduce_weighted_values(losses, sample_weight=sample_weight, mask=mask,
                                      reduction=self.reduction, dtype=self.dtype,
                                      owner=type(self).__name__)

    def call(self, y_true, y_pred):
        raise NotImplementedError(f"{type(self).__name__}: Loss subclasses must implement "
                                  f"call(y_true, y_pred)")

    def get_config(self) -> dict:
        # "dtype" only when given: Keras writes name and reduction, and custom subclasses
        # written for Keras may not accept a dtype argument in from_config.
        config = {"name": self.name, "reduction": self.reduction}
        if self._dtype_arg is not None:
            config["dtype"] = self._dtype_arg
        return config

    @classmethod
    def from_config(cls, config: dict) -> "Loss":
        return cls(**_legacy_config(config))

    def __repr__(self) -> str:
        return f"<{type(self).__name__} name={self.name!r} reduction={self.reduction!r}>"


def _legacy_config(config: dict) -> dict:
    config = dict(config)
    if config.get("reduction") == "auto":         # tf.keras 2 files: "auto" is this default
        config["reduction"] = "sum_over_batch_size"
    return config


@register_builtin
class LossFunctionWrapper(Loss):
    """A loss made of a function ``fn(y_true, y_pred, **kwargs)`` returning per-sample losses.

    ``y_true`` and ``y_pred`` get Keras's rank matching first (``(batch,)`` labels against
    ``(batch, 1)`` predictions). The config stores ``fn`` by its registered name.
    """

    def __init__(self, fn: Callable, reduction="sum_over_batch_size", name: str | None = None,
                 dtype=None, **kwargs) -> None:
        if not callable(fn):
            raise TypeError(f"{type(self).__name__}: argument 'fn' must be a function "
                            f"(y_true, y_pred) -> per-sample losses; received {fn!r}")
        super().__init__(name=name, reduction=reduction, dtype=dtype)
        self.fn = fn
        self._fn_kwargs = kwargs

    def call(self, y_true, y_pred):
        if isinstance(y_true, TensorBase) and isinstance(y_pred, TensorBase):
            y_true, y_pred = squeeze_or_expand_to_same_rank(y_true, y_pred)
        return self.fn(y_true, y_pred, **self._fn_kwargs)

    def get_config(self) -> dict:
        config = super().get_config()
        config["fn"] = serialize_keras_object(self.fn)
        config.update(serialize_keras_object(self._fn_kwargs))
        return config

    @classmethod
    def from_config(cls, config: dict) -> "LossFunctionWrapper":
        config = _legacy_config(config)
        if "fn" in config:
            from . import deserialize          # the family table lives in the package
            config["fn"] = deserialize(config["fn"])
        return cls(**config)

    def __repr__(self) -> str:
        name = getattr(self.fn, "__name__", repr(self.fn))
        return f"<{type(self).__name__}({name}, kwargs={self._fn_kwargs})>"


class BuiltinLoss(LossFunctionWrapper):
    """A wrapper whose function the class fixes (``MeanSquaredError`` wraps
    ``mean_squared_error``): its keyword arguments are attributes and its config is the
    constructor's arguments only, as Keras writes them."""

    def __init__(self, fn: Callable, name: str, reduction, dtype, **kwargs) -> None:
        super().__init__(fn, reduction=reduction, name=name, dtype=dtype, **kwargs)
        for key, value in kwargs.items():
            setattr(self, key, value)

    # Arguments Keras's config leaves out (it writes only name and reduction for Huber and
    # CosineSimilarity); Lamina leaves them out only at their default, so that another
    # value still survives a save.
    _config_omits_defaults: dict = {}

    def get_config(self) -> dict:
        config = {**Loss.get_config(self), **serialize_keras_object(self._fn_kwargs)}
        for key, default in self._config_omits_defaults.items():
            if key in config and config[key] == default:
                del config[key]
        return config

    @classmethod
    def from_config(cls, config: dict) -> "BuiltinLoss":
        config = _legacy_config(config)
        config.pop("fn", None)       # early Keras 3 versions also wrote the fixed function
        return cls(**config)

    def __repr__(self) -> str:
        args = ", ".join(f"{k}={v!r}" for k, v in self.get_config().items())
        return f"{type(self).__name__}({args})"
