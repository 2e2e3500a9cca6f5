"""Under mpirun: the allreduce calls of one train step with small buckets, and the place
of the starts in the traced step (written to OUT/buckets_<rank>.json)."""
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))

import numpy as np  # noqa: E402

import lamina as keras  # noqa: E402
from lamina.backend import collectives  # noqa: E402
from lamina.distribution.world import rank  # noqa: E402


def calls_of_one_step(model, x, y):
    collectives.CALLS.clear()
    collectives.RECORD = True
    model.train_on_batch(x, y)
    collectives.RECORD = False
    return [list(c) for c in collectives.CALLS if c[0] == "iallreduce"]


def main(out_dir):
    keras.distribution.initialize()
    dist = keras.distribution.DataParallel()
    dist.bucket_bytes = 400                # float64: [b1 + k1] = 408 bytes, [b0 + k0]
    keras.distribution.set_distribution(dist)
    keras.config.set_floatx("float64")
    x = np.random.default_rng(0).normal(size=(64, 8))
    y = np.arange(64) % 3
    result = {}
    for mode, eagerly in (("graph", False), ("eager", True)):
        keras.utils.set_random_seed(1)
        model = keras.Sequential([keras.Input((8,)), keras.layers.Dense(16, activation="relu"),
                                  keras.layers.Dense(3)])
        model.compile("sgd", keras.losses.SparseCategoricalCrossentropy(from_logits=True),
                      run_eagerly=eagerly)
        model.train_on_batch(x, y)         # builds the optimizer (and, in graph mode, traces)
        result[mode] = calls_of_one_step(model, x, y)
        if not eagerly:
            graph_function = model.train_function.function.function
            (entry,) = list(graph_function._plans.values())
            result["schedule"] = [n.op.name for n in entry.graph.nodes]
    with open(os.path.join(out_dir, f"buckets_{rank()}.json"), "w") as f:
        json.dump(result, f)


if __name__ == "__main__":
    main(sys.argv[1])
