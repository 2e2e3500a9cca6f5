"""VarianceScaling and the named schemes built on it: Glorot (Xavier), He and LeCun.

The variance of the values is ``scale / n``, where ``n`` is the fan-in, the fan-out or
their mean (``mode``), computed from the weight's shape by :func:`compute_fans`.
"""
from __future__ import annotations

import math

from ..core.tensor import Tensor
from .. import random as lamina_random
from ..registry import register_builtin
from .initializer import check_number
from .random_initializers import RandomInitializer

MODES = ("fan_in", "fan_out", "fan_avg")
DISTRIBUTIONS = ("truncated_normal", "untruncated_normal", "uniform")
# The standard deviation of a unit normal truncated to [-2, 2]: dividing by it gives the
# truncated draws the variance asked for (Keras's constant, to its digits).
TRUNCATED_STDDEV = 0.87962566103423978


def compute_fans(shape) -> tuple[int, int]:
    """``(fan_in, fan_out)`` of a weight shape, as Keras computes them.

    A Dense kernel ``(in, out)`` has fans ``in`` and ``out``; a convolution kernel
    ``(*spatial, in, out)`` multiplies both by the receptive field ``prod(spatial)``; a
    1-D shape has both fans equal to its length, and a scalar has fans of 1.
    """
    shape = tuple(shape)
    if len(shape) < 1:
        return 1, 1
    if len(shape) == 1:
        return int(shape[0]), int(shape[0])
    receptive_field = 1
    for dim in shape[:-2]:
        receptive_field *= dim
    return int(shape[-2] * receptive_field), int(shape[-1] * receptive_field)


@register_builtin
class VarianceScaling(RandomInitializer):
    """Initializer whose values have a variance scaled to the weight's fans.

    The values have variance ``scale / n``, ``n`` being the fan chosen by ``mode``.

    Args:
        scale: The scaling factor, a positive float. Defaults to ``1.0``.
        mode: ``"fan_in"`` (default), ``"fan_out"`` or ``"fan_avg"`` (their mean): which
            fan ``n`` is.
        distribution: ``"truncated_normal"`` (default: normal values cut at two standard
            deviations, the standard deviation corrected so the variance stays
            ``scale / n``; ``"normal"`` means this too, as in Keras),
            ``"untruncated_normal"``, or ``"uniform"`` on
            ``[-sqrt(3 scale / n), sqrt(3 scale / n)]``.
        seed: An int (every call gives the same values, as in Keras 3), a
            ``lamina.random.SeedGenerator`` (each call draws new values from it) or
            ``None`` (default: each call draws from Lamina's global generator, which
            ``lamina.utils.set_random_seed`` makes reproducible).
        input_axes: The axes of the weight's shape whose sizes multiply into ``fan_in``;
            ``None`` (default) computes the fans as Keras does (``compute_fans``: for a
            kernel, the receptive field times the input and output channels).
        output_axes: The axes whose sizes multiply into ``fan_out``; ``None`` (default)
            as above.

    Raises:
        ValueError: If ``scale``, ``mode`` or ``distribution`` is not one of the values
            above.

    Example:

    >>> initializer = lamina.initializers.VarianceScaling(scale=2.0, mode="fan_out",
    ...                                                   distribution="uniform", seed=0)
    >>> initializer((3, 4)).shape
    (3, 4)
    """

    def __init__(self, scale: float = 1.0, mode: str = "fan_in",
                 distribution: str = "truncated_normal", seed=None, input_axes=None,
                 output_axes=None) -> None:
        name = type(self).__name__
        # Keras 3.15: which axes of the weight count as inputs / outputs (None: Keras's
        # usual rule, see compute_fans).
        self.input_axes = None if input_axes is None else list(input_axes)
        self.output_axes = None if output_axes is None else list(output_axes)
        # The messages lead with Keras's phrases ("Invalid `mode` argument:").
        self.scale = check_number(name, "scale", scale)
        if self.scale <= 0:
            raise ValueError(f"{name}: Argument `scale` must be positive float; received "
                             f"scale={self.scale}")
        if mode not in MODES:
            raise ValueError(f"{name}: Invalid `mode` argument: {mode!r}; expected one of "
                             f"{MODES}")
        expected = f"{DISTRIBUTIONS} (or 'normal', meaning 'truncated_normal')"
        if not isinstance(distribution, str):
            raise ValueError(f"{name}: Invalid `distribution` argument: {distribution!r}; "
                             f"expected one of {expected}")
        distribution = distribution.lower()
        if distribution == "normal":
            distribution = "truncated_normal"
        if distribution not in DISTRIBUTIONS:
            raise ValueError(f"{name}: Invalid `distribution` argument: {distribution!r}; "
                             f"expected one of {expected}")
        self.mode = mode
        self.distribution = distribution
        super().__init__(seed)

    def variance(self, shape) -> float:
        """``scale / n`` for a weight of this shape (n at least 1)."""
        fan_in, fan_out = compute_fans(shape)
        if self.input_axes is not None:
            fan_in = math.prod(shape[a] for a in self.input_axes)
        if self.output_axes is not None:
            fan_out = math.prod(shape[a] for a in self.output_axes)
        fan = {"fan_in": fan_in, "fan_out": fan_out,
               "fan_avg": (fan_in + fan_out) / 2.0}[self.mode]
        return self.scale / max(1.0, fan)

    def __call__(self, shape, dtype=None) -> Tensor:
        shape, dtype = self._args(shape, dtype)
        variance = self.variance(shape)
        if self.distribution == "truncated_normal":
            stddev = math.sqrt(variance) / TRUNCATED_STDDEV
            return lamina_random.truncated_normal(shape, 0.0, stddev, dtype=dtype,
                                                  seed=self.seed)
        if self.distribution == "untruncated_normal":
            return lamina_random.normal(shape, 0.0, math.sqrt(variance), dtype=dtype,
                                        seed=self.seed)
        limit = math.sqrt(3.0 * variance)
        return lamina_random.uniform(shape, -limit, limit, dtype=dtype, seed=self.seed)

    def get_config(self) -> dict:
        return {**super().get_config(), "scale": self.scale, "mode": self.mode,
                "distribution": self.distribution, "input_axes": self.input_axes,
                "output_axes": self.output_axes}


