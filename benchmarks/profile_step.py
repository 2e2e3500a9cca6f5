"""Per-kernel profile of one compiled train step: where the time of a step goes.

    python benchmarks/profile_step.py [cnn|mlp|resnet|lstm|gru] [--steps 16]

``resnet`` is ResNet50(weights=None) at 224x224, batch 16, SGD; ``lstm`` / ``gru`` are
LSTM(128) / GRU(128) over 50 steps of 32 features, batch 32, then Dense(10), Adam: the
training steps of ``vs_peers.py --only resnet,rnn``.

Wraps every step of the graph's flat plan with a timer (about 0.3 µs each) and prints the
time per op kind, its share of the step, and the calls per step, slowest first.
"""
import argparse
import collections
import functools
import time

import numpy as np

from common import cnn, mlp

import lamina as keras  # noqa: E402
from lamina.backend import numba_chain  # noqa: E402
from lamina.graph import executor  # noqa: E402

TOTALS = collections.Counter()
CALLS = collections.Counter()


def _timed_step(step):
    def timed(backend, node, ins, outs, out):
        run, *rest = step(backend, node, ins, outs, out)
        name = type(node.op).__name__

        @functools.wraps(run)
        def wrapper(*arrays):
            start = time.perf_counter()
            result = run(*arrays)
            TOTALS[name] += time.perf_counter() - start
            CALLS[name] += 1
            return result
        return (wrapper, *rest)
    return timed


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("workload", nargs="?", default="cnn", choices=("cnn", "mlp", "resnet", "lstm", "gru"))
    parser.add_argument("--steps", type=int, default=16)
    args = parser.parse_args()
    executor._step = _timed_step(executor._step)
    rng = np.random.default_rng(0)
    keras.utils.set_random_seed(0)
    if args.workload == "resnet":
        batch, shape, classes = 16, (224, 224, 3), 1000
        model = keras.applications.ResNet50(weights=None)
        optimizer = keras.optimizers.SGD(learning_rate=0.01)
        loss = keras.losses.SparseCategoricalCrossentropy()
    elif args.workload in ("lstm", "gru"):
        batch, shape, classes = 32, (50, 32), 10
        recurrent = getattr(keras.layers, args.workload.upper())(128)
        model = keras.Sequential([keras.Input(shape), recurrent, keras.layers.Dense(classes)])
        optimizer = keras.optimizers.Adam(1e-3)
        loss = keras.losses.SparseCategoricalCrossentropy(from_logits=True)
    else:
        batch = 64 if args.workload == "cnn" else 128
        shape, classes = ((32, 32, 3) if args.workload == "cnn" else (784,)), 10
        model = cnn(keras) if args.workload == "cnn" else mlp(keras)
        optimizer = keras.optimizers.Adam(1e-3)
        loss = keras.losses.SparseCategoricalCrossentropy(from_logits=True)
    x = rng.standard_normal((batch * max(args.steps, 10), *shape)).astype("float32")
    y = rng.integers(0, classes, len(x))
    model.compile(optimizer=optimizer, loss=loss)
    warm = min(len(x), 10 * batch)     # trace, plan, and compile the numba chains (8th call)
    model.fit(x[:warm], y[:warm], batch_size=batch, epochs=1, verbose=0)
    numba_chain.wait_for_compiles(600)     # the chains compile on a worker thread
    TOTALS.clear()
    CALLS.clear()
    start = time.perf_counter()
    model.fit(x[:args.steps * batch], y[:args.steps * batch], batch_size=batch, epochs=1,
              verbose=0)
    step = (time.perf_counter() - start) / args.steps
    kernels = sum(TOTALS.values()) / args.steps
    print(f"{args.workload}: {step * 1e3:.2f} ms/step, kernels {kernels * 1e3:.2f} ms "
          f"({kernels / step:.0%}), outside the plan {(step - kernels) * 1e3:.2f} ms")
    for name, total in TOTALS.most_common():
        per = total / args.steps
        print(f"  {name:28s} {per * 1e3:8.3f} ms  {per / step:6.1%}  "
              f"{CALLS[name] / args.steps:5.1f} calls")


if __name__ == "__main__":
    main()
