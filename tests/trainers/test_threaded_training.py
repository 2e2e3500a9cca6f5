"""Two models trained at once in two threads give what each gives trained alone: tapes,
layer-call stacks, the training flag and autocast scopes belong to the thread that opened
them (issue 10, item 6: the second eager fit used to find no gradients)."""
import threading

import numpy as np
import pytest

import lamina
from lamina import layers

from .common import fresh_session

TIMEOUT = 120


def setup_function():
    fresh_session()


def _model(seed, dtype=None):
    lamina.utils.set_random_seed(seed)
    model = lamina.Sequential([
        lamina.Input((4,)),
        layers.Dense(8, activation="relu", dtype=dtype),
        layers.BatchNormalization(dtype=dtype),
        layers.Dropout(0.25, seed=seed, dtype=dtype),
        layers.Dense(3, dtype=dtype),
    ])
    return model


def _data(seed, n=24):
    rng = np.random.default_rng(seed)
    x = rng.standard_normal((n, 4)).astype("float32")
    return x, (x[:, :3] * 2.0 - 1.0).astype("float32")


class _LockStep(lamina.callbacks.Callback):
    """Waits for the other thread's fit before and after every batch, so the two fits
    interleave batch by batch (and op by op inside a batch, with the short switch
    interval)."""

    def __init__(self, barrier):
        super().__init__()
        self.barrier = barrier

    def on_train_batch_begin(self, batch, logs=None):
        self.barrier.wait(TIMEOUT)

    def on_train_batch_end(self, batch, logs=None):
        self.barrier.wait(TIMEOUT)


def _fit(model, seed, run_eagerly, callbacks=()):
    model.compile(optimizer=lamina.optimizers.Adam(0.01), loss="mse", metrics=["mae"],
                  run_eagerly=run_eagerly)
    x, y = _data(seed)
    history = model.fit(x, y, batch_size=6, epochs=3, shuffle=False, verbose=0,
                        validation_split=0.25, callbacks=list(callbacks))
    return history.history, [w.copy() for w in model.get_weights()], model.predict(x, verbose=0)


def _serial(seed, run_eagerly, dtype=None):
    return _fit(_model(seed, dtype), seed, run_eagerly)


def _threaded(*runs):
    """``runs``: (seed, run_eagerly, dtype) per thread; the models are built first, in
    this thread, then fitted at once, in lock step."""
    models = [_model(seed, dtype) for seed, _, dtype in runs]
    barrier = threading.Barrier(len(runs))
    results, errors = [None] * len(runs), []

    def target(i):
        seed, run_eagerly, _ = runs[i]
        try:
            results[i] = _fit(models[i], seed, run_eagerly, [_LockStep(barrier)])
        except BaseException as error:               # re-raised in the main thread
            errors.append(error)
            barrier.abort()
    threads = [threading.Thread(target=target, args=(i,)) for i in range(len(runs))]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(TIMEOUT)
    assert not any(thread.is_alive() for thread in threads), "a fit did not finish"
    if errors:
        raise errors[0]
    return results


def _assert_same(got, expected):
    history, weights, predictions = got
    expected_history, expected_weights, expected_predictions = expected
    assert history.keys() == expected_history.keys()
    for key in history:
        np.testing.assert_allclose(history[key], expected_history[key], rtol=1e-6,
                                   atol=1e-7, err_msg=key)
    assert len(weights) == len(expected_weights)
    for w, e in zip(weights, expected_weights):
        np.testing.assert_allclose(w, e, rtol=1e-6, atol=1e-7)
    np.testing.assert_allclose(predictions, expected_predictions, rtol=1e-6, atol=1e-7)


@pytest.fixture(autouse=True)
def often_switching_threads():
    import sys
    interval = sys.getswitchinterval()
    sys.setswitchinterval(1e-5)
    yield
    sys.setswitchinterval(interval)


def test_two_eager_fits_in_two_threads_equal_the_serial_fits():
    expected = [_serial(1, True), _serial(2, True)]
    got = _threaded((1, True, None), (2, True, None))
    for g, e in zip(got, expected):
        _assert_same(g, e)
    assert got[0][0]["loss"][-1] < got[0][0]["loss"][0]      # both really trained


def test_an_eager_fit_beside_a_graph_fit_equals_the_serial_fits():
    expected = [_serial(3, True), _serial(4, False)]
    got = _threaded((3, True, None), (4, False, None))
    for g, e in zip(got, expected):
        _assert_same(g, e)


def _calls_until(stop, model, x, expected):
    """Call ``model`` on ``x`` for inference, eagerly, until ``stop`` is set; each output
    must equal ``expected`` (returns how many calls ran)."""
    calls = 0
    while not stop.is_set() or calls == 0:
        out = model(x, training=False)
        np.testing.assert_allclose(out.numpy().astype("float32"), expected, rtol=1e-6,
                                   atol=1e-7)
        calls += 1
    return calls


def _fit_beside_inference(seed, dtype_beside):
    """Fit a float32 model (eagerly) in one thread while another thread calls a second
    model for inference, over and over."""
    model, beside = _model(seed), _model(seed + 10, dtype_beside)
    x_beside, _ = _data(seed + 10, n=8)
    expected = beside(x_beside, training=False).numpy().astype("float32")
    stop, errors, results = threading.Event(), [], {}

    def fit():
        try:
            results["fit"] = _fit(model, seed, True)
        except BaseException as error:
            errors.append(error)
        finally:
            stop.set()

    def infer():
        try:
            results["calls"] = _calls_until(stop, beside, x_beside, expected)
        except BaseException as error:
            errors.append(error)
            stop.set()
    threads = [threading.Thread(target=fit), threading.Thread(target=infer)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(TIMEOUT)
    assert not any(thread.is_alive() for thread in threads), "a thread did not finish"
    if errors:
        raise errors[0]
    assert results["calls"] > 1
    return results["fit"]


def test_inference_calls_in_another_thread_leave_the_training_flag_alone():
    # training=False pushed by the other thread's calls must not switch this thread's
    # Dropout and BatchNormalization to inference in the middle of its fit.
    expected = _serial(7, True)
    _assert_same(_fit_beside_inference(7, None), expected)


def test_a_mixed_precision_model_in_another_thread_leaves_float32_training_alone():
    # The float16 layer opens an autocast scope on its thread; the float32 model trained
    # in the other thread must not read its variables in float16.
    expected = _serial(8, True)
    _assert_same(_fit_beside_inference(8, "mixed_float16"), expected)


def test_a_mixed_precision_fit_beside_a_float32_fit_equals_the_serial_fits():
    # The float16 layer opens an autocast scope on its thread; the float32 model in the
    # other thread must not compute in float16.
    expected = [_serial(5, True, "mixed_float16"), _serial(6, True)]
    got = _threaded((5, True, "mixed_float16"), (6, True, None))
    for g, e in zip(got, expected):
        _assert_same(g, e)