class _Preset(VarianceScaling):
    """A named VarianceScaling whose only argument is ``seed``."""

    SCALE, MODE, DISTRIBUTION = 1.0, "fan_in", "truncated_normal"

    def __init__(self, seed=None, input_axes=None, output_axes=None) -> None:
        super().__init__(self.SCALE, self.MODE, self.DISTRIBUTION, seed=seed,
                         input_axes=input_axes, output_axes=output_axes)

    def get_config(self) -> dict:
        return {"seed": RandomInitializer.get_config(self)["seed"],
                "input_axes": self.input_axes, "output_axes": self.output_axes}


@register_builtin
class GlorotUniform(_Preset):
    """The Glorot (Xavier) uniform initializer, the default of Dense and Conv kernels.

    Values are drawn uniformly from ``[-limit, limit]`` with
    ``limit = sqrt(6 / (fan_in + fan_out))``.

    Args:
        seed: An int (every call gives the same values, as in Keras 3), a
            ``lamina.random.SeedGenerator`` (each call draws new values from it) or
            ``None`` (default: each call draws from Lamina's global generator, which
            ``lamina.utils.set_random_seed`` makes reproducible).
        input_axes: The axes of the weight's shape whose sizes multiply into ``fan_in``;
            ``None`` (default) computes the fans as Keras does (``compute_fans``: for a
            kernel, the receptive field times the input and output channels).
        output_axes: The axes whose sizes multiply into ``fan_out``; ``None`` (default)
            as above.

    Example:

    >>> initializer = lamina.initializers.GlorotUniform(seed=0)
    >>> initializer((3, 4)).shape
    (3, 4)
    """
    SCALE, MODE, DISTRIBUTION = 1.0, "fan_avg", "uniform"


@register_builtin
class GlorotNormal(_Preset):
    """The Glorot (Xavier) normal initializer.

    Values are drawn from a normal distribution truncated at two standard deviations,
    with variance ``2 / (fan_in + fan_out)``.

    Args:
        seed: An int (every call gives the same values, as in Keras 3), a
            ``lamina.random.SeedGenerator`` (each call draws new values from it) or
            ``None`` (default: each call draws from Lamina's global generator, which
            ``lamina.utils.set_random_seed`` makes reproducible).
        input_axes: The axes of the weight's shape whose sizes multiply into ``fan_in``;
            ``None`` (default) computes the fans as Keras does (``compute_fans``: for a
            kernel, the receptive field times the input and output channels).
        output_axes: The axes whose sizes multiply into ``fan_out``; ``None`` (default)
            as above.

    Example:

    >>> initializer = lamina.initializers.GlorotNormal(seed=0)
    >>> initializer((3, 4)).shape
    (3, 4)
    """
    SCALE, MODE, DISTRIBUTION = 1.0, "fan_avg", "truncated_normal"


