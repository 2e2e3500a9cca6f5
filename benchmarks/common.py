"""Shared pieces of the benchmarks: the matmul roofline, best-of and per-call timing, the
workloads' FLOP counts (the same as ../shared/bench/peers.py, so figures sit side by side)."""
from __future__ import annotations

import os
import sys
import statistics
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

MLP_FWD_FLOPS = 2 * (784 * 512 + 512 * 512 + 512 * 10)


def conv_flops(h, w, cin, cout, k=3):
    return 2 * h * w * cin * cout * k * k


CNN_FWD_FLOPS = (conv_flops(32, 32, 3, 32) + conv_flops(32, 32, 32, 32)
                 + conv_flops(16, 16, 32, 64) + conv_flops(16, 16, 64, 64)
                 + 2 * (8 * 8 * 64 * 256 + 256 * 10))


def roofline_gflops(repeats: int = 10) -> float:
    """float32 1024x1024 matmul GFLOP/s with the BLAS's default threads (best of N)."""
    rng = np.random.default_rng(0)
    a = rng.random((1024, 1024), dtype=np.float32)
    b = rng.random((1024, 1024), dtype=np.float32)
    a @ b
    best = min(_time(lambda: a @ b) for _ in range(repeats))
    return 2 * 1024 ** 3 / best / 1e9


def _time(fn) -> float:
    start = time.perf_counter()
    fn()
    return time.perf_counter() - start


def best_of(fn, repeats: int) -> float:
    fn()
    return min(_time(fn) for _ in range(repeats))


def mlp(keras):
    layers = keras.layers
    return keras.Sequential([keras.Input((784,)), layers.Dense(512, activation="relu"),
                             layers.Dense(512, activation="relu"), layers.Dense(10)])


def cnn(keras):
    layers = keras.layers
    return keras.Sequential([
        keras.Input((32, 32, 3)),
        layers.Conv2D(32, 3, padding="same", activation="relu"),
        layers.Conv2D(32, 3, padding="same", activation="relu"), layers.MaxPooling2D(),
        layers.Conv2D(64, 3, padding="same", activation="relu"),
        layers.Conv2D(64, 3, padding="same", activation="relu"), layers.MaxPooling2D(),
        layers.Flatten(), layers.Dense(256, activation="relu"), layers.Dropout(0.5),
        layers.Dense(10)])


def per_call_us(fn, calls: int, warmup: int = 50) -> float:
    """Median over 5 rounds of ``calls`` calls of ``fn``, in microseconds per call."""
    for _ in range(warmup):
        fn()
    rounds = []
    for _ in range(5):
        start = time.perf_counter()
        for _ in range(calls):
            fn()
        rounds.append((time.perf_counter() - start) / calls * 1e6)
    return statistics.median(rounds)
