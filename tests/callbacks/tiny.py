"""A model whose training can be computed by hand.

``y = w·x`` with one weight ``w = 0``, trained with SGD(lr) and mse on the one sample
``x = 1, y = 1``: an epoch's loss is ``(w - 1)²`` before its step, and the step moves ``w``
to ``w - lr·2(w - 1)``. With lr = 0.1, after k epochs ``w = 1 - 0.8^k`` and the losses
are ``0.64^k`` (1, 0.64, 0.4096, 0.262144, 0.16777216, ...).

Validating on ``y = 0.5`` gives a U-shaped val_loss ``(w_after - 0.5)²``:
0.09, 0.0196, 0.000144, 0.00817216, 0.0296941824, ... (best at epoch index 2).
"""
import numpy as np

import lamina
from lamina import layers, optimizers

LOSSES = [0.64 ** k for k in range(10)]
WEIGHTS = [1 - 0.8 ** k for k in range(10)]           # w after k epochs
VAL_LOSSES = [(WEIGHTS[k + 1] - 0.5) ** 2 for k in range(9)]


def one_weight_model(learning_rate=0.1, optimizer=None, **compile_kwargs):
    model = lamina.Sequential([lamina.Input((1,)),
                               layers.Dense(1, use_bias=False, kernel_initializer="zeros")])
    model.compile(optimizer=optimizer or optimizers.SGD(learning_rate), loss="mse",
                  **compile_kwargs)
    return model


def data(n=1, value=1.0):
    x = np.ones((n, 1), lamina.backend.floatx())
    return x, value * x


def fit(model, epochs, callbacks, validate=False, **kwargs):
    x, y = data()
    validation = (x, 0.5 * y) if validate else None
    return model.fit(x, y, epochs=epochs, verbose=0, callbacks=callbacks,
                     validation_data=validation, shuffle=False, **kwargs)


def kernel(model) -> float:
    return float(model.get_weights()[0][0, 0])


def record_saves(model, monkeypatch) -> list:
    """Replace model.save / save_weights with writers of the weight as text; returns the
    list of ``(method, path, kwargs)`` calls (the callbacks' contract with the model)."""
    calls = []

    def writer(method):
        def save(filepath, **kwargs):
            calls.append((method, filepath, kwargs))
            with open(filepath, "w") as f:
                f.write(repr(kernel(model)))
        return save
    monkeypatch.setattr(model, "save", writer("save"), raising=False)
    monkeypatch.setattr(model, "save_weights", writer("save_weights"), raising=False)
    return calls


def read_saved(path) -> float:
    with open(path) as f:
        return float(f.read())


def fake_weights_files(model, monkeypatch) -> None:
    """model.save_weights / load_weights as numpy files of the model's and the optimizer's
    variables (the state a ``.weights.h5`` holds), for when the real ones are not there."""
    def state():
        return list(model.weights) + list(model.optimizer.variables)

    def save_weights(filepath, overwrite=True):
        with open(filepath, "wb") as f:
            np.savez(f, *[v.numpy() for v in state()])

    def load_weights(filepath, skip_mismatch=False):
        with np.load(filepath) as arrays:
            values = [arrays[f"arr_{i}"] for i in range(len(arrays.files))]
        variables = state()
        if len(values) != len(variables):
            raise ValueError(f"{filepath} holds {len(values)} arrays, the model and its "
                             f"optimizer {len(variables)}")
        for variable, value in zip(variables, values):
            variable.assign(value)
    monkeypatch.setattr(model, "save_weights", save_weights, raising=False)
    monkeypatch.setattr(model, "load_weights", load_weights, raising=False)
