"""How many steps fit / evaluate / predict run when ``steps_per_epoch`` (or ``steps``) and
``steps_per_execution`` do not divide the data: the scenarios of Keras 3.15's
``trainer_test.py`` (``test_steps_per_epoch``, ``test_steps_per_execution_steps_per_epoch``,
``..._steps_count``, ``..._unknown_data_size``, ``..._without_training``,
``test_max_epochs_and_steps``, ``test_fit_flow``) and ``epoch_iterator_test.py``, with the
counts they assert. The per-epoch counts, batch indices and warnings in the tables were
recorded with Keras 3.15.1 (JAX backend).

Keras's rules in short: an epoch draws ``ceil(steps_per_epoch / steps_per_execution)``
executions of ``steps_per_execution`` batches; with ``steps_per_epoch`` one pass over the
data goes on across epochs, and an epoch that reaches the end of a pass ends early (with a
warning) while the next epoch starts a new pass.
"""
import warnings

import numpy as np
import pytest

import lamina
from lamina import layers

from .common import fresh_session

setup_function = fresh_session

MODES = [pytest.param(True, id="eager"), pytest.param(False, id="graph")]


class EpochAgnosticMSE(lamina.metrics.MeanSquaredError):
    """Keras's test metric: never reset, so its value after a batch tells every batch
    trained so far, across epochs."""

    def __init__(self):
        super().__init__(name="mse")

    def reset_state(self):
        pass


