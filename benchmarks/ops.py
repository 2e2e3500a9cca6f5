"""Op benchmarks: convolution against the matmul roofline, pooling, and eager per-call overhead.

    python benchmarks/ops.py [--backend numpy|cupy] [--repeats N]

For each convolution shape it prints the float32 1024x1024 matmul rate (the roofline, with
the BLAS's default threads, best of several), then conv2d forward, input gradient and
filter gradient in GFLOP/s and as a fraction of that roofline. Every figure is the best of
``--repeats`` runs: the build machine is shared, and the best run is the one least disturbed.
"""
from __future__ import annotations

import argparse
import os
import statistics
import sys
import time

import numpy as np
from lamina.ops.core import to_backend_tensor

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

import lamina  # noqa: E402
from lamina import ops  # noqa: E402
from lamina.ops.conv import resolve_pads  # noqa: E402

# (batch, height, width, in_channels, out_channels, kernel, stride, padding)
CONV_SHAPES = [
    (64, 32, 32, 32, 32, 3, 1, "same"),
    (64, 16, 16, 64, 64, 3, 1, "same"),
]
TARGETS = {"forward": 0.35, "backprop_input": 0.25, "backprop_filter": 0.25}


def best_time(fn, repeats: int, backend) -> float:
    fn()                                  # warm-up: allocations, caches, lazy imports
    backend.synchronize()
    best = float("inf")
    for _ in range(repeats):
        start = time.perf_counter()
        fn()
        backend.synchronize()
        best = min(best, time.perf_counter() - start)
    return best


def roofline(backend, repeats: int) -> float:
    a = backend.asarray(np.random.default_rng(0).random((1024, 1024)), dtype="float32")
    b = backend.asarray(np.random.default_rng(1).random((1024, 1024)), dtype="float32")
    seconds = best_time(lambda: backend.matmul(a, b), max(repeats, 10), backend)
    return 2 * 1024 ** 3 / seconds / 1e9


def bench_conv(backend, shape, repeats: int) -> dict:
    n, h, w, cin, cout, k, stride, padding = shape
    rng = np.random.default_rng(0)
    x = backend.asarray(rng.standard_normal((n, h, w, cin)), dtype="float32")
    kernel = backend.asarray(rng.standard_normal((k, k, cin, cout)), dtype="float32")
    strides, dilation = (stride, stride), (1, 1)
    pads = resolve_pads(padding, (h, w), (k, k), strides, dilation)
    y = backend.conv2d(x, kernel, strides, pads, dilation, 1)
    dy = backend.asarray(rng.standard_normal(y.shape), dtype="float32")
    flops = 2 * y.shape[0] * y.shape[1] * y.shape[2] * k * k * cin * cout
    calls = {
        "forward": lambda: backend.conv2d(x, kernel, strides, pads, dilation, 1),
        "backprop_input": lambda: backend.conv2d_backprop_input(
            dy, kernel, x.shape, strides, pads, dilation, 1),
        "backprop_filter": lambda: backend.conv2d_backprop_filter(
            x, dy, kernel.shape, strides, pads, dilation, 1),
    }
    return {name: flops / best_time(fn, repeats, backend) / 1e9 for name, fn in calls.items()}


def bench_pool(backend, repeats: int) -> dict:
    x = backend.asarray(np.random.default_rng(0).standard_normal((64, 32, 32, 32)),
                        dtype="float32")
    args = ((2, 2), (2, 2), ((0, 0), (0, 0)))
    y = backend.pool2d(x, "max", *args)
    dy = backend.asarray(np.random.default_rng(1).standard_normal(y.shape), dtype="float32")
    times = {
        "max_pool2d forward": lambda: backend.pool2d(x, "max", *args),
        "max_pool2d backward": lambda: backend.max_pool2d_backprop(x, y, dy, *args),
        "avg_pool2d forward": lambda: backend.pool2d(x, "avg", *args),
        "avg_pool2d backward": lambda: backend.avg_pool2d_backprop(dy, x.shape, *args),
    }
    return {name: best_time(fn, repeats * 4, backend) * 1e3 for name, fn in times.items()}


def median_call_us(fn, calls: int = 20000) -> float:
    for _ in range(1000):
        fn()
    samples = []
    for _ in range(calls // 100):
        start = time.perf_counter()
        for _ in range(100):
            fn()
        samples.append((time.perf_counter() - start) / 100 * 1e6)
    return statistics.median(samples)


def bench_overhead(backend_name: str) -> tuple[float, float]:
    a = to_backend_tensor(np.arange(4, dtype="float32"), backend=backend_name)
    b = to_backend_tensor(np.ones(4, dtype="float32"), backend=backend_name)
    eager = median_call_us(lambda: ops.add(a, b))
    raw_a, raw_b = a.data, b.data
    xp = lamina.backend.get_backend(backend_name).xp
    raw = median_call_us(lambda: xp.add(raw_a, raw_b))
    return eager, raw


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--backend", default="numpy", choices=["numpy", "cupy"])
    parser.add_argument("--repeats", type=int, default=7)
    args = parser.parse_args(argv)
    backend = lamina.backend.get_backend(args.backend)
    print(f"backend: {backend!r}; numpy {np.__version__}; "
          f"OPENBLAS_NUM_THREADS={os.environ.get('OPENBLAS_NUM_THREADS', 'default')}")
    for shape in CONV_SHAPES:
        # The roofline before and after, and the better of the two: a busy moment during
        # one measurement must not flatter the ratios.
        before = roofline(backend, args.repeats)
        rates = bench_conv(backend, shape, args.repeats)
        roof = max(before, roofline(backend, args.repeats))
        n, h, w, cin, cout, k, stride, padding = shape
        print(f"\nconv2d batch {n}, {h}x{w}x{cin} -> {cout}, {k}x{k} stride {stride} "
              f"'{padding}' (float32)")
        print(f"  matmul roofline (1024^2 float32): {roof:8.1f} GFLOP/s")
        for name, rate in rates.items():
            print(f"  {name:<16} {rate:8.1f} GFLOP/s   {rate / roof:5.2f} of roofline "
                  f"(target {TARGETS[name]:.2f})")
    print("\npooling 64x32x32x32 float32, 2x2 stride 2:")
    for name, ms in bench_pool(backend, args.repeats).items():
        print(f"  {name:<20} {ms:7.3f} ms")
    eager, raw = bench_overhead(args.backend)
    print("\nper-call overhead, add on a (4,) float32 tensor (median):")
    print(f"  lamina.ops.add (eager)  {eager:6.2f} us")
    print(f"  raw {backend.xp.__name__}.add          {raw:6.2f} us")


if __name__ == "__main__":
    main()