@register_builtin
class HeNormal(_Preset):
    """The He normal initializer, for relu networks.

    Values are drawn from a normal distribution truncated at two standard deviations,
    with variance ``2 / fan_in``.

    Args:
        seed: An int (every call gives the same values, as in Keras 3), a
            ``lamina.random.SeedGenerator`` (each call draws new values from it) or
            ``None`` (default: each call draws from Lamina's global generator, which
            ``lamina.utils.set_random_seed`` makes reproducible).
        input_axes: The axes of the weight's shape whose sizes multiply into ``fan_in``;
            ``None`` (default) computes the fans as Keras does (``compute_fans``: for a
            kernel, the receptive field times the input and output channels).
        output_axes: The axes whose sizes multiply into ``fan_out``; ``None`` (default)
            as above.

    Example:

    >>> initializer = lamina.initializers.HeNormal(seed=0)
    >>> initializer((3, 4)).shape
    (3, 4)
    """
    SCALE, MODE, DISTRIBUTION = 2.0, "fan_in", "truncated_normal"


@register_builtin
class HeUniform(_Preset):
    """The He uniform initializer, for relu networks.

    Values are drawn uniformly from ``[-limit, limit]`` with
    ``limit = sqrt(6 / fan_in)``.

    Args:
        seed: An int (every call gives the same values, as in Keras 3), a
            ``lamina.random.SeedGenerator`` (each call draws new values from it) or
            ``None`` (default: each call draws from Lamina's global generator, which
            ``lamina.utils.set_random_seed`` makes reproducible).
        input_axes: The axes of the weight's shape whose sizes multiply into ``fan_in``;
            ``None`` (default) computes the fans as Keras does (``compute_fans``: for a
            kernel, the receptive field times the input and output channels).
        output_axes: The axes whose sizes multiply into ``fan_out``; ``None`` (default)
            as above.

    Example:

    >>> initializer = lamina.initializers.HeUniform(seed=0)
    >>> initializer((3, 4)).shape
    (3, 4)
    """
    SCALE, MODE, DISTRIBUTION = 2.0, "fan_in", "uniform"


@register_builtin
class LecunNormal(_Preset):
    """The LeCun normal initializer, for selu networks.

    Values are drawn from a normal distribution truncated at two standard deviations,
    with variance ``1 / fan_in``.

    Args:
        seed: An int (every call gives the same values, as in Keras 3), a
            ``lamina.random.SeedGenerator`` (each call draws new values from it) or
            ``None`` (default: each call draws from Lamina's global generator, which
            ``lamina.utils.set_random_seed`` makes reproducible).
        input_axes: The axes of the weight's shape whose sizes multiply into ``fan_in``;
            ``None`` (default) computes the fans as Keras does (``compute_fans``: for a
            kernel, the receptive field times the input and output channels).
        output_axes: The axes whose sizes multiply into ``fan_out``; ``None`` (default)
            as above.

    Example:

    >>> initializer = lamina.initializers.LecunNormal(seed=0)
    >>> initializer((3, 4)).shape
    (3, 4)
    """
    SCALE, MODE, DISTRIBUTION = 1.0, "fan_in", "truncated_normal"


@register_builtin
class LecunUniform(_Preset):
    """The LeCun uniform initializer.

    Values are drawn uniformly from ``[-limit, limit]`` with
    ``limit = sqrt(3 / fan_in)``.

    Args:
        seed: An int (every call gives the same values, as in Keras 3), a
            ``lamina.random.SeedGenerator`` (each call draws new values from it) or
            ``None`` (default: each call draws from Lamina's global generator, which
            ``lamina.utils.set_random_seed`` makes reproducible).
        input_axes: The axes of the weight's shape whose sizes multiply into ``fan_in``;
            ``None`` (default) computes the fans as Keras does (``compute_fans``: for a
            kernel, the receptive field times the input and output channels).
        output_axes: The axes whose sizes multiply into ``fan_out``; ``None`` (default)
            as above.

    Example:

    >>> initializer = lamina.initializers.LecunUniform(seed=0)
    >>> initializer((3, 4)).shape
    (3, 4)
    """
    SCALE, MODE, DISTRIBUTION = 1.0, "fan_in", "uniform"
