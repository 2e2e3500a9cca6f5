"""Random draws recomputed from their definition, block by block, with numpy's Philox.

Independent of Lamina's kernels: element block ``b`` of the draw at ``counter`` under
``key`` is the block numpy's ``Philox(key, counter=(b - 1) + counter * 2**64)`` yields next
(numpy adds one to its counter before each block).
"""
import math

import numpy as np

WORD = 1 << 64


def philox_words(key, counter: int, n: int) -> np.ndarray:
    """The first ``n`` raw 64-bit words of the draw at (key, counter)."""
    blocks = []
    for b in range(-(-n // 4)):
        start = ((b - 1) + counter * WORD) % (1 << 256)
        generator = np.random.Philox(key=key[0] + (key[1] << 64), counter=start)
        blocks.append(generator.random_raw(4))
    words = np.concatenate(blocks) if blocks else np.zeros(0, dtype=np.uint64)
    return words[:n]


def uniform(shape, dtype, key, counter: int) -> np.ndarray:
    """Top m bits of each word times 2**-m (m = 11, 24, 53 for float16/32/64)."""
    dtype = np.dtype(dtype)
    kept = {"float16": 11, "float32": 24, "float64": 53}[dtype.name]
    n = math.prod(shape)
    words = philox_words(key, counter, n)
    values = [int(w) >> (64 - kept) for w in words]
    return (np.array(values, dtype=np.float64) * 2.0 ** -kept).astype(dtype).reshape(shape)


def normal(shape, dtype, key, counter: int) -> np.ndarray:
    """Box-Muller on word pairs, in float64; narrower dtypes rounded through float32."""
    dtype = np.dtype(dtype)
    n = math.prod(shape)
    words = philox_words(key, counter, n + (n % 2))
    values = []
    for w0, w1 in zip(words[0::2], words[1::2]):
        u1 = ((int(w0) >> 11) + 1) * 2.0 ** -53
        u2 = (int(w1) >> 11) * 2.0 ** -53
        radius = math.sqrt(-2.0 * math.log(u1))
        values += [radius * math.cos(2 * math.pi * u2), radius * math.sin(2 * math.pi * u2)]
    out = np.array(values[:n], dtype=np.float64)
    if dtype != np.float64:
        out = out.astype(np.float32)
    return out.astype(dtype).reshape(shape)


def truncated_normal(shape, dtype, key, counter: int, candidates: int = 16) -> np.ndarray:
    """A normal draw; then, for j = 1 .. candidates - 1, the values still outside
    |z| <= 2 (row-major) take the values of the normal draw at counter + j * 2**64, in
    order; what is left outside at the end is clipped to [-2, 2]."""
    z = normal(shape, dtype, key, counter).reshape(-1)
    for j in range(1, candidates):
        outside = np.flatnonzero(np.abs(z) > 2)
        if outside.size == 0:
            break
        z[outside] = normal((outside.size,), dtype, key, counter + j * WORD)
    return np.clip(z, -2, 2).reshape(shape)


def bernoulli(shape, p: float, dtype, key, counter: int) -> np.ndarray:
    """1 where a float32 uniform draw is below p."""
    return (uniform(shape, "float32", key, counter) < np.float32(p)).astype(dtype)
