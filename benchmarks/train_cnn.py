"""VGG-style CNN training throughput, graph vs eager, against the matmul roofline.

    python benchmarks/train_cnn.py [--samples 1024]

32x32x3 input, Conv-Conv-Pool blocks of 32 and 64 filters, Dense 256, Dropout, Dense 10,
batch 64, Adam (the peers' workload). Achieved GFLOP/s count 3x the forward FLOPs.
"""
import argparse
import time

import numpy as np

from common import CNN_FWD_FLOPS, cnn, roofline_gflops

import lamina as keras  # noqa: E402


def samples_per_second(x, y, eager: bool) -> float:
    keras.utils.set_random_seed(0)
    model = cnn(keras)
    model.compile(optimizer=keras.optimizers.Adam(1e-3),
                  loss=keras.losses.SparseCategoricalCrossentropy(from_logits=True),
                  run_eagerly=eager)
    model.fit(x[:128], y[:128], batch_size=64, epochs=1, verbose=0)     # warm-up / trace
    start = time.perf_counter()
    model.fit(x, y, batch_size=64, epochs=1, verbose=0)
    return len(x) / (time.perf_counter() - start)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--samples", type=int, default=1024)
    args = parser.parse_args()
    rng = np.random.default_rng(0)
    x = rng.standard_normal((args.samples, 32, 32, 3)).astype("float32")
    y = rng.integers(0, 10, args.samples)
    roof = roofline_gflops()
    eager = samples_per_second(x, y, True)
    graph = samples_per_second(x, y, False)
    gflops = graph * 3 * CNN_FWD_FLOPS / 1e9
    print(f"matmul roofline (1024^2 float32): {roof:7.1f} GFLOP/s")
    print(f"eager  {eager:8.1f} samples/s")
    print(f"graph  {graph:8.1f} samples/s   {graph / eager:.2f}x eager   "
          f"{gflops:.1f} GFLOP/s = {gflops / roof:.2f} of the roofline (target >= 1.0x, 0.35)")


if __name__ == "__main__":
    main()
