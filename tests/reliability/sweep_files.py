"""The model the sweep damages, saved once in every format Lamina writes, and a loader per
format that turns a file back into predictions (and the weights it set)."""
import os

import numpy as np

import lamina
from lamina import layers
from lamina.callbacks import BackupAndRestore
from lamina.saving import training_state

X = np.linspace(-1.0, 1.0, 2 * 6 * 4, dtype="float32").reshape(2, 6, 4)


def build():
    """Conv1D, BatchNormalization (moving statistics), LSTM and Dense: several kinds of
    weights, trained one epoch so the optimizer has slots and BN's statistics moved."""
    lamina.utils.set_random_seed(7)
    model = lamina.Sequential([
        lamina.Input((6, 4)), layers.Conv1D(4, 3), layers.BatchNormalization(),
        layers.LSTM(3), layers.Dense(2)])
    model.compile(optimizer="adam", loss="mse")
    return model


def write_all(folder) -> dict:
    """``{format: path}`` of the model saved in each format."""
    model = build()
    rng = np.random.default_rng(0)
    x, y = rng.normal(size=(8, 6, 4)).astype("float32"), rng.normal(size=(8, 2)).astype(
        "float32")
    backup = os.path.join(folder, "backup")
    model.fit(x, y, epochs=1, batch_size=4, verbose=0,
              callbacks=[BackupAndRestore(backup, delete_checkpoint=False)])
    paths = {"keras": os.path.join(folder, "model.keras"),
             "weights": os.path.join(folder, "model.weights.h5"),
             "legacy": os.path.join(folder, "model.h5"),
             "exported": os.path.join(folder, "model.graph.h5"),
             "backup": os.path.join(backup, "latest.weights.h5")}
    model.save(paths["keras"])
    model.save_weights(paths["weights"])
    model.save(paths["legacy"])
    model.export(paths["exported"], x=X)
    return paths


def _snapshot(model) -> list:
    variables = list(model.weights)
    optimizer = getattr(model, "optimizer", None)
    if optimizer is not None:
        variables += list(optimizer.variables)
    return [np.array(v.numpy()) for v in variables]


def _scrambled_target():
    """A model of the same architecture whose weights differ from the saved ones, so a
    load that silently assigns nothing cannot pass for an identical model."""
    model = build()
    model(X)
    model.optimizer.build(model.trainable_variables)
    for v in list(model.weights) + list(model.optimizer.variables):
        v.assign(np.full(v.shape, 0.25, dtype=str(v.dtype)))
    return model


def load_keras(path):
    model = lamina.saving.load_model(path)
    return np.asarray(model.predict(X, verbose=0)), _snapshot(model)


def load_legacy(path):
    model = lamina.saving.load_model(path)
    return np.asarray(model.predict(X, verbose=0)), _snapshot(model)


def load_weights(path):
    model = _scrambled_target()
    model.load_weights(path)
    return np.asarray(model.predict(X, verbose=0)), _snapshot(model)


def load_backup(path):
    model = _scrambled_target()
    state = training_state.read_state(path)
    model.load_weights(path)
    extra = [np.array([state["epoch"], state["step"]])] if state is not None else []
    return np.asarray(model.predict(X, verbose=0)), _snapshot(model) + extra


def load_exported(path):
    exported = lamina.graph.load_exported(path)
    return np.asarray(exported(X)), [np.array(v) for v in getattr(exported, "variables", [])
                                     if hasattr(v, "shape")]


LOADERS = {"keras": load_keras, "weights": load_weights, "legacy": load_legacy,
           "exported": load_exported, "backup": load_backup}
