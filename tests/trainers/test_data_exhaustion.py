"""Data that runs out early or holds nothing: Keras 3 warns that the input ran out and
stops; no epoch is made up from no data, and empty data is a clear error."""
import numpy as np
import pytest

import lamina
from lamina import layers
from tests.trainers.common import data, fresh_session


setup_function = fresh_session


def model():
    m = lamina.Sequential([lamina.Input((4,)), layers.Dense(3)])
    m.compile(lamina.optimizers.SGD(0.05), "mse")
    return m


def batches(x, y, count, size=4):
    for i in range(count):
        yield x[i * size:(i + 1) * size], y[i * size:(i + 1) * size]


class Recorder(lamina.callbacks.Callback):
    def __init__(self):
        super().__init__()
        self.events = []

    def on_epoch_begin(self, epoch, logs=None):
        self.events.append(("begin", epoch))

    def on_epoch_end(self, epoch, logs=None):
        self.events.append(("end", epoch, dict(logs)))


class Batches(lamina.utils.PyDataset):
    def __init__(self, x, y, count):
        super().__init__()
        self.x, self.y, self.count = x, y, count

    def __len__(self):
        return self.count

    def __getitem__(self, index):
        return self.x[index * 4:(index + 1) * 4], self.y[index * 4:(index + 1) * 4]


def test_a_generator_that_runs_out_stops_training_with_a_warning(tmp_path):
    x, y = data()
    m = model()
    recorder = Recorder()
    checkpoint = lamina.callbacks.ModelCheckpoint(str(tmp_path / "best.weights.h5"),
                                                  save_best_only=True,
                                                  save_weights_only=True, monitor="loss")
    with pytest.warns(UserWarning, match=r"fit: your input ran out of data after 1 "
                      r"batch\(es\) of epoch 2/3; interrupting training. Make sure that "
                      r"your dataset or generator can generate at least `steps_per_epoch "
                      r"\* epochs` batches \(2 \* 3 = 6 here\)"):
        history = m.fit(batches(x, y, 3), epochs=3, steps_per_epoch=2, verbose=0,
                        callbacks=[recorder, checkpoint])
    assert history.epoch == [0, 1]
    assert len(history.history["loss"]) == 2
    assert all(loss > 0.1 for loss in history.history["loss"])
    assert [e[:2] for e in recorder.events] == [("begin", 0), ("end", 0), ("begin", 1),
                                                ("end", 1)]
    assert checkpoint.best == pytest.approx(min(history.history["loss"]))


def test_a_one_shot_generator_without_steps_is_one_epoch():
    x, y = data()
    m = model()
    recorder = Recorder()
    with pytest.warns(UserWarning, match=r"fit: your input ran out of data at the start "
                      r"of epoch 2/3; interrupting training. A generator is consumed by "
                      r"the first epoch"):
        history = m.fit(batches(x, y, 4), epochs=3, verbose=0, callbacks=[recorder])
    assert history.epoch == [0]
    # As Keras: epoch 2 begins, finds no data and never ends (no made-up logs).
    assert [e[:2] for e in recorder.events] == [("begin", 0), ("end", 0), ("begin", 1)]
    assert history.history["loss"][0] > 0.1


def test_a_reiterable_source_runs_every_epoch_without_a_warning(recwarn):
    x, y = data()
    class Reiterable:
        def __iter__(self):
            return batches(x, y, 4)
    history = model().fit(Reiterable(), epochs=3, steps_per_epoch=4, verbose=0)
    assert history.epoch == [0, 1, 2]
    assert not [w for w in recwarn if "ran out" in str(w.message)]


@pytest.mark.parametrize("method", ["fit", "evaluate", "predict"])
def test_zero_samples_is_an_error(method):
    x, y = data()
    m = model()
    call = getattr(m, method)
    args = (x[:0],) if method == "predict" else (x[:0], y[:0])
    with pytest.raises(ValueError, match=rf"{method}: argument 'x' holds no samples; "
                       rf"received arrays of shape \(0, 4\)"):
        call(*args, verbose=0)


