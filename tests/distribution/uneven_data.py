"""Under mpirun -n 2: processes holding different numbers of rows (issue 23 item 1).

    uneven_data.py OUT shard     auto_shard_dataset=True, 4096 rows on process 0 and 4000
                                 on process 1: fit, evaluate and predict each raise
                                 DistributedDataError on both processes (OUT/shard_<rank>.json)
    uneven_data.py OUT own       auto_shard_dataset=False, the same rows: fit(batch_size=64,
                                 epochs=4) ends on both with 63 steps per epoch; evaluate and
                                 predict cover every row (OUT/own_<rank>.npz)
    uneven_data.py OUT late      process 1 sleeps 30 s before evaluate: process 0's wait for
                                 the step count raises WaitTimeoutError after
                                 LAMINA_COLLECTIVE_TIMEOUT s (OUT/late_0.json), and the job ends
"""
import json
import os
import sys
import time
import warnings

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))

import numpy as np  # noqa: E402

import lamina as keras  # noqa: E402
from lamina.distribution.world import rank  # noqa: E402
from lamina.errors import DistributedDataError, WaitTimeoutError  # noqa: E402

ROWS = (4096, 4000)


def data(process):
    x = np.random.default_rng(process).normal(size=(ROWS[process], 8)).astype("float32")
    return x, x[:, :2] * 0.5 - 1.0


def model():
    keras.utils.set_random_seed(1)
    m = keras.Sequential([keras.Input((8,)), keras.layers.Dense(2)])
    m.compile("sgd", "mse", metrics=["mae"])
    return m


def shard(out, auto_shard):
    x, y = data(rank())
    m = model()
    errors = []
    for call in (lambda: m.fit(x, y, batch_size=64, epochs=4, verbose=0),
                 lambda: m.evaluate(x, y, batch_size=64, verbose=0),
                 lambda: m.predict(x, batch_size=64, verbose=0)):
        try:
            call()
            errors.append(None)
        except DistributedDataError as error:
            errors.append(str(error))
    with open(os.path.join(out, f"shard_{rank()}.json"), "w") as f:
        json.dump(errors, f)


def own(out):
    x, y = data(rank())
    m = model()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        m.fit(x, y, batch_size=64, epochs=4, verbose=0)
    messages = [str(w.message) for w in caught if "DataParallel" in str(w.message)]
    logs = m.evaluate(x, y, batch_size=64, verbose=0, return_dict=True)
    predictions = m.predict(x, batch_size=64, verbose=0)
    # One process's numbers on every row, for comparison.
    keras.distribution.set_distribution(None)
    both = [data(p) for p in (0, 1)]
    x_all = np.concatenate([b[0] for b in both])
    y_all = np.concatenate([b[1] for b in both])
    reference = m.evaluate(x_all, y_all, batch_size=64, verbose=0, return_dict=True)
    np.savez(os.path.join(out, f"own_{rank()}.npz"), warnings=np.array(messages),
             iterations=int(m.optimizer.iterations.numpy()),
             kernel=m.get_weights()[0], loss=logs["loss"], mae=logs["mae"],
             reference_loss=reference["loss"], reference_mae=reference["mae"],
             predictions=predictions, expected=m.predict(x_all, batch_size=64, verbose=0))


def late(out):
    x, y = data(0)
    m = model()
    if rank() == 1:
        time.sleep(30)
        return
    started = time.time()
    try:
        m.evaluate(x, y, batch_size=64, verbose=0)
        message = None
    except WaitTimeoutError as error:
        message = str(error)
    with open(os.path.join(out, "late_0.json"), "w") as f:
        json.dump({"message": message, "seconds": time.time() - started}, f)


if __name__ == "__main__":
    keras.distribution.initialize()
    mode = sys.argv[2]
    keras.distribution.set_distribution(
        keras.distribution.DataParallel(auto_shard_dataset=mode != "own"))
    {"shard": lambda out: shard(out, True), "own": own, "late": late}[mode](sys.argv[1])
