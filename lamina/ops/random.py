"""Random ops: counter-based draws, so a value depends only on (key, counter, element index).

Primitives take the *counter* as an input tensor (an int64 scalar: a SeedGenerator's state
Variable, so a compiled step reads its current value) and ``shape``, ``dtype`` and ``key``
(two ints: see lamina/random/seed_generator.py) as static attributes. They are stateful
(graph passes must never merge or fold them) and not differentiable: a draw has no gradient
with respect to anything. Shapes may hold None for sizes unknown until run time (a symbolic
batch); the op then takes a second input, ``like``, whose shape fills them in.

- ``random_uniform``, ``random_normal``: the backend kernels.
- ``random_truncated_normal``: a standard normal draw at ``counter``; then, for re-draws
  ``j = 1 .. 15``, the values still outside ``|z| <= 2`` (as Keras/TF re-draw values more
  than two standard deviations out), taken in row-major order, are replaced by the first
  values of a normal draw at kernel counter ``counter + j * 2**64`` (the counter's high word,
  which a SeedGenerator's int64 state never reaches, so re-draws never collide with other
  draws): the k-th value still out takes value k of re-draw j. Values left out after all
  fifteen (probability about 0.0455**16, 3e-22, each) are clipped to [-2, 2]. The result is
  a pure function of (key, counter, shape), and a re-draw costs only as many values as are
  still out.
- ``random_bernoulli``: 1 where a float32 uniform draw is below ``p``, else 0. The float32
  draw (whatever the output dtype) makes dropout masks equal across float dtypes.

The public functions take a ``seed`` as Keras's do: an int (the same values every call), a
``lamina.random.SeedGenerator`` (its next draw) or None (the global generator's next draw).
"""
from __future__ import annotations

import numbers
import operator

from ..core.tensor import Tensor, TensorBase
from ..backend import get_backend
from ..backend.rng import UNIFORM_BITS
from ..dtypes import ALL_DTYPES, FLOAT_DTYPES, INT_DTYPES, floatx, standardize
from ..errors import DTypeArgumentError, DTypeError, ShapeError, describe_shape
from .core import as_tensor, cast, require_float, unchanged, zeros_like
from .introspection import DynamicDim, resolve_dims
from .math import add, multiply, subtract
from .where_clip import where
from .random_rows import draw_by_rows
from .seed_generator import draw_state
from ..core.op import Op, Spec, register_op, shape_from_like

__all__ = ["random_uniform", "random_normal", "random_truncated_normal", "random_bernoulli",
           "random_randint", "dropout"]

TRUNCATED_NORMAL_CANDIDATES = 16
TRUNCATION_BOUND = 2.0
_CANDIDATE_STRIDE = 1 << 64
# randint scales a float64 uniform: with 53 random bits every integer of a wider range
# could not be drawn, so ranges are limited to 2**53 values.
_RANDINT_MAX_RANGE = 1 << UNIFORM_BITS["float64"]
_INT_RANGES = {name: ((0, 1 << int(name[4:])) if name.startswith("u")
                      else (-(1 << (int(name[3:]) - 1)), 1 << (int(name[3:]) - 1)))
               for name in INT_DTYPES}


# --------------------------------------------------------------------------- primitives
class _RandomOp(Op):
    """Inputs: ``counter`` (int64 scalar) and optionally ``like`` (fills None sizes).

    Subclasses define ``draw(backend, shape, dtype, key, counter, **attrs)`` with a concrete
    shape and the counter as a Python int, or, where the subclass sets ``device_counter``
    and the backend has ``device_counters`` (cupy), as the 0-d int64 array itself, so a
    dropout mask on a GPU never waits for its counter to come back to the host.
    """
    device_counter = False
    differentiable = False
    stateful = True
    writes_out = True
    dtypes: tuple = FLOAT_DTYPES

    def output_spec(self, counter, *like, shape, dtype, key, **attrs):
        if counter.dtype != "int64":
            raise DTypeError(f"{self.name}: argument 'counter' must be an int64 scalar; "
                             f"received dtype {counter.dtype}")
        if counter.shape != ():
            raise ShapeError(f"{self.name}: argument 'counter' must be a scalar; received "
                             f"shape {describe_shape(counter.shape)}")
        if dtype not in self.dtypes:
            raise DTypeError(f"{self.name}: argument 'dtype' must be one of {self.dtypes}; "
                             f"received {dtype!r}")
        if like:
            shape = shape_from_like(self.name, shape, like)
        elif any(d is None for d in shape):
            raise ShapeError(f"{self.name}: a shape with unknown sizes needs a 'like' input to "
                             f"take them from; received shape {describe_shape(shape)}")
        return Spec(tuple(shape), dtype)

    def forward(self, backend, counter, *like, out=None, shape, dtype, key, **attrs):
        if like:
            shape = tuple(t if d is None else d for d, t in zip(shape, like[0].shape))
        if not (self.device_counter and backend.device_counters):
            counter = int(backend.to_host(counter))
        value = self.draw(backend, shape, dtype, key, counter, **attrs)
        if out is None:
            return value
        backend.copy_(out, value)
        return out


