"""Compiled elementwise chains (numba) on the numpy backend: training throughput with and
without them, measured in one run, and the first fit's overhead with a cold and a warm
kernel cache.

    python benchmarks/compiled_chains.py [--repeats 5] [--cpu-time]

Both models are traced once (one with ``backend.compiled_chains`` on, one off), then their
epochs alternate and the best of each counts. ``--cpu-time`` times process CPU time
(useful with ``OPENBLAS_NUM_THREADS=1`` on a machine other processes load). The first-fit
overhead is a fresh process's first ``fit`` (one epoch of 32 batches: the chains compile at
their 8th call) with chains on minus off, with
an empty ``LAMINA_CACHE_DIR`` (cold: numba compiles) and then again (warm: loaded).
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile
import time

import numpy as np

from common import cnn, mlp

import lamina as keras  # noqa: E402
from lamina.backend import get_backend  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))


def _data(kind):
    rng = np.random.default_rng(0)
    if kind == "mlp":
        return rng.standard_normal((128 * 32, 784)).astype("float32"), 128, mlp
    return rng.standard_normal((64 * 8, 32, 32, 3)).astype("float32"), 64, cnn


def _model(build, chains, x, y, batch):
    get_backend().compiled_chains = chains
    keras.utils.set_random_seed(0)
    model = build(keras)
    model.compile(optimizer=keras.optimizers.Adam(1e-3),
                  loss=keras.losses.SparseCategoricalCrossentropy(from_logits=True))
    model.fit(x[:2 * batch], y[:2 * batch], batch_size=batch, verbose=0)
    return model


def throughput(kind, repeats, clock):
    x, batch, build = _data(kind)
    y = np.random.default_rng(1).integers(0, 10, len(x))
    models = {chains: _model(build, chains, x, y, batch) for chains in (False, True)}
    best = {False: float("inf"), True: float("inf")}
    for _ in range(repeats):
        for chains, model in models.items():
            get_backend().compiled_chains = chains
            start = clock()
            model.fit(x, y, batch_size=batch, epochs=1, verbose=0)
            best[chains] = min(best[chains], clock() - start)
    return len(x) / best[False], len(x) / best[True]


_FIRST_FIT = """
import sys, time, json
sys.path.insert(0, {here!r})
import numpy as np
import lamina as keras
from lamina.backend import get_backend
from common import mlp
get_backend().compiled_chains = {chains}
rng = np.random.default_rng(0)
x = rng.standard_normal((4096, 784)).astype("float32"); y = rng.integers(0, 10, 4096)
model = mlp(keras)
model.compile(optimizer="adam", loss=keras.losses.SparseCategoricalCrossentropy(from_logits=True))
start = time.perf_counter()
model.fit(x, y, batch_size=128, verbose=0)
print(json.dumps(time.perf_counter() - start))
"""


def first_fit(chains, cache):
    env = dict(os.environ, LAMINA_CACHE_DIR=cache)
    done = subprocess.run([sys.executable, "-c", _FIRST_FIT.format(here=HERE, chains=chains)],
                          env=env, capture_output=True, text=True, check=True)
    return json.loads(done.stdout.strip().splitlines()[-1])


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--cpu-time", action="store_true")
    args = parser.parse_args()
    clock = time.process_time if args.cpu_time else time.perf_counter
    blas = {k: os.environ.get(k, "unset") for k in
            ("OPENBLAS_CORETYPE", "OPENBLAS_L2_SIZE", "OPENBLAS_NUM_THREADS")}
    print(f"{blas}, {'CPU' if args.cpu_time else 'wall'} time, best of {args.repeats}")
    for kind in ("mlp", "cnn"):
        off, on = throughput(kind, args.repeats, clock)
        print(f"{kind}: chains off {off:8.0f} samples/s   on {on:8.0f} samples/s   "
              f"{on / off:.2f}x")
    with tempfile.TemporaryDirectory() as cache:
        plain = min(first_fit(False, cache) for _ in range(2))
        cold = first_fit(True, cache)
        warm = min(first_fit(True, cache) for _ in range(2))
    print(f"first fit (MLP, 32 batches): chains off {plain:.2f} s, on with a cold cache "
          f"{cold:.2f} s (+{cold - plain:.2f}), warm {warm:.2f} s (+{warm - plain:.2f}; "
          f"target <= 1 s)")


if __name__ == "__main__":
    main()
