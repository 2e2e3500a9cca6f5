"""MLP training throughput, graph vs eager, against the matmul roofline.

    python benchmarks/train_mlp.py [--samples 8192] [--epochs 2]

784-512-512-10, batch 128, Adam, sparse crossentropy from logits (the peers' workload).
Prints samples/s in both modes, the speed-up, and the graph mode's achieved GFLOP/s
(3x the forward FLOPs per sample) as a fraction of the roofline measured in this run.
"""
import argparse
import time

import numpy as np

from common import MLP_FWD_FLOPS, mlp, roofline_gflops

import lamina as keras  # noqa: E402


def samples_per_second(x, y, eager: bool, epochs: int) -> float:
    keras.utils.set_random_seed(0)
    model = mlp(keras)
    model.compile(optimizer=keras.optimizers.Adam(1e-3),
                  loss=keras.losses.SparseCategoricalCrossentropy(from_logits=True),
                  run_eagerly=eager)
    model.fit(x, y, batch_size=128, epochs=1, verbose=0)          # warm-up / trace
    best = float("inf")
    for _ in range(epochs):
        start = time.perf_counter()
        model.fit(x, y, batch_size=128, epochs=1, verbose=0)
        best = min(best, time.perf_counter() - start)
    return len(x) / best


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--samples", type=int, default=8192)
    parser.add_argument("--epochs", type=int, default=2)
    args = parser.parse_args()
    rng = np.random.default_rng(0)
    x = rng.standard_normal((args.samples, 784)).astype("float32")
    y = rng.integers(0, 10, args.samples)
    roof = roofline_gflops()
    eager = samples_per_second(x, y, True, args.epochs)
    graph = samples_per_second(x, y, False, args.epochs)
    gflops = graph * 3 * MLP_FWD_FLOPS / 1e9
    print(f"matmul roofline (1024^2 float32): {roof:7.1f} GFLOP/s")
    print(f"eager  {eager:9.0f} samples/s")
    print(f"graph  {graph:9.0f} samples/s   {graph / eager:.2f}x eager   "
          f"{gflops:.1f} GFLOP/s = {gflops / roof:.2f} of the roofline (target >= 1.2x, 0.55)")


if __name__ == "__main__":
    main()