class StepObserver(lamina.callbacks.Callback):
    """Batch indices, per epoch, and the ``mse`` log of every batch end."""

    def __init__(self):
        super().__init__()
        self.epochs, self.epoch_ends, self.losses = [], 0, []

    def on_epoch_begin(self, epoch, logs=None):
        self.epochs.append([])

    def on_epoch_end(self, epoch, logs=None):
        self.epoch_ends += 1

    def on_train_batch_begin(self, batch, logs=None):
        self.epochs[-1].append(("begin", batch))

    def on_train_batch_end(self, batch, logs=None):
        self.epochs[-1].append(("end", batch))
        self.losses.append(logs.get("mse", logs["loss"]))

    def executions(self):
        """Executions per epoch (a batch begin and a batch end each)."""
        return [len(events) // 2 for events in self.epochs]

    def indices(self):
        return [[batch for _, batch in events] for events in self.epochs]


def example_model(steps_per_execution=1, run_eagerly=False, metrics=None, units=1):
    """Keras's ``ExampleModel``: a Dense layer without bias, its kernel all ones."""
    model = lamina.Sequential([layers.Input((4,)),
                               layers.Dense(units, use_bias=False,
                                            kernel_initializer="ones")])
    model.compile(optimizer="sgd", loss="mse", metrics=metrics,
                  steps_per_execution=steps_per_execution, run_eagerly=run_eagerly)
    return model


def regression(n):
    """Distinct rows (Keras's tests use ones): equal losses then mean equal batches."""
    rng = np.random.default_rng(7)
    x = rng.uniform(-0.5, 0.5, (n, 4)).astype("float32")
    return x, x @ np.array([[0.5], [-1.0], [0.25], [2.0]], "float32") + 0.1


class RanOut:
    """Counts the "ran out of data" warnings of its block, every one (pytest's own filter
    shows a repeated warning once); the other warnings go on as they were."""

    def __enter__(self):
        self._catch = warnings.catch_warnings(record=True)
        self._caught = self._catch.__enter__()
        warnings.simplefilter("always")
        return self

    def __exit__(self, *exc_info):
        self._catch.__exit__(*exc_info)
        self.messages = [str(w.message) for w in self._caught
                         if "ran out of data" in str(w.message)]
        self.count = len(self.messages)
        for w in self._caught:
            if "ran out of data" not in str(w.message):
                warnings.warn_explicit(w.message, w.category, w.filename, w.lineno)


def fit(model, *args, callbacks=(), **kwargs):
    """A seeded fit: two fits that take as many passes draw the same shuffled orders.
    Returns its StepObserver, whose ``ran_out`` counts the "ran out of data" warnings."""
    lamina.utils.set_random_seed(3)
    observer = StepObserver()
    with RanOut() as ran_out:
        model.fit(*args, callbacks=[observer, *callbacks], verbose=0, **kwargs)
    observer.ran_out, observer.ran_out_messages = ran_out.count, ran_out.messages
    return observer


def assert_same_model(model, model_2, x, y):
    for a, b in zip(model.get_weights(), model_2.get_weights()):
        np.testing.assert_allclose(a, b, rtol=1e-6)
    np.testing.assert_allclose(model.predict(x, batch_size=8, verbose=0),
                               model_2.predict(x, batch_size=8, verbose=0), rtol=1e-6)
    np.testing.assert_allclose(model.evaluate(x, y, verbose=0),
                               model_2.evaluate(x, y, verbose=0), rtol=1e-6)


# 10 batches of 8, 4 epochs, steps_per_execution=1: (steps_per_epoch, batches per epoch,
# "ran out" warnings, epochs of one pass per epoch that train on the same batches).
STEPS_PER_EPOCH = [
    pytest.param(10, [10, 10, 10, 10], 0, 4, id="match_one_epoch"),
    pytest.param(5, [5, 5, 5, 5], 0, 2, id="match_multi_epoch"),
    pytest.param(9, [9, 1, 9, 1], 2, None, id="not_match_too_low"),
    pytest.param(11, [10, 10, 10, 10], 4, 4, id="not_match_but_high_enough"),
]


@pytest.mark.parametrize("run_eagerly", MODES)
@pytest.mark.parametrize("steps_per_epoch, per_epoch, ran_outs, epochs_2", STEPS_PER_EPOCH)
def test_steps_per_epoch(steps_per_epoch, per_epoch, ran_outs, epochs_2, run_eagerly):
    x, y = regression(80)
    model = example_model(run_eagerly=run_eagerly, metrics=[EpochAgnosticMSE()])
    observer = fit(model, x, y, batch_size=8, epochs=4, steps_per_epoch=steps_per_epoch)
    assert observer.executions() == per_epoch
    assert observer.indices() == [[i for i in range(n) for _ in "be"] for n in per_epoch]
    assert observer.epoch_ends == 4
    assert int(model.optimizer.iterations.numpy()) == sum(per_epoch)
    assert observer.ran_out == ran_outs
    if epochs_2 is None:
        return
    model_2 = example_model(run_eagerly=run_eagerly, metrics=[EpochAgnosticMSE()])
    observer_2 = fit(model_2, x, y, batch_size=8, epochs=epochs_2)
    np.testing.assert_allclose(observer.losses, observer_2.losses, rtol=1e-6)
    assert_same_model(model, model_2, x, y)


# 10 batches of 8, 2 epochs, steps_per_execution=2: (steps_per_epoch, executions per
# epoch, optimizer steps after each epoch, warnings, epochs of model_2). With
# steps_per_epoch=5 epoch 1 runs 3 executions (6 batches); with 8, epochs run 4 + 1.
STEPS_PER_EXECUTION_AND_EPOCH = [
    pytest.param(10, [5, 5], [10, 20], 0, 2, id="match_one_epoch"),
    pytest.param(5, [3, 2], [6, 10], 1, 1, id="match_multi_epoch"),
    pytest.param(8, [4, 1], [8, 10], 1, None, id="not_match_too_low"),
    pytest.param(12, [5, 5], [10, 20], 2, 2, id="not_match_but_high_enough"),
]


class Iterations(lamina.callbacks.Callback):
    def __init__(self):
        super().__init__()
        self.after_epoch = []

    def on_epoch_end(self, epoch, logs=None):
        self.after_epoch.append(int(self.model.optimizer.iterations.numpy()))


@pytest.mark.parametrize("run_eagerly", MODES)
@pytest.mark.parametrize("steps_per_epoch, per_epoch, iterations, ran_outs, epochs_2",
                         STEPS_PER_EXECUTION_AND_EPOCH)
def test_steps_per_execution_steps_per_epoch(steps_per_epoch, per_epoch, iterations,
                                             ran_outs, epochs_2, run_eagerly):
    x, y = regression(80)
    model = example_model(2, run_eagerly, metrics=[EpochAgnosticMSE()])
    counter = Iterations()
    observer = fit(model, x, y, batch_size=8, epochs=2, steps_per_epoch=steps_per_epoch,
                   callbacks=[counter])
    assert observer.executions() == per_epoch
    assert observer.indices() == [[b for k in range(n) for b in (2 * k, 2 * k + 1)]
                                  for n in per_epoch]
    assert observer.epoch_ends == 2
    assert counter.after_epoch == iterations
    assert observer.ran_out == ran_outs
    if epochs_2 is None:
        return
    model_2 = example_model(1, run_eagerly, metrics=[EpochAgnosticMSE()])
    observer_2 = fit(model_2, x, y, batch_size=8, epochs=epochs_2)
    np.testing.assert_allclose(observer.losses, observer_2.losses[1::2], rtol=1e-6)
    assert_same_model(model, model_2, x, y)


class Batches:
    """A re-iterable source of unknown length (Keras's tests use a tf.data dataset made
    from a generator): batches of ``size`` rows."""

    def __init__(self, x, y, size):
        self.x, self.y, self.size = x, y, size

    def __iter__(self):
        for start in range(0, len(self.x), self.size):
            yield self.x[start:start + self.size], self.y[start:start + self.size]


@pytest.mark.parametrize("run_eagerly", MODES)
@pytest.mark.parametrize("steps_per_execution", [3, 101])
@pytest.mark.parametrize("unknown_size", [False, True], ids=["arrays", "unknown_size"])
def test_steps_per_execution_steps_count(steps_per_execution, unknown_size, run_eagerly):
    x, y = regression(100)
    data = (Batches(x, y, 16),) if unknown_size else (x, y)
    kwargs = {} if unknown_size else {"batch_size": 16}
    model = example_model(steps_per_execution, run_eagerly)
    observer = fit(model, *data, epochs=2, **kwargs)
    executions = 1 + (100 - 1) // (steps_per_execution * 16)
    assert observer.executions() == [executions, executions]
    assert observer.indices()[0] == [b for k in range(executions) for b in
                                     (k * steps_per_execution,
                                      (k + 1) * steps_per_execution - 1)]
    assert observer.epoch_ends == 2
    assert int(model.optimizer.iterations.numpy()) == 14        # 7 batches an epoch
    assert observer.ran_out == 0
    model_2 = example_model(1, run_eagerly)
    lamina.utils.set_random_seed(3)
    history_2 = model_2.fit(*data, epochs=2, verbose=0, **kwargs)
    np.testing.assert_allclose(model.history.history["loss"], history_2.history["loss"],
                               rtol=1e-6)
    assert_same_model(model, model_2, x, y)
    np.testing.assert_allclose(model.predict(data[0], verbose=0),
                               model_2.predict(data[0], verbose=0), rtol=1e-6)


# 20 batches of 8 of unknown length, 2 epochs, steps_per_execution=2.
UNKNOWN_SIZE_STEPS_PER_EPOCH = [
    pytest.param(10, [5, 5], 0, 1, id="match"),
    pytest.param(18, [9, 1], 1, None, id="not_match_too_low"),
    pytest.param(22, [10, 10], 2, 2, id="not_match_but_high_enough"),
]


@pytest.mark.parametrize("run_eagerly", MODES)
@pytest.mark.parametrize("steps_per_epoch, per_epoch, ran_outs, epochs_2",
                         UNKNOWN_SIZE_STEPS_PER_EPOCH)
def test_steps_per_execution_steps_per_epoch_unknown_data_size(
        steps_per_epoch, per_epoch, ran_outs, epochs_2, run_eagerly):
    x, y = regression(160)
    data = Batches(x, y, 8)
    model = example_model(2, run_eagerly, metrics=[EpochAgnosticMSE()])
    observer = fit(model, data, epochs=2, steps_per_epoch=steps_per_epoch)
    assert observer.executions() == per_epoch
    assert observer.epoch_ends == 2
    assert observer.ran_out == ran_outs
    if epochs_2 is None:
        return
    model_2 = example_model(1, run_eagerly, metrics=[EpochAgnosticMSE()])
    observer_2 = fit(model_2, data, epochs=epochs_2)
    np.testing.assert_allclose(observer.losses, observer_2.losses[1::2], rtol=1e-6)
    assert_same_model(model, model_2, x, y)


def test_max_epochs_and_steps():
    x, y = regression(80)
    model = example_model(metrics=[EpochAgnosticMSE()])
    assert fit(model, x, y, batch_size=8, epochs=4).executions() == [10] * 4
    try:
        lamina.config.set_max_epochs(2)
        lamina.config.set_max_steps_per_epoch(3)
        with pytest.warns(UserWarning, match="Limiting"):
            observer = fit(model, x, y, batch_size=8, epochs=4)
        assert observer.executions() == [3, 3]
    finally:
        lamina.config.set_max_epochs(None)
        lamina.config.set_max_steps_per_epoch(None)


class BatchBegins(lamina.callbacks.Callback):
    def __init__(self):
        super().__init__()
        self.test, self.predict = [], []

    def on_test_batch_begin(self, batch, logs=None):
        self.test.append(batch)

    def on_predict_batch_begin(self, batch, logs=None):
        self.predict.append(batch)


def test_steps_per_execution_steps_count_without_training():
    x, y = regression(100)
    model = example_model(3)
    begins = BatchBegins()
    model.predict(x, batch_size=16, callbacks=[begins], verbose=0)
    model.evaluate(x, y, batch_size=16, callbacks=[begins], verbose=0)
    assert begins.predict == begins.test == [0, 3, 6]


# 7 batches of 2, steps_per_execution=3: (steps, test/predict batch begins, rows
# predicted, "ran out" warnings). Every execution draws 3 batches: steps=2 predicts 6 rows.
EVALUATE_AND_PREDICT_STEPS = [
    pytest.param(None, [0, 3, 6], 14, 0, id="no_steps"),
    pytest.param(2, [0], 6, 0, id="steps_2"),
    pytest.param(5, [0, 3], 12, 0, id="steps_5"),
    pytest.param(10, [0, 3, 6], 14, 1, id="steps_10"),
]


@pytest.mark.parametrize("run_eagerly", MODES)
@pytest.mark.parametrize("steps, begins, rows, ran_outs", EVALUATE_AND_PREDICT_STEPS)
def test_evaluate_and_predict_steps_with_steps_per_execution(steps, begins, rows, ran_outs,
                                                             run_eagerly):
    x, y = regression(14)
    model = example_model(3, run_eagerly)
    observer = BatchBegins()
    with RanOut() as ran_out:
        prediction = model.predict(x, batch_size=2, steps=steps, callbacks=[observer],
                                   verbose=0)
        loss = model.evaluate(x, y, batch_size=2, steps=steps, callbacks=[observer],
                              verbose=0)
    assert observer.predict == observer.test == begins
    assert ran_out.count == 2 * ran_outs
    np.testing.assert_allclose(prediction, x[:rows].sum(axis=1, keepdims=True),
                               rtol=1e-5, atol=1e-7)
    assert loss == pytest.approx(float(np.mean((x[:rows].sum(axis=1) - y[:rows, 0]) ** 2)),
                                 rel=1e-5)


def test_steps_set_the_default_batch_size():
    x, y = regression(100)
    model = example_model()
    shapes = []
    recorder = lamina.callbacks.LambdaCallback(
        on_predict_batch_end=lambda batch, logs: shapes.append(logs["outputs"].shape[0]))
    assert len(model.predict(x, steps=3, callbacks=[recorder], verbose=0)) == 100
    assert shapes == [34, 34, 32]                  # Keras: ceil(100 / 3) rows a batch
    assert fit(model, x, y, steps_per_epoch=5, epochs=1).executions() == [5]
    assert int(model.optimizer.iterations.numpy()) == 5          # batches of 20


def test_insufficient_data():
    x = (np.arange(32, dtype="float32") / 32).reshape((32, 1)).repeat(4, axis=1)
    model = example_model()
    observer = fit(model, x, x[:, :1] * 2, batch_size=8, steps_per_epoch=6)
    assert observer.executions() == [4]
    assert observer.ran_out_messages == [
        "fit: your input ran out of data after 4 of the 6 batches of epoch 1/1 asked for by "
        "steps_per_epoch (one pass over the data holds 4 batches); the epoch ends early and "
        "the next one starts a new pass. Leave steps_per_epoch unset to train on one whole "
        "pass per epoch."]


class Tracked(lamina.utils.PyDataset):
    """Keras's ``test_epoch_callbacks`` dataset: 4 batches (or infinite) of 16 rows;
    records its epoch hooks and the indices asked for."""

    def __init__(self, infinite=False, count=4, **kwargs):
        super().__init__(**kwargs)
        self.infinite, self.count = infinite, count
        self.tracker, self.indices = [], []

    @property
    def num_batches(self):
        return None if self.infinite else self.count

    def on_epoch_begin(self):
        self.tracker.append(1)

    def __getitem__(self, index):
        self.indices.append(index)
        x = np.full((16, 4), 0.01 * (index % 5), "float32")
        return x, x[:, :1]

    def on_epoch_end(self):
        self.tracker.append(2)


@pytest.mark.parametrize("infinite, per_epoch, ran_outs", [(False, 4, 5), (True, 10, 0)],
                         ids=["finite", "infinite"])
def test_epoch_callbacks(infinite, per_epoch, ran_outs):
    data = Tracked(infinite=infinite)
    observer = fit(example_model(), data, epochs=5, steps_per_epoch=10)
    assert data.tracker == [1, 2] * 5
    assert observer.executions() == [per_epoch] * 5
    assert observer.ran_out == ran_outs
    if infinite:
        assert data.indices == list(range(50))      # the index counts on across epochs


# A PyDataset of 5 batches, steps_per_epoch=3, 3 epochs: the indices each epoch trains on
# and its hooks (with the count of indices asked for so far), as Keras 3.15 runs them.
PASSES = [
    pytest.param(1, [0, 1, 2, 3, 4, 0, 1, 2], [0, 3, 3, 5, 5, 8], id="one_step"),
    pytest.param(2, [0, 1, 2, 3, 4, 0, 1, 2, 3], [0, 4, 4, 5, 5, 9], id="two_steps"),
]


@pytest.mark.parametrize("steps_per_execution, indices, hooks", PASSES)
def test_a_py_dataset_pass_goes_on_across_epochs(steps_per_execution, indices, hooks):
    data = Tracked(count=5)
    events = []
    data.on_epoch_begin = lambda: events.append(("begin", len(data.indices)))
    data.on_epoch_end = lambda: events.append(("end", len(data.indices)))
    observer = fit(example_model(steps_per_execution), data, epochs=3, steps_per_epoch=3)
    assert data.indices == indices
    assert events == [(("begin", "end")[i % 2], n) for i, n in enumerate(hooks)]
    assert observer.ran_out == 1                   # epoch 2 reached the end of the pass


@pytest.mark.parametrize("pipeline", [{"workers": 3}, {"workers": 2,
                                                       "use_multiprocessing": True}],
                         ids=["threads", "processes"])
def test_a_continued_pass_with_workers_equals_the_serial_one(pipeline):
    serial_model = example_model(2)
    serial = fit(serial_model, Tracked(count=5), epochs=3, steps_per_epoch=3)
    model = example_model(2)
    observer = fit(model, Tracked(count=5, **pipeline), epochs=3, steps_per_epoch=3)
    assert observer.executions() == serial.executions() == [2, 1, 2]
    assert observer.ran_out == serial.ran_out == 1         # epoch 2 of each fit
    assert observer.losses == serial.losses
    for a, b in zip(model.get_weights(), serial_model.get_weights()):
        np.testing.assert_array_equal(a, b)


def test_fit_flow_with_steps_per_epoch_beyond_the_data():
    # Keras's test_fit_flow (steps_per_epoch=7, 5 batches of 20), with its numbers.
    model = example_model(metrics=[lamina.metrics.MeanSquaredError()], units=3)
    observer = fit(model, np.ones((100, 4)), np.zeros((100, 3)), batch_size=20,
                   steps_per_epoch=7, epochs=3)
    np.testing.assert_allclose(model.history.history["mean_squared_error"],
                               [14.402392, 10.991338, 8.388157], rtol=1e-5)
    assert observer.ran_out == 3                   # every epoch asks for 2 more


def test_fit_with_val_split_and_steps_per_epoch():
    model = example_model(metrics=[lamina.metrics.MeanSquaredError()], units=3)
    observer = fit(model, np.ones((100, 4)), np.zeros((100, 3)), batch_size=20,
                   steps_per_epoch=7, epochs=3, validation_split=0.2)
    history = model.history.history
    np.testing.assert_allclose(history["loss"], [14.780789, 11.906671, 9.591425], rtol=1e-5)
    np.testing.assert_allclose(history["val_loss"], [12.888806, 10.382586, 8.363697],
                               rtol=1e-5)
    assert observer.ran_out == 3                   # 4 training batches, 7 asked for


@pytest.mark.parametrize("steps_per_execution", [1, 50])
def test_predict_generator(steps_per_execution):
    def generate_batches():
        for start in range(0, 10, 2):
            yield (np.arange(start, start + 2, dtype="float32"),)
    inputs = lamina.layers.Input(shape=())
    model = lamina.Model(inputs, lamina.layers.Identity()(inputs))
    model.compile(loss="mse", optimizer="sgd", steps_per_execution=steps_per_execution)
    np.testing.assert_array_equal(model.predict(generate_batches(), verbose=0),
                                  np.arange(10, dtype="float32"))


@pytest.mark.parametrize("steps_per_execution", [1, 50])
def test_predict_preserve_order(steps_per_execution):
    def uneven_batches():
        values, sizes, start, j = np.arange(100, dtype="float32"), [2, 3, 4], 0, 0
        while start + sizes[j % 3] <= 100:
            yield (values[start:start + sizes[j % 3]],)
            start, j = start + sizes[j % 3], j + 1
    inputs = lamina.layers.Input(shape=())
    model = lamina.Model(inputs, lamina.layers.Identity()(inputs))
    model.compile(loss="mse", optimizer="sgd", steps_per_execution=steps_per_execution)
    predictions = model.predict(uneven_batches(), verbose=0)
    np.testing.assert_array_equal(predictions, np.arange(len(predictions), dtype="float32"))
