"""A training job for tests/saving/test_exact_resume.py, run in subprocesses:

    python resume_script.py CONFIG.json

It trains a small classifier and appends one record per epoch (loss, val_loss, learning
rate, EarlyStopping's wait) to ``records``. With ``kill_at = [epoch, batch]`` it SIGKILLs
itself at the end of that batch (no cleanup, no exception: a real crash). ``resume`` picks
how the job survives: ``"backup"`` (BackupAndRestore in ``backup_dir``, shuffle and Dropout
on) or ``"load_model"`` (a ``.keras`` checkpoint each epoch; a job that finds one loads it
and goes on with ``fit(initial_epoch=...)``; shuffle and Dropout off, since a ``.keras``
file carries weights and optimizer state, not random state).
"""
import json
import os
import signal
import sys

import numpy as np

import lamina
from lamina import callbacks, layers

OPTIMIZERS = {"adam": lambda: lamina.optimizers.Adam(0.02),
              "sgd_momentum": lambda: lamina.optimizers.SGD(0.02, momentum=0.9)}


def data():
    rng = np.random.default_rng(5)
    x = rng.normal(size=(120, 8)).astype("float32")
    y = ((x[:, 0] + 0.5 * x[:, 1] - x[:, 2] + 0.7 * rng.normal(size=120)) > 0).astype("int32")
    return (x[:96], y[:96]), (x[96:], y[96:])


def read_json(path):
    with open(path) as f:
        return json.load(f)


def build(config):
    lamina.utils.set_random_seed(config["seed"])
    dropout = [layers.Dropout(0.3)] if config["resume"] == "backup" else []
    model = lamina.Sequential([lamina.Input((8,)), layers.Dense(16, activation="relu"),
                               *dropout, layers.Dense(2, activation="softmax")])
    model.compile(optimizer=OPTIMIZERS[config["optimizer"]](),
                  loss="sparse_categorical_crossentropy")
    return model


class Record(callbacks.Callback):
    """Appends each epoch's values to the records file (a crash loses nothing written)."""

    def __init__(self, path, early_stopping=None):
        super().__init__()
        self.path, self.early_stopping = path, early_stopping

    def on_epoch_end(self, epoch, logs=None):
        records = read_json(self.path) if os.path.exists(self.path) else []
        records.append({"epoch": epoch, "loss": logs["loss"], "val_loss": logs["val_loss"],
                        "learning_rate": float(self.model.optimizer.learning_rate),
                        "wait": getattr(self.early_stopping, "wait", None)})
        with open(self.path, "w") as f:
            json.dump(records, f)


class KillAt(callbacks.Callback):
    def __init__(self, epoch, batch):
        super().__init__()
        self.epoch, self.batch, self.current = epoch, batch, None

    def on_epoch_begin(self, epoch, logs=None):
        self.current = epoch

    def on_train_batch_end(self, batch, logs=None):
        if (self.current, batch) == (self.epoch, self.batch):
            os.kill(os.getpid(), signal.SIGKILL)


def main(config):
    (x, y), validation = data()
    model = build(config)
    stop = callbacks.EarlyStopping(monitor="val_loss", patience=5, min_delta=0.12)
    # BackupAndRestore goes first, before the callbacks whose epoch-end updates (the
    # halved learning rate, EarlyStopping's count) its backup must hold anyway.
    chain = [stop, callbacks.ReduceLROnPlateau(monitor="val_loss", factor=0.5, patience=1,
                                               min_delta=0.12)]
    initial_epoch = 0
    if config["resume"] == "backup":
        chain.insert(0, callbacks.BackupAndRestore(config["backup_dir"],
                                                   save_freq=config["save_freq"]))
    else:
        checkpoint = config["checkpoint"]
        if os.path.exists(checkpoint):
            model = lamina.models.load_model(checkpoint)
            initial_epoch = len(read_json(config["records"]))    # epochs finished
        chain = [callbacks.ModelCheckpoint(checkpoint)]
        stop = None
    chain.append(Record(config["records"], stop))
    if config.get("kill_at"):
        chain.append(KillAt(*config["kill_at"]))
    model.fit(x, y, batch_size=16, epochs=config["epochs"], validation_data=validation,
              shuffle=config["resume"] == "backup", initial_epoch=initial_epoch,
              callbacks=chain, verbose=0)


if __name__ == "__main__":
    main(read_json(sys.argv[1]))