def test_empty_validation_data_is_an_error():
    x, y = data()
    with pytest.raises(ValueError, match=r"fit \(validation\): argument 'validation_data' "
                       r"holds no samples; received arrays of shape \(0, 4\)"):
        model().fit(x, y, validation_data=(x[:0], y[:0]), verbose=0)


@pytest.mark.parametrize("method", ["fit", "evaluate", "predict"])
def test_an_empty_generator_is_an_error(method):
    x, y = data()
    m = model()
    recorder = Recorder()
    with pytest.raises(ValueError, match=rf"{method}: argument 'x' yielded no batches; "
                       rf"received a generator that yields nothing"):
        getattr(m, method)(batches(x, y, 0), verbose=0, callbacks=[recorder])
    assert not [event for event in recorder.events if event[0] == "end"]


@pytest.mark.parametrize("method", ["fit", "evaluate", "predict"])
def test_an_empty_py_dataset_is_an_error(method):
    x, y = data()
    with pytest.raises(ValueError, match=rf"{method}: argument 'x' yielded no batches; "
                       rf"received a Batches of length 0"):
        getattr(model(), method)(Batches(x, y, 0), verbose=0)


@pytest.mark.parametrize("method, name", [("fit", "steps_per_epoch"),
                                          ("fit", "validation_steps"),
                                          ("evaluate", "steps"), ("predict", "steps")])
def test_steps_must_be_positive(method, name):
    x, y = data()
    args = (x,) if method == "predict" else (x, y)
    kwargs = {name: 0}
    if name == "validation_steps":
        kwargs["validation_data"] = (x, y)
    with pytest.raises(ValueError, match=rf"{method}: argument '{name}' must be a positive "
                       rf"int or None; received 0"):
        getattr(model(), method)(*args, verbose=0, **kwargs)


def test_evaluate_on_a_generator_that_runs_out_covers_the_real_batches():
    x, y = data()
    m = model()
    expected = m.evaluate(x[:12], y[:12], batch_size=4, verbose=0)
    with pytest.warns(UserWarning, match=r"evaluate: your input ran out of data after 3 of "
                      r"the 5 batches asked for \(argument 'steps'\); the loss and metrics "
                      r"cover those 3 batch\(es\) only"):
        result = m.evaluate(batches(x, y, 3), steps=5, verbose=0)
    assert result == pytest.approx(expected, rel=1e-6)


def test_evaluate_twice_on_a_one_shot_generator():
    x, y = data()
    m = model()
    source = batches(x, y, 2)
    assert m.evaluate(source, verbose=0) > 0.1
    with pytest.raises(ValueError, match="evaluate: argument 'x' yielded no batches"):
        m.evaluate(source, verbose=0)


def test_predict_on_a_generator_that_runs_out_returns_the_real_batches():
    x, y = data()
    m = model()
    with pytest.warns(UserWarning, match=r"predict: your input ran out of data after 2 of "
                      r"the 4 batches asked for \(argument 'steps'\); the outputs cover "
                      r"those 2 batch\(es\) only"):
        out = m.predict(batches(x, y, 2), steps=4, verbose=0)
    np.testing.assert_allclose(out, m.predict(x[:8], verbose=0), rtol=1e-6)


def test_validation_data_that_runs_out_adds_no_fake_metrics():
    x, y = data()
    m = model()
    with pytest.warns(UserWarning, match=r"fit: argument 'validation_data' yielded no "
                      r"batches in epoch 2; this epoch has no validation metrics"):
        history = m.fit(x, y, epochs=2, validation_data=batches(x, y, 2), verbose=0)
    assert history.epoch == [0, 1]
    assert len(history.history["val_loss"]) == 1
    assert history.history["val_loss"][0] > 0.1
