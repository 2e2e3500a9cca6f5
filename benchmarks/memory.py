"""Peak memory of a training step, graph vs eager (tracemalloc: numpy's allocations).

    python benchmarks/memory.py

MLP 784-512-512-10, batch 128, Adam. Each mode: build, warm up, then the peak of new
allocations during 5 steps (train_on_batch), relative to the memory held before them, plus
(graph mode) the step's arena: the buffers its memory plan allocated once and keeps.
"""
import tracemalloc

import numpy as np

from common import mlp

import lamina as keras  # noqa: E402


def peak_bytes(x, y, eager: bool) -> int:
    keras.utils.set_random_seed(0)
    model = mlp(keras)
    model.compile(optimizer="adam",
                  loss=keras.losses.SparseCategoricalCrossentropy(from_logits=True),
                  run_eagerly=eager)
    for _ in range(2):
        model.train_on_batch(x, y)                 # warm-up / trace / plan
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
    x = rng.standard_normal((128, 784)).astype("float32")
    y = rng.integers(0, 10, 128)
    eager = peak_bytes(x, y, True)
    graph = peak_bytes(x, y, False)
    print(f"eager step peak  {eager / 2**20:7.2f} MiB")
    print(f"graph step peak  {graph / 2**20:7.2f} MiB   {graph / eager:.2f}x eager "
          f"(target <= 1.0x)")


if __name__ == "__main__":
    main()