@register_op
class RandomUniform(_RandomOp):
    name = "random_uniform"
    device_counter = True

    def draw(self, backend, shape, dtype, key, counter):
        return backend.random_uniform(shape, dtype, key, counter)


@register_op
class RandomNormal(_RandomOp):
    name = "random_normal"
    device_counter = True

    def draw(self, backend, shape, dtype, key, counter):
        return backend.random_normal(shape, dtype, key, counter)


@register_op
class RandomTruncatedNormal(_RandomOp):
    name = "random_truncated_normal"

    def draw(self, backend, shape, dtype, key, counter):
        z = backend.reshape(backend.random_normal(shape, dtype, key, counter), (-1,))
        for j in range(1, TRUNCATED_NORMAL_CANDIDATES):
            outside = backend.binary("greater", backend.unary("abs", z), TRUNCATION_BOUND)
            count = _count(backend, outside)
            if not count:
                return backend.reshape(z, shape)
            redraw = backend.random_normal((count,), dtype, key,
                                           counter + j * _CANDIDATE_STRIDE)
            z = backend.setitem(z, outside, redraw)
        return backend.reshape(backend.clip(z, -TRUNCATION_BOUND, TRUNCATION_BOUND), shape)


@register_op
class RandomBernoulli(_RandomOp):
    """1 with probability ``p`` (attribute), else 0, in ``dtype`` (bool, int or float)."""
    name = "random_bernoulli"
    dtypes = ALL_DTYPES
    device_counter = True

    def draw(self, backend, shape, dtype, key, counter, p):
        u = backend.random_uniform(shape, "float32", key, counter)
        # Compare in float32 on every backend (a Python float might compare in float64).
        threshold = backend.asarray(p, dtype="float32")
        return backend.cast(backend.binary("less", u, threshold), dtype)


def _count(backend, mask) -> int:
    """How many elements of a bool array are set (a host sync on the GPU)."""
    return int(backend.to_host(backend.reduce("sum", mask, None, False)))


# --------------------------------------------------------------------------- arguments
def _shape(op_name: str, shape) -> tuple:
    """An int or a sequence of non-negative ints -> a tuple of ints (a ``DynamicDim`` from
    ``lamina.ops.shape`` of a symbolic tensor stays, for ``_draw`` to resolve)."""
    dims = (shape,) if isinstance(shape, numbers.Integral) else shape
    if isinstance(dims, (tuple, list)) and any(d is None for d in dims):
        raise ShapeError(f"{op_name}: argument 'shape' holds None (an unknown size, as "
                         f"ops.shape gives it on a functional-API tensor); received "
                         f"{shape!r}. Draw inside a layer's call (a Lambda layer), where "
                         "ops.shape gives a size read when the graph runs")
    try:
        dims = tuple(d if isinstance(d, DynamicDim) else operator.index(d) for d in dims)
    except TypeError:
        raise ShapeError(f"{op_name}: argument 'shape' must be a tuple of non-negative "
                         f"ints; received {shape!r}") from None
    if any(not isinstance(d, DynamicDim) and d < 0 for d in dims):
        raise ShapeError(f"{op_name}: argument 'shape' must be a tuple of non-negative "
                         f"ints; received {shape!r}")
    return dims


_KINDS = {FLOAT_DTYPES: "a floating point", INT_DTYPES: "an integer"}


def _dtype(op_name: str, dtype, allowed: tuple, default: str) -> str:
    try:
        name = default if dtype is None else standardize(dtype)
    except DTypeError:
        name = None
    if name not in allowed:
        # Keras's phrase ("`keras.random.uniform` requires a floating point `dtype`") names
        # the public function the user called; Lamina's names the op and lists the choices.
        kind = _KINDS.get(allowed)
        keras_phrase = "" if kind is None else \
            f"`keras.random.{op_name.removeprefix('random_')}` requires {kind} `dtype`; "
        raise DTypeArgumentError(f"{op_name}: {keras_phrase}argument 'dtype' must be one of "
                                 f"{allowed}; received {dtype!r}")
    return name


def _number(op_name: str, arg: str, value):
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise TypeError(f"{op_name}: argument '{arg}' must be a Python number; received "
                        f"{value!r}")
    return value


