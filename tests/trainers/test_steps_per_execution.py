"""``compile(steps_per_execution=N)``: N steps per execution, callbacks once per execution.

The batch indices are Keras 3.15's (JAX backend), recorded for 10 samples in batches of 2
with ``steps_per_execution=2``: train/test/predict batch ends at 1, 3, 5 (the last group
holds one batch; Keras still reports ``begin + N - 1``), predict outputs of 4, 4 and 2 rows.
"""
import io
import contextlib

import numpy as np
import pytest

import lamina
from lamina import layers

from .common import fresh_session

setup_function = fresh_session


class Recorder(lamina.callbacks.Callback):
    def __init__(self):
        super().__init__()
        self.events = []

    def on_train_batch_begin(self, batch, logs=None):
        self.events.append(("begin", batch))

    def on_train_batch_end(self, batch, logs=None):
        self.events.append(("end", batch, logs["loss"], logs["mae"]))

    def on_test_batch_begin(self, batch, logs=None):
        self.events.append(("test_begin", batch))

    def on_test_batch_end(self, batch, logs=None):
        self.events.append(("test_end", batch, logs["loss"]))

    def on_predict_batch_begin(self, batch, logs=None):
        self.events.append(("predict_begin", batch))

    def on_predict_batch_end(self, batch, logs=None):
        self.events.append(("predict_end", batch, np.asarray(logs["outputs"]).shape))


def _data(n=10):
    rng = np.random.default_rng(1)
    x = rng.standard_normal((n, 3)).astype("float32")
    return x, (x @ np.array([[1.0], [-2.0], [0.5]], "float32") + 0.3)


def _model(steps, run_eagerly=False):
    lamina.utils.set_random_seed(0)
    model = lamina.Sequential([layers.Input((3,)), layers.Dense(4, activation="tanh"),
                               layers.Dropout(0.2), layers.Dense(1)])
    model.compile("adam", "mse", metrics=["mae"], steps_per_execution=steps,
                  run_eagerly=run_eagerly)
    return model


def _run(steps, run_eagerly=False, **fit_kwargs):
    x, y = _data()
    model = _model(steps, run_eagerly)
    recorder = Recorder()
    history = model.fit(x, y, batch_size=2, epochs=3, shuffle=True, verbose=0,
                        callbacks=[recorder], validation_data=(x, y), **fit_kwargs)
    evaluation = model.evaluate(x, y, batch_size=2, verbose=0, return_dict=True)
    prediction = model.predict(x, batch_size=2, verbose=0)
    return model, recorder.events, history.history, evaluation, prediction


@pytest.mark.parametrize("run_eagerly", [False, True])
def test_same_weights_metrics_and_predictions_as_one_step_per_execution(run_eagerly):
    one = _run(1, run_eagerly)
    three = _run(3, run_eagerly)
    for a, b in zip(one[0].get_weights(), three[0].get_weights()):
        np.testing.assert_array_equal(a, b)
    assert one[2] == three[2]                     # every epoch's loss, mae, val_*
    assert one[3] == three[3]
    np.testing.assert_array_equal(one[4], three[4])


def test_graph_mode_equals_eager():
    graph, eager = _run(3, False), _run(3, True)
    for a, b in zip(graph[0].get_weights(), eager[0].get_weights()):
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6)
    for key in graph[2]:
        np.testing.assert_allclose(graph[2][key], eager[2][key], rtol=1e-5)
    np.testing.assert_allclose(graph[4], eager[4], rtol=1e-5, atol=1e-6)
    assert [e[:2] for e in graph[1]] == [e[:2] for e in eager[1]]


@pytest.mark.parametrize("run_eagerly", [False, True])
def test_callbacks_once_per_execution_with_the_last_steps_logs(run_eagerly):
    _, per_step, *_ = _run(1, run_eagerly)
    _, grouped, *_ = _run(3, run_eagerly)
    train = [e for e in grouped if e[0] in ("begin", "end")]
    # 5 batches an epoch: executions of batches 0-2 and 3-4 (reported as 3-5, as Keras).
    assert [e[:2] for e in train] == [("begin", 0), ("end", 2), ("begin", 3), ("end", 5)] * 3
    step_ends = [e for e in per_step if e[0] == "end"]
    ends = [e for e in train if e[0] == "end"]
    # The logs of an execution are those of its last step: batches 2 and 4 of each epoch.
    assert [e[2:] for e in ends] == [step_ends[i][2:] for i in (2, 4, 7, 9, 12, 14)]


