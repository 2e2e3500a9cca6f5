"""Compile time of an LSTM model's training step against sequence length: the recurrent loop
is one scan node, so tracing and optimizing for 100 time steps should cost about what it
costs for 10 (target: within 1.5x).

Compile time = the first graph-mode call of ``train_on_batch`` (trace, autodiff, passes,
plan, one run) minus the best steady-state call (the run), best of ``--repeats`` fresh
models.

    python benchmarks/rnn_compile.py [--lengths 10 100] [--repeats 5]
"""
import argparse
import time

import numpy as np

import common  # noqa: F401  (puts the repository on sys.path)

import lamina as keras  # noqa: E402


def compile_and_step(length: int, batch: int, features: int, units: int):
    """(compile seconds, steady-state step seconds, optimized graph node count)."""
    keras.utils.set_random_seed(0)
    layers = keras.layers
    model = keras.Sequential([keras.Input((length, features)), layers.LSTM(units),
                              layers.Dense(4)])
    model.compile(optimizer="adam", loss="mse")
    rng = np.random.default_rng(0)
    x = rng.standard_normal((batch, length, features)).astype("float32")
    y = rng.standard_normal((batch, 4)).astype("float32")
    model.train_on_batch(x, y)             # eager: builds the variables and slots
    start = time.perf_counter()
    model.train_on_batch(x, y)             # traces, optimizes, plans, runs
    first = time.perf_counter() - start
    steps = []
    for _ in range(5):
        start = time.perf_counter()
        model.train_on_batch(x, y)
        steps.append(time.perf_counter() - start)
    step = min(steps)
    (graph, _), = model.train_function.function._plans.values()
    return max(first - step, 0.0), step, len(graph.nodes)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--lengths", type=int, nargs=2, default=(10, 100))
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--batch", type=int, default=32)
    parser.add_argument("--features", type=int, default=8)
    parser.add_argument("--units", type=int, default=32)
    args = parser.parse_args()
    results = {}
    for length in args.lengths:
        runs = [compile_and_step(length, args.batch, args.features, args.units)
                for _ in range(args.repeats)]
        results[length] = (min(r[0] for r in runs), min(r[1] for r in runs), runs[0][2])
        compile_s, step_s, nodes = results[length]
        print(f"length {length:4d}: compile {compile_s * 1e3:8.2f} ms   step "
              f"{step_s * 1e3:8.2f} ms   {nodes} graph nodes")
    short, long = args.lengths
    ratio = results[long][0] / results[short][0]
    print(f"compile time ratio (length {long} / length {short}): {ratio:.2f}x   "
          f"(target <= 1.5x); node counts {results[short][2]} and {results[long][2]}")


if __name__ == "__main__":
    main()
