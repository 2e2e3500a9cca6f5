"""Random draws from parametric distributions: gamma, beta, binomial, categorical, and
random permutations (``keras.random.shuffle``).

Like the draws of ops/random.py, each is an op whose value is a pure function of (key,
counter, arguments): the counter is an input tensor (a SeedGenerator's state), ``key``,
``shape`` and ``dtype`` static attributes, and the distribution's parameters input tensors
broadcast against ``shape``. The backend draws them with numpy's Generator algorithms on a
Philox stream at (key, counter) (lamina/backend/rng.py), so eager and graph mode draw the
same values. No gradients, as in Keras.
"""
from __future__ import annotations

from ..backend import get_backend
from ..dtypes import FLOAT_DTYPES, INT_DTYPES, floatx
from ..errors import DTypeError, ShapeError, describe_shape
from .seed_generator import draw_state
from .core import as_tensor, cast, convert_to_tensor
from .indexing import take
from ..core.op import Op, Spec, broadcast_shapes, register_op
from .random import _dtype, _shape

__all__ = ["random_gamma", "random_beta", "random_binomial", "random_categorical",
           "random_shuffle"]


class _DistributionOp(Op):
    """Inputs ``(counter, *parameters)``; attributes ``shape``, ``dtype``, ``key``."""
    differentiable = False
    stateful = True

    def output_spec(self, counter, *params, shape, dtype, key):
        _check_counter(self.name, counter)
        for p in params:
            try:
                fits = broadcast_shapes(self.name, p.shape, shape) == tuple(shape)
            except ShapeError:
                fits = False
            if not fits:
                raise ShapeError(f"{self.name}: a parameter of shape "
                                 f"{describe_shape(p.shape)} does not broadcast to the "
                                 f"draw's shape {describe_shape(shape)}")
        return Spec(tuple(shape), dtype)

    def forward(self, backend, counter, *params, out=None, shape, dtype, key):
        return getattr(backend, self.name)(shape, dtype, key, int(backend.to_host(counter)),
                                           *params)


def _check_counter(name, counter):
    if counter.dtype != "int64" or counter.shape != ():
        raise DTypeError(f"{name}: argument 'counter' must be an int64 scalar; received "
                         f"{counter.dtype} of shape {describe_shape(counter.shape)}")


@register_op
class RandomGamma(_DistributionOp):
    name = "random_gamma"


@register_op
class RandomBeta(_DistributionOp):
    name = "random_beta"


@register_op
class RandomBinomial(_DistributionOp):
    name = "random_binomial"


@register_op
class RandomPermutation(Op):
    """A permutation of ``range(n)`` (int64)."""
    name = "random_permutation"
    differentiable = False
    stateful = True

    def output_spec(self, counter, *, n, key):
        _check_counter(self.name, counter)
        return Spec((n,), "int64")

    def forward(self, backend, counter, out=None, *, n, key):
        return backend.random_permutation(n, key, int(backend.to_host(counter)))


@register_op
class RandomCategorical(Op):
    """``num_samples`` class indices per row of ``logits`` (batch, classes)."""
    name = "random_categorical"
    differentiable = False
    stateful = True

    def output_spec(self, counter, logits, *, num_samples, dtype, key):
        _check_counter(self.name, counter)
        if len(logits.shape) != 2:
            raise ShapeError(f"categorical: argument 'logits' must have shape (batch, "
                             f"classes); received shape {describe_shape(logits.shape)}")
        return Spec((logits.shape[0], num_samples), dtype)

    def forward(self, backend, counter, logits, out=None, *, num_samples, dtype, key):
        return backend.random_categorical(logits, num_samples, dtype, key,
                                          int(backend.to_host(counter)))


def _draw(op, op_name, seed, *inputs, **attrs):
    key, counter, generator = draw_state(op_name, seed, get_backend())
    result = op(counter, *inputs, key=key, **attrs)
    if generator is not None:
        generator.advance()
    return result


def _parameter(op_name, arg, value, dtype):
    try:
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            return convert_to_tensor(value, dtype=dtype)   # exact: no float32 detour
        return cast(as_tensor(op_name, value), dtype)
    except (TypeError, ValueError) as exc:
        raise TypeError(f"{op_name}: argument '{arg}' must be a number or a tensor; "
                        f"received {value!r}") from exc


def random_gamma(shape, alpha, dtype=None, seed=None):
    """Gamma(``alpha``, scale 1) values (Keras's ``keras.random.gamma``)."""
    shape = _shape("gamma", shape)
    dtype = _dtype("gamma", dtype, FLOAT_DTYPES, floatx())
    return _draw(RandomGamma, "gamma", seed, _parameter("gamma", "alpha", alpha, "float64"),
                 shape=shape, dtype=dtype)


def random_beta(shape, alpha, beta, dtype=None, seed=None):
    """Beta(``alpha``, ``beta``) values in [0, 1] (Keras's ``keras.random.beta``)."""
    shape = _shape("beta", shape)
    dtype = _dtype("beta", dtype, FLOAT_DTYPES, floatx())
    return _draw(RandomBeta, "beta", seed, _parameter("beta", "alpha", alpha, "float64"),
                 _parameter("beta", "beta", beta, "float64"), shape=shape, dtype=dtype)


def random_binomial(shape, counts, probabilities, dtype=None, seed=None):
    """Successes in ``counts`` trials of probability ``probabilities`` (Keras's
    ``keras.random.binomial``; default dtype ``floatx()``, as Keras)."""
    shape = _shape("binomial", shape)
    dtype = _dtype("binomial", dtype, FLOAT_DTYPES + INT_DTYPES, floatx())
    return _draw(RandomBinomial, "binomial", seed,
                 _parameter("binomial", "counts", counts, "int64"),
                 _parameter("binomial", "probabilities", probabilities, "float64"),
                 shape=shape, dtype=dtype)


def random_categorical(logits, num_samples, dtype="int32", seed=None):
    """``num_samples`` class indices per row of ``logits`` (batch, classes), each class
    drawn with probability ``softmax(logits)`` (Keras's ``keras.random.categorical``)."""
    logits = as_tensor("categorical", logits)
    dtype = _dtype("categorical", dtype, INT_DTYPES, "int32")
    if isinstance(num_samples, bool) or not isinstance(num_samples, int) or num_samples < 0:
        raise ValueError(f"categorical: argument 'num_samples' must be a non-negative int; "
                         f"received {num_samples!r}")
    return _draw(RandomCategorical, "categorical", seed, logits, num_samples=num_samples,
                 dtype=dtype)


def random_shuffle(x, axis=0, seed=None):
    """``x`` with its slices along ``axis`` in a random order (Keras's
    ``keras.random.shuffle``); differentiable with respect to ``x`` (a gather)."""
    x = as_tensor("shuffle", x)
    ndim = len(x.shape)
    if not isinstance(axis, int) or not -ndim <= axis < max(ndim, 1):
        raise ValueError(f"shuffle: argument 'axis' must be an int in [{-ndim}, {ndim}); "
                         f"received {axis!r}")
    n = x.shape[axis]
    if n is None:
        raise ShapeError(f"shuffle: the size of axis {axis} must be known; received shape "
                         f"{describe_shape(x.shape)}")
    order = _draw(RandomPermutation, "shuffle", seed, n=n)
    return take(x, order, axis=axis)
