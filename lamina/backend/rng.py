"""Counter-based random kernels: a draw is a pure function of (key, counter, element index).

The generator is Philox4x64-10 (Salmon et al., "Parallel random numbers: as easy as 1, 2,
3", SC11), the one behind ``numpy.random.Philox``: a 128-bit ``key`` and a 256-bit counter
go through ten rounds of multiplies and come out as four random 64-bit words. Element
block ``b`` (four values) of the draw at ``counter`` uses the Philox counter
``(b, counter mod 2**64, counter // 2**64, 0)``, so

- a draw never depends on what was drawn before it (no hidden state to advance), which is
  what makes dropout masks independent of execution order and equal in eager and graph mode;
- successive counters never overlap: each owns 2**64 blocks of its own;
- a draw of n values is the first n values of any larger draw at the same (key, counter).

Words become numbers the same way on every backend (the cupy backend runs the same rounds in
one CUDA kernel), so both devices draw the same values:

- uniform [0, 1): the top ``m`` bits of each word times ``2**-m``, where ``m`` is the
  dtype's significand width (11, 24, 53 for float16/32/64): exact, and never 1.0;
- standard normal: Box-Muller on each pair of words (w0, w1), in float64:
  ``u1 = ((w0 >> 11) + 1) * 2**-53`` in (0, 1], ``u2 = (w1 >> 11) * 2**-53`` in [0, 1),
  ``r = sqrt(-2 log u1)``, values ``r cos(2 pi u2)`` then ``r sin(2 pi u2)``; float16 and
  float32 results are rounded from float64 through float32.

This module imports no array library: kernels are written against ``self.xp``, and only the
generation of raw words (``_philox_bits``) uses numpy's Philox, then moves the words to the
backend; so do the gamma, beta, binomial, permutation and categorical draws, which run
numpy's Generator algorithms on a Philox stream at (key, counter) on the host. The cupy backend overrides both kernels with its own CUDA Philox.
"""
from __future__ import annotations

import math

from ..dtypes import FLOAT_DTYPES, standardize
from ..errors import DTypeError

WORD = 1 << 64
# Random bits kept per uniform value: the significand width, so values are exact and < 1.
UNIFORM_BITS = {"float16": 11, "bfloat16": 8, "float32": 24, "float64": 53}
_TWO_PI = 2.0 * math.pi
_HALF_ULP_53 = 2.0 ** -53


def float_dtype_name(op_name: str, dtype) -> str:
    """``dtype`` as Lamina's name; DTypeError unless it is a float dtype."""
    try:
        name = standardize(dtype)
    except DTypeError:
        name = None
    if name not in FLOAT_DTYPES:
        raise DTypeError(f"{op_name}: expected a float dtype (float16, bfloat16, float32, "
                         f"float64); received {getattr(dtype, 'name', dtype)}")
    return name


def check_key_and_counter(op_name: str, key, counter) -> tuple[int, int, int]:
    """(key0, key1, counter) as Python ints, or ValueError naming the bad argument."""
    try:
        key0, key1 = (int(k) for k in key)
    except (TypeError, ValueError):
        raise ValueError(f"{op_name}: expected 'key' to be two integers in [0, 2**64); "
                         f"received {key!r}") from None
    if not (0 <= key0 < WORD and 0 <= key1 < WORD):
        raise ValueError(f"{op_name}: expected 'key' to be two integers in [0, 2**64); "
                         f"received {tuple(key)}")
    counter = int(counter)
    if not 0 <= counter < WORD * WORD:
        raise ValueError(f"{op_name}: expected 'counter' in [0, 2**128); received {counter}")
    return key0, key1, counter


def _shape_and_size(shape) -> tuple[tuple, int]:
    shape = tuple(int(d) for d in shape)
    return shape, math.prod(shape)


