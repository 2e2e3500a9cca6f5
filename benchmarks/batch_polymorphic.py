"""Per-call cost of predict_on_batch when the batch size changes every call, relative to a
fixed batch size (issue 9 item 7: target <= 1.5x).

    python benchmarks/batch_polymorphic.py [--rounds N]

Model: MLP 784-512-512-10 (benchmarks/common.py) and a small CNN. For each batch size b in
1..64, the fixed cost is the mean time of predict_on_batch at b, called repeatedly; the
cycling cost is the mean time per call of calls that cycle b = 1, 2, ..., 64 (the first
cycle builds one memory plan per size and is reported apart). Ratio = cycling / fixed, both
averaged over the same sizes, so the amount of work per call is the same.
"""
import argparse
import time

import numpy as np

from common import mlp

import lamina as keras  # noqa: E402
from lamina import layers  # noqa: E402

SIZES = range(1, 65)


def cnn():
    return keras.Sequential([
        keras.Input((16, 16, 3)), layers.Conv2D(8, 3, padding="same"),
        layers.BatchNormalization(), layers.Activation("relu"), layers.Dropout(0.2),
        layers.MaxPooling2D(), layers.Flatten(), layers.Dense(10)])


def per_call(model, batches, repeats: int) -> float:
    start = time.perf_counter()
    for _ in range(repeats):
        for x in batches:
            model.predict_on_batch(x)
    return (time.perf_counter() - start) / (repeats * len(batches))


def measure(name, make, shape, rounds: int) -> None:
    keras.utils.set_random_seed(0)
    model = make()
    rng = np.random.default_rng(0)
    data = {b: rng.standard_normal((b, *shape)).astype("float32") for b in SIZES}
    start = time.perf_counter()
    per_call(model, [data[b] for b in SIZES], 1)       # first cycle: trace + 64 plans
    first = time.perf_counter() - start
    cycling = per_call(model, [data[b] for b in SIZES], rounds)
    fixed = sum(per_call(model, [data[b]], rounds) for b in SIZES) / len(SIZES)
    traces = model.predict_function.function.trace_count
    print(f"{name:4s}: fixed {fixed * 1e3:.3f} ms/call, cycling 1..64 {cycling * 1e3:.3f} "
          f"ms/call, ratio {cycling / fixed:.2f}x (target <= 1.5x); first cycle "
          f"{first:.2f} s; traces {traces}")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--rounds", type=int, default=5)
    rounds = parser.parse_args().rounds
    measure("mlp", lambda: mlp(keras), (784,), rounds)
    measure("cnn", cnn, (16, 16, 3), rounds)


if __name__ == "__main__":
    main()