def _draw(op: Op, op_name: str, shape: tuple, seed, backend, like=None, **attrs):
    """Resolve ``seed``, apply ``op``, then advance the generator the draw came from."""
    key, counter, generator = draw_state(op_name, seed, backend)
    if like is None and any(isinstance(d, DynamicDim) for d in shape):
        shape, like = resolve_dims(op_name, shape)
    inputs = (counter,) if like is None else (counter, like)
    # Under DataParallel: a draw over the batch's rows takes its rows' global positions.
    result = draw_by_rows(op, inputs, shape, key, attrs)
    if result is None:
        result = op(*inputs, shape=shape, key=key, **attrs)
    if generator is not None:
        generator.advance()
    return result


def _scale_and_shift(z, scale, shift, dtype: str):
    """``z * scale + shift``; Python-number defaults of 1 and 0 cost nothing."""
    if not (isinstance(scale, numbers.Real) and scale == 1):
        z = multiply(z, cast(scale, dtype) if isinstance(scale, TensorBase) else scale)
    if not (isinstance(shift, numbers.Real) and shift == 0):
        z = add(z, cast(shift, dtype) if isinstance(shift, TensorBase) else shift)
    return z


# --------------------------------------------------------------------------- public
def random_uniform(shape, minval=0.0, maxval=1.0, dtype=None, seed=None) -> TensorBase:
    """Uniform values in [minval, maxval) (Keras's ``keras.random.uniform``).

    Args:
        shape: the output shape (a tuple of non-negative ints).
        minval, maxval: the range; numbers or tensors broadcastable to ``shape``.
        dtype: a float dtype; default ``floatx()``.
        seed: an int, a ``lamina.random.SeedGenerator`` or None (see the module docstring).

    Values are ``minval + u * (maxval - minval)`` for ``u`` uniform in [0, 1), so ``maxval``
    itself can only come out through rounding.
    """
    shape = _shape("random_uniform", shape)
    dtype = _dtype("random_uniform", dtype, FLOAT_DTYPES, floatx())
    u = _draw(RandomUniform, "random_uniform", shape, seed, get_backend(), dtype=dtype)
    if isinstance(minval, numbers.Real) and isinstance(maxval, numbers.Real):
        return _scale_and_shift(u, maxval - minval, minval, dtype)
    width = subtract(cast(maxval, dtype), cast(minval, dtype))
    return _scale_and_shift(u, width, minval, dtype)


def random_normal(shape, mean=0.0, stddev=1.0, dtype=None, seed=None) -> TensorBase:
    """Normal values with ``mean`` and ``stddev`` (Keras's ``keras.random.normal``)."""
    shape = _shape("random_normal", shape)
    dtype = _dtype("random_normal", dtype, FLOAT_DTYPES, floatx())
    z = _draw(RandomNormal, "random_normal", shape, seed, get_backend(), dtype=dtype)
    return _scale_and_shift(z, stddev, mean, dtype)


def random_truncated_normal(shape, mean=0.0, stddev=1.0, dtype=None,
                            seed=None) -> TensorBase:
    """Normal values re-drawn until within two ``stddev`` of ``mean``
    (Keras's ``keras.random.truncated_normal``; the exact rule is in the module docstring).

    The variance is about ``0.774 * stddev**2``.
    """
    shape = _shape("random_truncated_normal", shape)
    dtype = _dtype("random_truncated_normal", dtype, FLOAT_DTYPES, floatx())
    z = _draw(RandomTruncatedNormal, "random_truncated_normal", shape, seed, get_backend(),
              dtype=dtype)
    return _scale_and_shift(z, stddev, mean, dtype)


def random_bernoulli(shape, p=0.5, dtype=None, seed=None) -> TensorBase:
    """1 with probability ``p``, else 0, in ``dtype`` (default ``floatx()``; bool and
    integer dtypes too)."""
    shape = _shape("random_bernoulli", shape)
    dtype = _dtype("random_bernoulli", dtype, ALL_DTYPES, floatx())
    p = float(_number("random_bernoulli", "p", p))
    if not 0.0 <= p <= 1.0:
        raise ValueError(f"random_bernoulli: argument 'p' must be in [0, 1]; received {p}")
    return _draw(RandomBernoulli, "random_bernoulli", shape, seed, get_backend(),
                 dtype=dtype, p=p)


