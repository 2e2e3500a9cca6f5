"""The initializer contract, and the argument checks every initializer shares.

An initializer is a callable ``(shape, dtype=None) -> Tensor`` that carries its
constructor arguments in ``get_config()``, so a layer config can store it as
``{"module": "keras.initializers", "class_name": ..., "config": ...}`` and rebuild it.

>>> class Halves(Initializer):
...     def __call__(self, shape, dtype=None):
...         shape, dtype = check_shape("Halves", shape), check_dtype("Halves", dtype)
...         return lamina.ops.full(shape, 0.5, dtype)
"""
from __future__ import annotations

import inspect
import numbers
import operator

from ..core.tensor import Tensor
from ..dtypes import FLOAT_DTYPES, floatx, is_float, standardize
from ..errors import DTypeError, ShapeError


class Initializer:
    """Base class of initializers (Keras 3's ``keras.initializers.Initializer``).

    Subclasses implement ``__call__(shape, dtype=None)`` and, when their constructor takes
    arguments, ``get_config()`` returning them; ``from_config`` calls the constructor.
    """

    _keras_module = "keras.initializers"

    def __call__(self, shape, dtype=None) -> Tensor:
        raise NotImplementedError(f"{type(self).__name__}: Initializer subclasses must "
                                  f"implement __call__(shape, dtype=None)")

    def get_config(self) -> dict:
        return {}

    @classmethod
    def from_config(cls, config: dict) -> "Initializer":
        config = dict(config)
        if "dtype" in config and "dtype" not in inspect.signature(cls).parameters:
            del config["dtype"]     # TF 1.x-era files give initializers a dtype; unused here
        return cls(**config)

    def clone(self) -> "Initializer":
        """A new initializer with the same config."""
        return type(self).from_config(self.get_config())

    def __repr__(self) -> str:
        args = ", ".join(f"{k}={v!r}" for k, v in self.get_config().items())
        return f"{type(self).__name__}({args})"


def check_shape(name: str, shape) -> tuple:
    """``shape`` (an int or a sequence of non-negative ints) as a tuple of ints."""
    dims = (shape,) if isinstance(shape, numbers.Integral) else shape
    try:
        dims = tuple(operator.index(d) for d in dims)
    except TypeError:
        raise ShapeError(f"{name}: argument 'shape' must be a tuple of non-negative ints; "
                         f"received {shape!r}") from None
    if any(d < 0 for d in dims):
        raise ShapeError(f"{name}: argument 'shape' must be a tuple of non-negative ints; "
                         f"received {shape!r}")
    return dims


def check_dtype(name: str, dtype, float_only: bool = False) -> str:
    """``dtype`` as Lamina's name (None: ``floatx()``); random initializers need floats."""
    resolved = floatx() if dtype is None else standardize(dtype)
    if float_only and not is_float(resolved):
        raise DTypeError(f"{name}: argument 'dtype' must be a float dtype {FLOAT_DTYPES}; "
                         f"received {dtype!r}")
    return resolved


def check_number(name: str, arg: str, value, minimum: float | None = None,
                 positive: bool = False) -> float:
    """A real Python or numpy number as a float, checked against ``minimum``/``positive``."""
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise TypeError(f"{name}: argument '{arg}' must be a number; received {value!r} "
                        f"of type {type(value).__name__}")
    value = float(value)
    if value != value or value in (float("inf"), float("-inf")):
        raise ValueError(f"{name}: argument '{arg}' must be finite; received {value}")
    if positive and value <= 0:
        raise ValueError(f"{name}: argument '{arg}' must be positive; received {value}")
    if minimum is not None and value < minimum:
        raise ValueError(f"{name}: argument '{arg}' must be >= {minimum}; received {value}")
    return value
