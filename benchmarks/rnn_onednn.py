"""LSTM and GRU training steps with the whole-sequence oneDNN ops on and off, in one run.

The workload of the issue (and of ``keras_workloads.py``'s ``lstm128_train`` /
``gru128_train``): Input (50 steps, 32 features), LSTM(128) or GRU(128) (last output),
Dense(10) logits, batch 32, Adam(1e-3), sparse categorical crossentropy from logits, graph
mode. "off" sets the numpy backend's ``onednn`` flag False before the model is traced, so
the layers run their step loop (one ``step_loop`` node) as without oneDNN; the process
keeps oneDNN's thread policy either way (OpenBLAS on one thread), as a default run does.
Each figure is the median ms per step of ``fit`` over ``--steps`` batches after a warm-up
``fit`` of 5 batches (trace and compile included there), over ``--rounds`` rounds
alternating on/off, after one untimed round (the first models of a process also pay for
numba compiling the optimizer's elementwise chains, which would count against "on").

    python benchmarks/rnn_onednn.py [--steps 20] [--rounds 3] [--eager]
"""
import argparse
import statistics
import time

import numpy as np

import common  # noqa: F401  (puts the repository on sys.path)

import lamina as keras  # noqa: E402
from lamina.backend import dnnl_rnn, get_backend  # noqa: E402

STEPS, FEATURES, BATCH, UNITS, CLASSES = 50, 32, 32, 128, 10


def make_model(kind: str, eager: bool):
    keras.utils.set_random_seed(0)
    model = keras.Sequential([keras.Input((STEPS, FEATURES)),
                              getattr(keras.layers, kind)(UNITS),
                              keras.layers.Dense(CLASSES)])
    model.compile(optimizer=keras.optimizers.Adam(1e-3),
                  loss=keras.losses.SparseCategoricalCrossentropy(from_logits=True),
                  run_eagerly=eager)
    return model


def step_ms(kind: str, onednn: bool, x, y, steps: int, eager: bool) -> float:
    backend = get_backend("numpy")
    backend.onednn = onednn
    try:
        model = make_model(kind, eager)
        model.fit(x[:5 * BATCH], y[:5 * BATCH], batch_size=BATCH, epochs=1, verbose=0)
        start = time.perf_counter()
        model.fit(x[:steps * BATCH], y[:steps * BATCH], batch_size=BATCH, epochs=1,
                  verbose=0)
        return (time.perf_counter() - start) / steps * 1e3
    finally:
        backend.onednn = True


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=20)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--eager", action="store_true", help="run_eagerly=True")
    args = parser.parse_args()
    rng = np.random.default_rng(0)
    n = max(args.steps, 5) * BATCH
    x = rng.standard_normal((n, STEPS, FEATURES)).astype("float32")
    y = rng.integers(0, CLASSES, n).astype("int64")
    print(f"oneDNN implementation (forward, backward): "
          f"{dnnl_rnn.implementation('lstm', (BATCH, STEPS, FEATURES), UNITS)}")
    for kind in ("LSTM", "GRU"):
        times = {True: [], False: []}
        for round_ in range(args.rounds + 1):
            for onednn in (True, False):
                ms = step_ms(kind, onednn, x, y, args.steps, args.eager)
                if round_:
                    times[onednn].append(ms)
        on, off = statistics.median(times[True]), statistics.median(times[False])
        print(f"{kind}({UNITS}) train step, {'eager' if args.eager else 'graph'} mode: "
              f"oneDNN on {on:7.2f} ms   off {off:7.2f} ms   speed-up {off / on:5.2f}x")


if __name__ == "__main__":
    main()
