"""Under mpirun: faults.

    faults.py OUT kill       process 1 kills itself (SIGKILL) in epoch 3 of a fit that
                             checkpoints every epoch from process 0; writes OUT/killed_at
    faults.py OUT raise      process 1 raises in epoch 2 (an uncaught exception)
    faults.py OUT stray      process 1 alone starts an extra collective: the job ends after
                             LAMINA_COLLECTIVE_TIMEOUT seconds
    faults.py OUT mismatch   process 1 builds Dense(17) where process 0 builds Dense(16),
                             then (after that error) compiles with another loss; each
                             process writes the errors' messages to OUT/mismatch_<rank>.json
"""
import json
import os
import signal
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))

import numpy as np  # noqa: E402

import lamina as keras  # noqa: E402
from lamina.distribution.world import rank  # noqa: E402


def model(units=16):
    keras.utils.set_random_seed(1)
    return keras.Sequential([keras.Input((8,)), keras.layers.Dense(units, activation="relu"),
                             keras.layers.Dense(3)])


class KillAt(keras.callbacks.Callback):
    def __init__(self, out, epoch):
        super().__init__()
        self.out, self.epoch = out, epoch

    def on_epoch_begin(self, epoch, logs=None):
        if epoch == self.epoch and rank() == 1:
            with open(os.path.join(self.out, "killed_at"), "w") as f:
                f.write(repr(time.time()))
            os.kill(os.getpid(), signal.SIGKILL)


def kill(out):
    x = np.random.default_rng(0).normal(size=(512, 8))
    y = np.arange(512) % 3
    m = model()
    m.compile("adam", keras.losses.SparseCategoricalCrossentropy(from_logits=True))
    checkpoint = keras.callbacks.ModelCheckpoint(os.path.join(out, "last.weights.h5"),
                                                 save_weights_only=True)
    m.fit(x, y, batch_size=64, epochs=50, verbose=0, callbacks=[checkpoint, KillAt(out, 3)])


class RaiseAt(KillAt):
    def on_epoch_begin(self, epoch, logs=None):
        if epoch == self.epoch and rank() == 1:
            with open(os.path.join(self.out, "killed_at"), "w") as f:
                f.write(repr(time.time()))
            raise RuntimeError("a failure on process 1")


def raise_error(out):
    x = np.random.default_rng(0).normal(size=(512, 8))
    m = model()
    m.compile("sgd", "mse")
    m.fit(x, np.zeros((512, 3)), batch_size=64, epochs=50, verbose=0,
          callbacks=[RaiseAt(out, 2)])


def stray(out):
    with open(os.path.join(out, "killed_at"), "w") as f:
        f.write(repr(time.time()))
    from lamina.distribution.world import world
    if rank() == 1:
        world().allreduce_host([np.ones(3)])
    time.sleep(30)


def mismatch(out):
    x = np.random.default_rng(0).normal(size=(64, 8))
    y = np.arange(64) % 3
    errors = []
    m = model(17 if rank() == 1 else 16)
    m.compile("adam", keras.losses.SparseCategoricalCrossentropy(from_logits=True))
    try:
        m.fit(x, y, batch_size=32, epochs=1, verbose=0)
    except ValueError as error:
        errors.append(str(error))
    m = model()
    m.compile("adam", "mse" if rank() == 1 else "mae")
    try:
        m.fit(x, np.zeros((64, 3)), batch_size=32, epochs=1, verbose=0)
    except ValueError as error:
        errors.append(str(error))
    m = model()
    m.compile("sgd", "mse")
    try:
        m.fit(x[:33], np.zeros((33, 3)), batch_size=32, epochs=1, verbose=0)
    except ValueError as error:       # the last batch has 1 row for 2 processes
        errors.append(str(error))
    try:
        keras.distribution.initialize(num_processes=3)
    except ValueError as error:
        errors.append(str(error))
    with open(os.path.join(out, f"mismatch_{rank()}.json"), "w") as f:
        json.dump(errors, f)


if __name__ == "__main__":
    keras.distribution.initialize()
    keras.distribution.set_distribution(keras.distribution.DataParallel())
    modes = {"kill": kill, "raise": raise_error, "stray": stray, "mismatch": mismatch}
    modes[sys.argv[2]](sys.argv[1])
