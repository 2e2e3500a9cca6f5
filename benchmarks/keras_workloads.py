"""The large peer workloads written once against the Keras 3 API, so that Keras 3 (in
``peers.py keras``, on JAX) and Lamina (in ``vs_peers.py``, ``import lamina as keras``) run
literally the same code; PyTorch's versions are in ``peers.py`` (``run_torch``).

Needs numpy only (the peers' virtual environments import it without Lamina installed).

Workloads (ms, lower is better; every one after ``warmup`` calls/steps, default 10, which
include any one-time trace or compile):

* ``resnet50_infer_b1`` / ``_b8``: ``applications.ResNet50(weights=None)``, 224x224x3, 1000
  classes, ``predict_on_batch``, median of ``calls`` calls.
* ``resnet50_train_b16``: one training step, batch 16, SGD(0.01), sparse categorical
  crossentropy (the default softmax head): ``fit`` over ``steps`` batches / ``steps``.
* ``mobilenetv2_infer_b1`` / ``_b8``: ``applications.MobileNetV2(weights=None)``, as ResNet50.
* ``lstm128_train`` / ``gru128_train``: Input (50 steps, 32 features), LSTM(128) or GRU(128)
  (last output), Dense(10) logits, batch 32, Adam(1e-3), sparse categorical crossentropy
  from logits: ``fit`` over ``steps`` batches / ``steps``.
"""
from __future__ import annotations

import statistics
import time

import numpy as np

GROUPS = ("basic", "resnet", "mobilenet", "onnx", "rnn")
IMAGE_SHAPE = (224, 224, 3)
PREDICT_BATCHES = (1, 8)
RESNET_TRAIN_BATCH = 16
RNN_STEPS, RNN_FEATURES, RNN_BATCH, RNN_UNITS, RNN_CLASSES = 50, 32, 32, 128, 10

# workload -> unit, in the order the table prints them
WORKLOADS = {
    "resnet50_infer_b1": "ms/call", "resnet50_infer_b8": "ms/call",
    "resnet50_train_b16": "ms/step",
    "mobilenetv2_infer_b1": "ms/call", "mobilenetv2_infer_b8": "ms/call",
    "lstm128_train": "ms/step", "gru128_train": "ms/step",
}


def parse_groups(text: str | None) -> set:
    """``"resnet,rnn"`` -> {"resnet", "rnn"}; None or "all" -> every group."""
    if not text or text == "all":
        return set(GROUPS)
    groups = {part.strip() for part in text.split(",") if part.strip()}
    unknown = groups - set(GROUPS)
    if unknown:
        raise SystemExit(f"--only: unknown group(s) {sorted(unknown)}; choose from {GROUPS}")
    return groups


def counts(quick: bool, calls: int | None, steps: int | None) -> dict:
    """Timed predict calls and training steps per workload (``calls``/``steps`` override)."""
    return {"predict_calls": calls or (5 if quick else 20),
            "resnet_steps": steps or (2 if quick else 5),
            "rnn_steps": steps or (20 if quick else 50)}


def settle(model) -> None:
    """Lamina compiles its elementwise chains on a worker thread: the warm-up ends when
    they are ready (Keras compiles synchronously inside its warm-up)."""
    module = type(model).__module__.split(".")[0]
    if module == "lamina":
        from lamina.backend import numba_chain
        numba_chain.wait_for_compiles(600)


def median_ms(fn, warmup: int, calls: int) -> float:
    """``warmup`` untimed calls, then the median of ``calls`` timed calls, in ms."""
    for _ in range(warmup):
        fn()
    times = []
    for _ in range(max(calls, 1)):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return statistics.median(times) * 1e3


def images(rng, n: int, classes: int = 1000):
    return (rng.standard_normal((n, *IMAGE_SHAPE)).astype("float32"),
            rng.integers(0, classes, n).astype("int64"))


def sequences(rng, n: int):
    return (rng.standard_normal((n, RNN_STEPS, RNN_FEATURES)).astype("float32"),
            rng.integers(0, RNN_CLASSES, n).astype("int64"))


def fit_step_ms(model, x, y, batch: int, warmup: int, steps: int) -> float:
    """ms per training step: a ``fit`` over ``warmup`` batches (trace/compile), then a timed
    ``fit`` over ``steps`` batches."""
    model.fit(x[:warmup * batch], y[:warmup * batch], batch_size=batch, epochs=1, verbose=0)
    settle(model)
    xs, ys = x[:steps * batch], y[:steps * batch]
    start = time.perf_counter()
    model.fit(xs, ys, batch_size=batch, epochs=1, verbose=0)
    return (time.perf_counter() - start) / steps * 1e3


def run_keras_api(keras, emit, groups, warmup: int = 10, quick: bool = False,
                  calls: int | None = None, steps: int | None = None) -> None:
    """The workloads of ``groups`` with the module ``keras`` (Keras 3, or ``lamina``);
    ``emit(workload, value, unit)`` prints each figure."""
    n = counts(quick, calls, steps)
    rng = np.random.default_rng(0)
    apps = [(group, name, arch) for group, name, arch in
            (("resnet", "resnet50", "ResNet50"), ("mobilenet", "mobilenetv2", "MobileNetV2"))
            if group in groups]
    for group, name, arch in apps:
        keras.utils.set_random_seed(0)
        model = getattr(keras.applications, arch)(weights=None)
        for batch in PREDICT_BATCHES:
            x = images(rng, batch)[0]
            emit(f"{name}_infer_b{batch}",
                 median_ms(lambda: model.predict_on_batch(x), warmup, n["predict_calls"]),
                 "ms/call")
        del model
    if "resnet" in groups:
        keras.utils.set_random_seed(0)
        model = keras.applications.ResNet50(weights=None)
        model.compile(optimizer=keras.optimizers.SGD(learning_rate=0.01),
                      loss=keras.losses.SparseCategoricalCrossentropy())
        batch = RESNET_TRAIN_BATCH
        x, y = images(rng, max(warmup, n["resnet_steps"]) * batch)
        emit("resnet50_train_b16",
             fit_step_ms(model, x, y, batch, warmup, n["resnet_steps"]), "ms/step")
        del model, x, y
    if "rnn" in groups:
        x, y = sequences(rng, max(warmup, n["rnn_steps"]) * RNN_BATCH)
        for kind in ("LSTM", "GRU"):
            keras.utils.set_random_seed(0)
            model = keras.Sequential([keras.Input((RNN_STEPS, RNN_FEATURES)),
                                      getattr(keras.layers, kind)(RNN_UNITS),
                                      keras.layers.Dense(RNN_CLASSES)])
            model.compile(optimizer=keras.optimizers.Adam(1e-3),
                          loss=keras.losses.SparseCategoricalCrossentropy(from_logits=True))
            emit(f"{kind.lower()}{RNN_UNITS}_train",
                 fit_step_ms(model, x, y, RNN_BATCH, warmup, n["rnn_steps"]), "ms/step")
