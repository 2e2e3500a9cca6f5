"""Convolution blocks on several cores (lamina/backend/blas_threads.py, opt-in with
``backend.conv_threads``): the same bits as in one thread, OpenBLAS's thread count
restored, no deadlock when a part asks again; off by default, nothing changes."""
import threading

import numpy as np
import pytest

from lamina.backend import blas_threads, get_backend

pytestmark = pytest.mark.skipif(not blas_threads.available(),
                                reason="one core, or numpy's BLAS is not an OpenBLAS "
                                       "whose thread count can be set")


@pytest.fixture(autouse=True)
def _conv_threads(monkeypatch):
    """The opt-in (Backend.conv_threads) on for these tests."""
    monkeypatch.setattr(get_backend("numpy"), "conv_threads", True)


def _kernels(backend, x, w, dy, strides, pads):
    return (backend.conv2d(x, w, strides, pads, (1, 1), 1),
            backend.conv2d_backprop_input(dy, w, x.shape, strides, pads, (1, 1), 1),
            backend.conv2d_backprop_filter(x, dy, w.shape, strides, pads, (1, 1), 1))


@pytest.mark.parametrize("shape, strides, pads", [
    ((16, 32, 32, 8), (1, 1), ((1, 1), (1, 1))),       # blocks of samples
    ((3, 96, 96, 16), (1, 1), ((1, 1), (1, 1))),       # row blocks within a sample
    ((40, 33, 33, 8), (2, 2), ((0, 1), (0, 1))),       # strided: col2im scatter
])
def test_threaded_blocks_give_the_bits_of_one_thread(shape, strides, pads, monkeypatch):
    backend = get_backend("numpy")
    rng = np.random.default_rng(0)
    x = rng.standard_normal(shape).astype("float32")
    w = rng.standard_normal((3, 3, shape[3], 6)).astype("float32")
    y = backend.conv2d(x, w, strides, pads, (1, 1), 1)
    dy = rng.standard_normal(y.shape).astype("float32")
    blocks = backend._conv_blocks(shape[0], y.shape[1], y.shape[2] * 9 * shape[3] * 4)
    calls = []
    original = blas_threads.run_parts
    monkeypatch.setattr(blas_threads, "run_parts",
                        lambda fn, parts: calls.append(len(parts)) or original(fn, parts))
    threaded = _kernels(backend, x, w, dy, strides, pads)
    assert len(blocks) > 1 and calls and max(calls) == min(blas_threads.cores(), len(blocks))
    monkeypatch.setattr(blas_threads, "available", lambda: False)
    single = _kernels(backend, x, w, dy, strides, pads)
    for a, b in zip(threaded, single):
        np.testing.assert_array_equal(a, b)


def test_the_blas_thread_count_comes_back():
    get, _ = blas_threads._blas()
    before = get()
    seen = []
    blas_threads.run_parts(lambda part: seen.append(get()), [[0], [1]])
    assert seen == [1, 1] and get() == before
    with blas_threads.one_blas_thread():
        with blas_threads.one_blas_thread():
            assert get() == 1
        assert get() == 1
    assert get() == before


def test_a_part_that_asks_for_parts_runs_them_in_its_own_thread():
    threads = []

    def inner(part):
        threads.append(threading.get_ident())
        return sum(part)

    def outer(part):
        return blas_threads.run_parts(inner, [part, part])
    result = blas_threads.run_parts(outer, [[1, 2], [3]])
    assert result == [[3, 3], [3, 3]]
    assert len(threads) == 4


def test_split_makes_contiguous_near_equal_runs():
    assert blas_threads.split(list(range(7)), 3) == [[0, 1, 2], [3, 4], [5, 6]]
    assert blas_threads.split([1, 2], 5) == [[1], [2]]
    assert blas_threads.split([], 2) == [[]]


def test_a_convolution_plan_holds_one_blas_thread_and_a_dense_one_does_not(monkeypatch):
    import lamina
    from lamina.graph import executor
    get, _ = blas_threads._blas()
    before = get()
    seen = {}
    original = executor.Plan._run_steps

    def spy(self, arrays, mode):
        seen.setdefault(self.graph.name, set()).add(get())
        return original(self, arrays, mode)

    monkeypatch.setattr(executor.Plan, "_run_steps", spy)
    conv = lamina.Sequential([lamina.Input((8, 8, 3)), lamina.layers.Conv2D(4, 3),
                              lamina.layers.Flatten(), lamina.layers.Dense(2)])
    dense = lamina.Sequential([lamina.Input((12,)), lamina.layers.Dense(2)])
    conv.predict(np.ones((4, 8, 8, 3), "float32"), verbose=0)
    dense.predict(np.ones((4, 12), "float32"), verbose=0)
    conv_runs = set().union(*(v for name, v in seen.items() if name.split(".")[0] == conv.name))
    dense_runs = set().union(*(v for name, v in seen.items() if name.split(".")[0] == dense.name))
    assert conv_runs == {1} and dense_runs == {before}, seen
    assert get() == before


@pytest.mark.parametrize("pads", [((0, 0), (0, 0)), ((1, 1), (1, 1))])
def test_pooling_in_parts_of_samples_gives_the_bits_of_one_call(pads, monkeypatch):
    from lamina.backend import pooling
    backend = get_backend("numpy")
    rng = np.random.default_rng(3)
    x = rng.standard_normal((9, 32, 32, 16)).astype("float32")
    assert x.size >= pooling.SPLIT_ELEMENTS and backend._sample_parts(x) is not None
    results = []
    for split in (True, False):
        if not split:
            monkeypatch.setattr(blas_threads, "available", lambda: False)
        y = backend.pool2d(x, "max", (3, 3), (2, 2), pads)
        avg = backend.pool2d(x, "avg", (3, 3), (2, 2), pads)
        dy = np.random.default_rng(4).standard_normal(y.shape).astype("float32")
        dx = backend.max_pool2d_backprop(x, y, dy, (3, 3), (2, 2), pads)
        results.append((y, avg, dx))
    for a, b in zip(*results):
        np.testing.assert_array_equal(a, b)



def test_off_by_default_a_convolution_plan_leaves_openblas_alone(monkeypatch):
    """Default: no block threads and no hold, so the plan's GEMMs run as eager's do."""
    import lamina
    monkeypatch.setattr(get_backend("numpy"), "conv_threads", False)
    get, _ = blas_threads._blas()
    before = get()
    calls = []
    monkeypatch.setattr(blas_threads, "run_parts", lambda fn, parts: calls.append(parts))
    model = lamina.Sequential([lamina.Input((16, 16, 8)), lamina.layers.Conv2D(8, 3),
                               lamina.layers.MaxPooling2D(), lamina.layers.Flatten(),
                               lamina.layers.Dense(2)])
    model.predict(np.ones((64, 16, 16, 8), "float32"), verbose=0)
    assert calls == [] and get() == before
    assert get_backend("numpy").plan_scope(frozenset({"conv2d"})).__class__.__name__ == \
        "nullcontext"