class RandomKernels:
    """Mixed into Backend: ``random_uniform`` and ``random_normal``, written against ``xp``."""

    def random_uniform(self, shape, dtype, key, counter):
        """Uniform [0, 1) values of ``dtype``: a pure function of (key, counter, index)."""
        name = float_dtype_name("random_uniform", dtype)
        shape, size = _shape_and_size(shape)
        words = self._philox_bits("random_uniform", -(-size // 4), key, counter)
        words = words.reshape(-1)[:size]
        kept = UNIFORM_BITS[name]
        self.xp.right_shift(words, 64 - kept, out=words)      # the words are ours to reuse
        # Below 2**24 (float32) or 2**53 (float64) the integers convert exactly.
        compute = "float64" if name == "float64" else "float32"
        values = words.astype(compute)
        values *= 2.0 ** -kept
        values = values.reshape(shape)
        return values if name == compute else values.astype(name)

    def random_normal(self, shape, dtype, key, counter):
        """Standard normal values of ``dtype``: a pure function of (key, counter, index)."""
        name = float_dtype_name("random_normal", dtype)
        shape, size = _shape_and_size(shape)
        xp = self.xp
        words = self._philox_bits("random_normal", -(-size // 4), key, counter).reshape(-1)
        xp.right_shift(words, 11, out=words)
        high = words.astype("float64")                 # 53-bit integers: exact
        u1 = high[0::2]
        u1 += 1.0
        u1 *= _HALF_ULP_53
        angle = high[1::2]
        angle *= _HALF_ULP_53 * _TWO_PI
        radius = xp.log(u1)
        radius *= -2.0
        xp.sqrt(radius, out=radius)
        values = xp.empty((u1.shape[0], 2), dtype="float64")
        xp.cos(angle, out=values[:, 0])
        values[:, 0] *= radius
        xp.sin(angle, out=values[:, 1])
        values[:, 1] *= radius
        values = values.reshape(-1)[:size].reshape(shape)
        if name == "float64":
            return values
        values = values.astype("float32")
        return values if name == "float32" else values.astype(name)

    # ------------------------------------------------------------ host-drawn distributions
    # Gamma, beta, binomial, permutations and categorical draws use numpy's Generator
    # algorithms on a Philox stream at (key, counter), on the host, then move the values to
    # the backend: still a pure function of (key, counter, arguments), so eager and graph
    # mode, and both backends, draw the same values.
    def _host_generator(self, op_name: str, key, counter):
        import numpy
        key0, key1, counter = check_key_and_counter(op_name, key, counter)
        bits = numpy.random.Philox(key=key0 | (key1 << 64),
                                   counter=((counter << 64) - 1) % (1 << 256))
        return numpy.random.Generator(bits)

    def random_gamma(self, shape, dtype, key, counter, alpha):
        rng = self._host_generator("random_gamma", key, counter)
        values = rng.standard_gamma(self.to_host(alpha).astype("float64"), size=shape)
        return self.asarray(values.astype(dtype))

    def random_beta(self, shape, dtype, key, counter, alpha, beta):
        rng = self._host_generator("random_beta", key, counter)
        values = rng.beta(self.to_host(alpha).astype("float64"),
                          self.to_host(beta).astype("float64"), size=shape)
        return self.asarray(values.astype(dtype))

    def random_binomial(self, shape, dtype, key, counter, counts, probabilities):
        rng = self._host_generator("random_binomial", key, counter)
        values = rng.binomial(self.to_host(counts).astype("int64"),
                              self.to_host(probabilities).astype("float64"), size=shape)
        return self.asarray(values.astype(dtype))

    def random_permutation(self, n: int, key, counter):
        rng = self._host_generator("random_permutation", key, counter)
        return self.asarray(rng.permutation(n).astype("int64"))

    def random_categorical(self, logits, num_samples: int, dtype, key, counter):
        """``num_samples`` class indices per row of ``logits`` (batch, classes), by inverse
        CDF of the row's softmax (in float64) at uniform draws."""
        import numpy
        rng = self._host_generator("random_categorical", key, counter)
        z = self.to_host(logits).astype("float64")
        z = numpy.exp(z - z.max(axis=-1, keepdims=True))
        cdf = numpy.cumsum(z, axis=-1)
        cdf /= cdf[:, -1:]
        u = rng.random((z.shape[0], num_samples))
        picks = numpy.stack([numpy.searchsorted(row, draws, side="right")
                             for row, draws in zip(cdf, u)]) if len(z) else \
            numpy.zeros((0, num_samples), "int64")
        return self.asarray(numpy.minimum(picks, z.shape[1] - 1).astype(dtype))

    def _philox_bits(self, op_name: str, blocks: int, key, counter):
        """``(blocks, 4)`` raw uint64 words; block b at Philox counter (b, counter).

        numpy's Philox adds one to its counter *before* each block, so it starts one below
        ``counter * 2**64`` (modulo 2**256, for counter 0) to make its first block block 0.
        """
        import numpy
        key0, key1, counter = check_key_and_counter(op_name, key, counter)
        generator = numpy.random.Philox(key=key0 | (key1 << 64),
                                        counter=((counter << 64) - 1) % (1 << 256))
        return self.asarray(generator.random_raw(4 * blocks).reshape(blocks, 4))