def random_randint(shape, minval, maxval, dtype="int32", seed=None) -> TensorBase:
    """Integers uniform in [minval, maxval) (Keras's ``keras.random.randint``).

    ``floor(u * (maxval - minval)) + minval`` with ``u`` a float64 uniform draw (53 random
    bits): exact for ranges up to 2**53 values, the limit this function accepts.
    """
    shape = _shape("random_randint", shape)
    dtype = _dtype("random_randint", dtype, INT_DTYPES, "int32")
    minval = _integer("random_randint", "minval", minval)
    maxval = _integer("random_randint", "maxval", maxval)
    if minval >= maxval:
        raise ValueError(f"random_randint: expected minval < maxval; received "
                         f"minval={minval}, maxval={maxval}")
    low, high = _INT_RANGES[dtype]
    low, high = max(low, _INT_RANGES["int64"][0]), min(high, _INT_RANGES["int64"][1])
    if minval < low or maxval > high:
        raise ValueError(f"random_randint: the range [minval, maxval) must fit in {dtype} "
                         f"(and int64): [{low}, {high}); received [{minval}, {maxval})")
    if maxval - minval > _RANDINT_MAX_RANGE:
        raise ValueError(f"random_randint: maxval - minval must be at most 2**53; received "
                         f"{maxval - minval}")
    u = _draw(RandomUniform, "random_randint", shape, seed, get_backend(), dtype="float64")
    # u * n < n exactly for n <= 2**53 (u <= 1 - 2**-53), and truncation is floor for u >= 0.
    offsets = cast(multiply(u, float(maxval - minval)), "int64")
    if minval:
        offsets = add(offsets, minval)
    return cast(offsets, dtype)


def _integer(op_name: str, arg: str, value) -> int:
    if isinstance(value, bool):
        raise TypeError(f"{op_name}: argument '{arg}' must be an int; received {value!r}")
    try:
        return operator.index(value)
    except TypeError:
        raise TypeError(f"{op_name}: argument '{arg}' must be an int; received "
                        f"{value!r}") from None


def dropout(x, rate, noise_shape=None, seed=None) -> TensorBase:
    """Zero each element of ``x`` with probability ``rate``, scaling the rest by
    ``1 / (1 - rate)`` (Keras's ``keras.random.dropout``).

    Args:
        x: a float tensor.
        rate: the drop probability, in [0, 1]. 0 returns ``x`` unchanged, 1 zeros (as
            Keras: every element dropped, none scaled; the generator still advances).
        noise_shape: the mask's shape, broadcast against ``x`` (e.g. ``(batch, 1, 1, C)``
            drops whole channels); None entries take ``x``'s size. Default: ``x.shape``.
        seed: an int, a ``lamina.random.SeedGenerator`` or None.

    The mask is ``random_bernoulli(noise_shape, 1 - rate)`` scaled by ``1 / (1 - rate)``;
    the gradient with respect to ``x`` is the same mask (it flows through the multiply).
    """
    x = as_tensor("dropout", x)
    require_float("dropout", "x", x)
    rate = _number("dropout", "rate", rate)
    if not 0.0 <= rate <= 1.0:
        raise ValueError(f"dropout: argument 'rate' must be in [0, 1]; received {rate}")
    if rate == 0:
        return unchanged(x)
    mask_shape = _noise_shape(x, noise_shape)
    backend = x.backend if isinstance(x, Tensor) else get_backend()
    like = x if any(d is None for d in mask_shape) else None
    keep = 1.0 - float(rate)
    if keep == 0.0:
        # Everything dropped: exact zeros (also for inf or NaN inputs) and a zero gradient,
        # through an all-false mask drawn as any other, so the generator advances as in Keras.
        mask = _draw(RandomBernoulli, "dropout", mask_shape, seed, backend, like=like,
                     dtype="bool", p=0.0)
        return where(mask, x, zeros_like(x))
    mask = _draw(RandomBernoulli, "dropout", mask_shape, seed, backend, like=like,
                 dtype=x.dtype, p=keep)
    return multiply(x, multiply(mask, 1.0 / keep))


def _noise_shape(x, noise_shape) -> tuple:
    if noise_shape is None:
        return tuple(x.shape)
    dims = tuple(noise_shape)
    bad = len(dims) != len(x.shape)
    resolved = []
    for d, size in zip(dims, x.shape):
        if d is None or isinstance(d, DynamicDim):      # x's size (ops.shape's batch size)
            resolved.append(size)
            continue
        if isinstance(d, bool) or not isinstance(d, numbers.Integral) or \
                (d != 1 and size is not None and d != size):
            bad = True
            break
        resolved.append(int(d))
    if bad:
        raise ShapeError(f"dropout: argument 'noise_shape' must have one entry per dimension "
                         f"of x, each 1, None or x's size; received noise_shape "
                         f"{tuple(noise_shape)!r} for x of shape {describe_shape(x.shape)}")
    return tuple(resolved)
