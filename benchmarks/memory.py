"""Peak memory of a training step, graph vs eager (tracemalloc: numpy's allocations).

    python benchmarks/memory.py

MLP 784-512-512-10 at batch 128 and the VGG-style CNN at batch 64, Adam. Each mode: build,
warm up (10 steps: the trace, the plan and the compiled elementwise chains), then the peak
of new allocations during 5 steps (train_on_batch), relative to the memory held before
them, plus (graph mode) the step's arena: the buffers its memory plan allocated once and
keeps.
"""
import tracemalloc

import numpy as np

from common import cnn, mlp

import lamina as keras
from lamina.backend import numba_chain  # noqa: E402


def peak_bytes(build, x, y, eager: bool) -> int:
    keras.utils.set_random_seed(0)
    model = build(keras)
    model.compile(optimizer="adam",
                  loss=keras.losses.SparseCategoricalCrossentropy(from_logits=True),
                  run_eagerly=eager)
    for _ in range(10):     # warm-up: trace, plan, and compile the numba chains
        model.train_on_batch(x, y)
    numba_chain.wait_for_compiles(300)     # (they compile on a worker thread)
    model.train_on_batch(x, y)
    tracemalloc.start()
    tracemalloc.reset_peak()
    base, _ = tracemalloc.get_traced_memory()
    for _ in range(5):
        model.train_on_batch(x, y)
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    arena = 0
    function = getattr(model.train_function, "function", None)
    if function is not None:
        arena = sum(plan.memory_report().arena_bytes for _, plan in function._plans.values())
    return peak - base + arena


def main():
    rng = np.random.default_rng(0)
    for name, build, shape, batch, target in (("MLP", mlp, (784,), 128, 1.0),
                                              ("CNN", cnn, (32, 32, 3), 64, 0.6)):
        x = rng.standard_normal((batch, *shape)).astype("float32")
        y = rng.integers(0, 10, batch)
        eager = peak_bytes(build, x, y, True)
        graph = peak_bytes(build, x, y, False)
        print(f"{name}: eager step peak {eager / 2**20:7.2f} MiB   graph {graph / 2**20:7.2f} "
              f"MiB   {graph / eager:.2f}x eager (target <= {target}x)")


if __name__ == "__main__":
    main()
