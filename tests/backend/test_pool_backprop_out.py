"""max_pool2d_backprop into a given buffer (the memory plan's): the same numbers as a fresh
array, for exact tilings, overlapping windows and padded inputs; and a convolution's
padded copy is one block of samples per core, not the whole batch."""
import tracemalloc

import numpy as np
import pytest

from lamina.backend import blas_threads, get_backend
from lamina.backend import numba_chain


@pytest.mark.parametrize("pool, strides, pads", [
    ((2, 2), (2, 2), ((0, 0), (0, 0))),          # exact tiling
    ((3, 3), (1, 1), ((0, 0), (0, 0))),          # overlapping windows
    ((3, 3), (2, 2), ((1, 1), (1, 1))),          # 'same' padding
])
def test_out_buffer_gets_the_fresh_result(pool, strides, pads):
    backend = get_backend("numpy")
    rng = np.random.default_rng(0)
    x = rng.standard_normal((2, 7, 8, 3)).astype("float32")
    y = backend.pool2d(x, "max", pool, strides, pads)
    dy = rng.standard_normal(y.shape).astype("float32")
    fresh = backend.max_pool2d_backprop(x, y, dy, pool, strides, pads)
    out = np.full(x.shape, np.nan, dtype="float32")            # stale contents
    got = backend.max_pool2d_backprop(x, y, dy, pool, strides, pads, out=out)
    assert got is out
    np.testing.assert_array_equal(out, fresh)
    assert fresh.sum(dtype="float64") == pytest.approx(dy.sum(dtype="float64"), rel=1e-6)


def test_a_padded_convolution_copies_a_block_not_the_batch():
    backend = get_backend("numpy")
    rng = np.random.default_rng(1)
    x = rng.standard_normal((64, 32, 32, 32)).astype("float32")
    w = rng.standard_normal((3, 3, 32, 32)).astype("float32")
    out = np.empty((64, 32, 32, 32), "float32")
    pads = ((1, 1), (1, 1))
    backend.conv2d(x, w, (1, 1), pads, (1, 1), 1, out=out)
    numba_chain.wait_for_compiles(120)   # a compile on the worker thread allocates too
    tracemalloc.start()
    try:
        backend.conv2d(x, w, (1, 1), pads, (1, 1), 1, out=out)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    # one column buffer (2.5 MiB) and one padded block of samples per core; the padded batch
    # alone would be 9 MiB
    assert peak < blas_threads.cores() * 3.5 * 2**20, peak
    reference = backend.conv2d(np.pad(x, ((0, 0), (1, 1), (1, 1), (0, 0))), w, (1, 1),
                               ((0, 0), (0, 0)), (1, 1), 1)
    np.testing.assert_array_equal(out, reference)