def test_keras_batch_indices_for_evaluate_and_predict():
    x, y = _data()
    model = _model(2)
    recorder = Recorder()
    model.evaluate(x, y, batch_size=2, verbose=0, callbacks=[recorder])
    model.predict(x, batch_size=2, verbose=0, callbacks=[recorder])
    assert recorder.events[0::2] == [("test_begin", 0), ("test_begin", 2),
                                     ("test_begin", 4), ("predict_begin", 0),
                                     ("predict_begin", 2), ("predict_begin", 4)]
    assert [e[:2] for e in recorder.events[1:6:2]] == [("test_end", 1), ("test_end", 3),
                                                       ("test_end", 5)]
    assert recorder.events[7::2] == [("predict_end", 1, (4, 1)), ("predict_end", 3, (4, 1)),
                                     ("predict_end", 5, (2, 1))]


def test_steps_per_epoch_rounds_up_to_whole_executions_as_keras(recwarn):
    x, y = _data(20)
    counted = []
    model = _model(3)
    recorder = Recorder()
    model.fit(x, y, batch_size=2, epochs=2, steps_per_epoch=4, verbose=0,
              callbacks=[recorder, lamina.callbacks.LambdaCallback(
                  on_epoch_end=lambda epoch, logs: counted.append(
                      int(model.optimizer.iterations.numpy())))])
    # Keras 3.15 (JAX), 10 batches a pass: each execution draws 3 batches, so epoch 1
    # trains on 6; epoch 2 goes on with the same pass and ends with its last 4.
    assert counted == [6, 10]
    assert [e[:2] for e in recorder.events] == [("begin", 0), ("end", 2), ("begin", 3),
                                                ("end", 5)] * 2
    assert not [w for w in recwarn if "ran out" in str(w.message)]


def test_stop_training_is_read_after_each_execution():
    x, y = _data()
    model = _model(2)
    stopper = lamina.callbacks.LambdaCallback(
        on_train_batch_end=lambda batch, logs: setattr(model, "stop_training", True))
    model.fit(x, y, batch_size=2, epochs=3, verbose=0, callbacks=[stopper])
    assert int(model.optimizer.iterations.numpy()) == 2


def test_progress_bar_counts_batches_not_executions():
    x, y = _data()
    model = _model(3)
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        model.fit(x, y, batch_size=2, epochs=1, verbose=1)
        model.evaluate(x, y, batch_size=2, verbose=1)
    lines = [line for line in out.getvalue().splitlines() if line.strip()]
    assert len(lines) == 2            # no "Epoch 1/1" for one epoch, as in Keras 3
    assert lines[0].startswith("5/5 ")
    assert lines[1].startswith("5/5 ")


def test_compile_config_round_trips_the_value(tmp_path):
    x, y = _data()
    model = _model(3)
    model.fit(x, y, batch_size=2, epochs=1, verbose=0)
    assert model.get_compile_config()["steps_per_execution"] == 3
    path = str(tmp_path / "model.keras")
    model.save(path)
    loaded = lamina.saving.load_model(path)
    assert loaded.steps_per_execution == 3
    assert loaded.get_compile_config()["steps_per_execution"] == 3


@pytest.mark.parametrize("value", [0, -1, 2.0, "2"])
def test_steps_per_execution_must_be_a_positive_int(value):
    model = lamina.Sequential([layers.Input((3,)), layers.Dense(1)])
    with pytest.raises(ValueError, match=r"sequential\w*\.compile: argument "
                       r"'steps_per_execution' must be a positive int; received"):
        model.compile("sgd", "mse", steps_per_execution=value)


class _InterruptAt(lamina.callbacks.Callback):
    def on_epoch_begin(self, epoch, logs=None):
        self.epoch = epoch

    def on_train_batch_begin(self, batch, logs=None):
        if (self.epoch, batch) == (1, 4):
            raise RuntimeError("interrupted")


def test_backup_and_restore_resumes_mid_epoch_between_executions(tmp_path):
    x, y = _data(12)

    def fit(model, callbacks):
        model.fit(x, y, batch_size=2, epochs=3, shuffle=False, verbose=0,
                  callbacks=callbacks)

    reference = _model(2)
    fit(reference, [])
    model = _model(2)
    backup = str(tmp_path / "backup")
    with pytest.raises(RuntimeError, match="interrupted"):
        fit(model, [lamina.callbacks.BackupAndRestore(backup, save_freq=2),
                    _InterruptAt()])
    resumed = Recorder()
    fit(model, [lamina.callbacks.BackupAndRestore(backup, save_freq=2), resumed])
    # Batches 0-3 of epoch 2 were trained before the backup; the resumed fit starts at 4.
    assert [e[:2] for e in resumed.events] == [("begin", 4), ("end", 5)] + \
        [("begin", 0), ("end", 1), ("begin", 2), ("end", 3), ("begin", 4), ("end", 5)]
    for a, b in zip(reference.get_weights(), model.get_weights()):
        np.testing.assert_allclose(a, b, rtol=1e-6, atol=1e-7)
