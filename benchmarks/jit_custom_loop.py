"""A hand-written training loop (keras-io's "writing a training loop from scratch"):
``lamina.jit`` of the step against the same step run eagerly (issue 9 item 2: new numpy
batches of one shape are inputs, so the jitted step traces once and runs its plan).

    python benchmarks/jit_custom_loop.py [--epochs N]

Model: MLP 784-512-512-10 (benchmarks/common.py), Adam, batch 128 numpy arrays; each
epoch feeds 8 fresh host batches. Prints seconds per step both ways, the speedup of the
jitted loop and its trace count (1 expected).
"""
import argparse
import time

import numpy as np

from common import mlp

import lamina as keras  # noqa: E402
from lamina import ops  # noqa: E402


def make_step(model, optimizer, loss_fn):
    def step(x, y):
        with keras.GradientTape() as tape:
            loss = loss_fn(y, model(x, training=True))
        grads = tape.gradient(loss, model.trainable_weights)
        optimizer.apply_gradients(zip(grads, model.trainable_weights))
        return loss
    return step


def run(jitted: bool, batches, epochs: int):
    keras.utils.set_random_seed(0)
    model = mlp(keras)
    optimizer = keras.optimizers.Adam(1e-3)
    loss_fn = keras.losses.SparseCategoricalCrossentropy(from_logits=True)
    step = make_step(model, optimizer, loss_fn)
    x0, y0 = batches[0]
    model(x0)
    optimizer.build(model.trainable_weights)
    if jitted:
        step = keras.jit(step)
    step(x0, y0)                                    # warm up (traces once when jitted)
    start = time.perf_counter()
    for _ in range(epochs):
        for x, y in batches:
            loss = step(x, y)
    seconds = (time.perf_counter() - start) / (epochs * len(batches))
    return seconds, float(ops.convert_to_numpy(loss)), getattr(step, "trace_count", None)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--epochs", type=int, default=5)
    args = parser.parse_args()
    rng = np.random.default_rng(0)
    batches = [(rng.standard_normal((128, 784)).astype("float32"),
                rng.integers(0, 10, 128)) for _ in range(8)]
    eager, eager_loss, _ = run(False, batches, args.epochs)
    jitted, jit_loss, traces = run(True, batches, args.epochs)
    print(f"custom loop, MLP 784-512-512-10, batch 128, Adam: eager {eager * 1e3:.2f} ms/step, "
          f"lamina.jit {jitted * 1e3:.2f} ms/step -> {eager / jitted:.2f}x "
          f"({traces} trace(s); last loss eager {eager_loss:.5f}, jit {jit_loss:.5f})")


if __name__ == "__main__":
    main()
