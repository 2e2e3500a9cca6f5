"""Training runs that must give the same numbers on one process and under DataParallel.

Each scenario builds its model from fixed seeds, trains, and returns a dict of named
results (host arrays and floats). ``worker.py`` runs them under ``mpirun``; the tests run
them in-process (one process, no distribution) as the reference.
"""
from __future__ import annotations

import numpy as np

import lamina as keras


def data(n=1001, features=8, classes=3, seed=0):
    rng = np.random.default_rng(seed)
    x = rng.normal(size=(n, features))
    y = (x[:, 0] + 0.5 * x[:, 1] > 0).astype("int64") + (x[:, 2] > 1).astype("int64")
    return x, np.minimum(y, classes - 1)


def _dense_model(seed, dropout=0.0, batchnorm=False):
    keras.utils.set_random_seed(seed)
    layers = [keras.Input((8,)),
              keras.layers.Dense(16, activation="relu",
                                 kernel_regularizer=keras.regularizers.L2(1e-3))]
    if batchnorm:
        layers.append(keras.layers.BatchNormalization(synchronized=True))
    if dropout:
        layers.append(keras.layers.Dropout(dropout))
    layers.append(keras.layers.Dense(3, activation="softmax"))
    return keras.Sequential(layers)


def _results(model, history, x, y) -> dict:
    out = {f"weight_{i}": w for i, w in enumerate(model.get_weights())}
    for key, values in history.history.items():
        out[f"history_{key}"] = np.asarray(values, dtype="float64")
    out["evaluate"] = np.asarray(model.evaluate(x, y, batch_size=64, verbose=0),
                                 dtype="float64")
    out["predict"] = model.predict(x[:101], batch_size=16, verbose=0)
    out["train_rows_seen"] = np.asarray(getattr(model.train_function, "rows_seen",
                                                2 * len(x)))
    return out


def fit_dense(run_eagerly=False, seed=1, dropout=0.0, batchnorm=False, metrics=None,
              optimizer="adam"):
    x, y = data()
    model = _dense_model(seed, dropout=dropout, batchnorm=batchnorm)
    model.compile(optimizer=optimizer, loss="sparse_categorical_crossentropy",
                  metrics=metrics or ["accuracy"], run_eagerly=run_eagerly)
    keras.utils.set_random_seed(7)          # the shuffling state
    history = model.fit(x, y, batch_size=64, epochs=2, shuffle=True, verbose=0,
                        validation_data=(x[:203], y[:203]))
    return _results(model, history, x, y)


def binary_data(n=1001, seed=3):
    rng = np.random.default_rng(seed)
    x = rng.normal(size=(n, 8))
    # unbalanced: positives cluster at the end, so the two shards differ a lot
    y = (np.arange(n) > 0.8 * n).astype("float64")
    x[:, 0] += 2.0 * y
    return x, y


def fit_binary_metrics(run_eagerly=False, seed=2):
    x, y = binary_data()
    keras.utils.set_random_seed(seed)
    model = keras.Sequential([keras.Input((8,)), keras.layers.Dense(4, activation="tanh"),
                              keras.layers.Dense(1, activation="sigmoid")])
    model.compile(optimizer="sgd", loss="binary_crossentropy",
                  metrics=[keras.metrics.AUC(name="auc"),
                           keras.metrics.Precision(name="precision"),
                           keras.metrics.Recall(name="recall"), "accuracy"],
                  run_eagerly=run_eagerly)
    history = model.fit(x, y, batch_size=64, epochs=2, shuffle=False, verbose=0)
    out = {f"history_{k}": np.asarray(v, dtype="float64") for k, v in history.history.items()}
    out["evaluate"] = np.asarray(model.evaluate(x, y, batch_size=128, verbose=0),
                                 dtype="float64")
    return out


def _rank() -> int:
    from lamina.distribution.world import rank
    return rank()


class _Interrupt(Exception):
    pass


class _InterruptAt(keras.callbacks.Callback):
    def __init__(self, epoch):
        super().__init__()
        self.epoch = epoch

    def on_epoch_begin(self, epoch, logs=None):
        if epoch == self.epoch:
            raise _Interrupt(f"interrupted at epoch {epoch}")


def fit_callbacks(workdir):
    """Checkpoints, CSV and TensorBoard logs into ``workdir/rank<r>`` (process 0 alone may
    write); a BackupAndRestore run interrupted at epoch 2 and resumed (its backup directory
    shared); EarlyStopping and ReduceLROnPlateau deciding on the logged numbers. Process 1
    starts from other initial weights (seed), which fit replaces by process 0's."""
    import os
    x, y = data()
    own = os.path.join(workdir, f"rank{_rank()}")
    os.makedirs(own, exist_ok=True)
    model = _dense_model(seed=1 + 100 * _rank())
    model.compile(optimizer=keras.optimizers.SGD(0.5, momentum=0.9),
                  loss="sparse_categorical_crossentropy", metrics=["accuracy"])
    keras.utils.set_random_seed(7)
    backup = keras.callbacks.BackupAndRestore(os.path.join(workdir, "backup"))
    writers = [keras.callbacks.ModelCheckpoint(os.path.join(own, "ckpt.weights.h5"),
                                               save_weights_only=True),
               keras.callbacks.CSVLogger(os.path.join(own, "log.csv")),
               keras.callbacks.TensorBoard(os.path.join(own, "tb"), write_graph=False)]
    stoppers = [keras.callbacks.ReduceLROnPlateau(monitor="loss", patience=0, factor=0.5,
                                                  min_delta=0.05),
                keras.callbacks.EarlyStopping(monitor="loss", patience=1, min_delta=0.02)]
    fit = dict(batch_size=64, epochs=8, verbose=0, validation_data=(x[:203], y[:203]))
    try:
        model.fit(x, y, callbacks=[backup, *writers, *stoppers, _InterruptAt(2)], **fit)
    except _Interrupt:
        pass
    if _rank():      # a differing optimizer state on process 1: fit takes process 0's
        for variable in model.optimizer.variables[1:]:
            variable.assign(variable.numpy() + 1.0)
    history = model.fit(x, y, callbacks=[backup, *writers, *stoppers], **fit)
    out = {f"weight_{i}": w for i, w in enumerate(model.get_weights())}
    for key, values in history.history.items():
        out[f"history_{key}"] = np.asarray(values, dtype="float64")
    out["epochs_run"] = np.asarray(len(history.history["loss"]))
    out["files"] = np.asarray(sorted(os.listdir(own)))
    return out


