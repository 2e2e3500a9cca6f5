"""Under ``mpirun -n 1`` with the cupy backend: a DataParallel fit whose gradients go
through NCCL, against the same fit without a distribution (OUT/nccl.json)."""
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))

import numpy as np  # noqa: E402

import lamina as keras  # noqa: E402
from lamina.backend import collectives  # noqa: E402


def fit():
    keras.utils.set_random_seed(1)
    model = keras.Sequential([keras.Input((8,)), keras.layers.Dense(16, activation="relu"),
                              keras.layers.BatchNormalization(synchronized=True),
                              keras.layers.Dense(3)])
    model.compile("adam", keras.losses.SparseCategoricalCrossentropy(from_logits=True))
    x = np.random.default_rng(0).normal(size=(200, 8)).astype("float32")
    model.fit(x, np.arange(200) % 3, batch_size=64, epochs=2, verbose=0)
    return [w.tolist() for w in model.get_weights()]


def main(out):
    keras.backend.set_backend("cupy")
    keras.distribution.initialize()
    plain = fit()
    keras.distribution.set_distribution(keras.distribution.DataParallel())
    collectives.RECORD = True
    distributed = fit()
    collectives.RECORD = False
    result = {"plain": plain, "distributed": distributed,
              "kinds": sorted({kind for kind, _ in collectives.CALLS})}
    import cupy
    from lamina.distribution.world import world
    try:
        world().iallreduce_(cupy.zeros(3, dtype=bool))
    except TypeError as error:
        result["dtype_error"] = str(error)
    with open(os.path.join(out, "nccl.json"), "w") as f:
        json.dump(result, f)


if __name__ == "__main__":
    main(sys.argv[1])