def fit_twice_with_differing_optimizer_state():
    """Adam's state after one fit is made to differ on process 1; the second fit starts
    from process 0's (broadcast), as one process would."""
    x, y = data()
    model = _dense_model(seed=1)
    model.compile(optimizer="adam", loss="sparse_categorical_crossentropy")
    keras.utils.set_random_seed(7)
    model.fit(x, y, batch_size=64, epochs=1, verbose=0)
    if _rank():
        for variable in model.optimizer.variables[2:]:      # the slots, not the lr
            variable.assign(variable.numpy() * 3.0 + 1.0)
    model.fit(x, y, batch_size=64, epochs=1, verbose=0)
    return {f"weight_{i}": w for i, w in enumerate(model.get_weights())}


def _own_rows(n, batch, rank, size):
    """The rows process ``rank`` holds when it feeds its own share of every global batch."""
    from lamina.backend.collectives import shard_bounds
    rows = []
    for start in range(0, n, batch):
        lo, hi = shard_bounds(min(batch, n - start), rank, size)
        rows.extend(range(start + lo, start + hi))
    return np.asarray(rows)


def fit_own_shards():
    """DataParallel(auto_shard_dataset=False): each process feeds its own rows (its share
    of every global batch of 64, in batches of 32); the union is the one-process run, with
    Dropout drawn by the global positions."""
    from lamina.distribution.world import size
    x, y = data()
    model = _dense_model(seed=1, dropout=0.2)
    model.compile(optimizer="adam", loss="sparse_categorical_crossentropy",
                  metrics=["accuracy"])
    if size() == 1:
        history = model.fit(x, y, batch_size=64, epochs=2, shuffle=False, verbose=0)
        evaluate = model.evaluate(x, y, batch_size=64, verbose=0)
    else:
        own = _own_rows(len(x), 64, _rank(), size())
        with keras.distribution.DataParallel(auto_shard_dataset=False).scope():
            history = model.fit(x[own], y[own], batch_size=32, epochs=2, shuffle=False,
                                verbose=0)
            evaluate = model.evaluate(x[own], y[own], batch_size=32, verbose=0)
    out = {f"weight_{i}": w for i, w in enumerate(model.get_weights())}
    out.update({f"history_{k}": np.asarray(v) for k, v in history.history.items()})
    out["evaluate"] = np.asarray(evaluate, dtype="float64")
    return out


def tiny_batches():
    """evaluate and predict in batches of 1 row: process 1 has no rows (it skips the step
    and contributes nothing); the results are one process's."""
    x, y = data(n=7)
    model = _dense_model(seed=1)
    model.compile(optimizer="sgd", loss="sparse_categorical_crossentropy",
                  metrics=["accuracy"])
    return {"evaluate": np.asarray(model.evaluate(x, y, batch_size=1, verbose=0)),
            "predict": model.predict(x, batch_size=1, verbose=0),
            "predict_3": model.predict(x, batch_size=3, verbose=0)}


def fit_verbose():
    """A fit with a progress bar: process 0 alone prints it."""
    x, y = data(n=128)
    model = _dense_model(seed=1)
    model.compile(optimizer="sgd", loss="sparse_categorical_crossentropy")
    model.fit(x, y, batch_size=64, epochs=1, verbose=1)
    return {}


SCENARIOS = {
    "graph": lambda: fit_dense(run_eagerly=False),
    "eager": lambda: fit_dense(run_eagerly=True),
    "metrics_graph": lambda: fit_binary_metrics(run_eagerly=False),
    "metrics_eager": lambda: fit_binary_metrics(run_eagerly=True),
    "progbar": fit_verbose,
    "own_shards": fit_own_shards,
    "tiny_batches": tiny_batches,
    "optimizer_state": fit_twice_with_differing_optimizer_state,
    "dropout_graph": lambda: fit_dense(run_eagerly=False, dropout=0.3),
    "dropout_eager": lambda: fit_dense(run_eagerly=True, dropout=0.3),
    "syncbn_graph": lambda: fit_dense(run_eagerly=False, batchnorm=True),
    "syncbn_eager": lambda: fit_dense(run_eagerly=True, batchnorm=True),
}


def run(name: str, workdir: str | None = None) -> dict:
    previous = keras.config.floatx()
    keras.config.set_floatx("float64")
    try:
        if name == "callbacks":
            return fit_callbacks(workdir)
        return SCENARIOS[name]()
    finally:
        keras.config.set_floatx(previous)
