"""Prefetched PyDatasets give exactly the serial batches, in order, epoch after epoch."""
import time

import numpy as np
import pytest

import lamina
from lamina import layers
from lamina.data_adapters import prefetch as prefetch_module
from lamina.data_adapters.prefetch import prefetch

from .pipeline_datasets import BATCH, Endless, Numbered, Watched

PIPELINES = [
    pytest.param({}, id="serial"),
    pytest.param({"workers": 4}, id="threads"),
    pytest.param({"workers": 2, "use_multiprocessing": True}, id="processes"),
]


def _model(run_eagerly=False):
    lamina.utils.set_random_seed(5)
    model = lamina.Sequential([layers.Input((3,)), layers.Dense(4, activation="tanh"),
                               layers.Dense(1)])
    model.compile("sgd", "mse", run_eagerly=run_eagerly)
    return model


def _fit(pipeline, run_eagerly=False, epochs=3):
    model = _model(run_eagerly)
    data = Numbered(reshuffle=True, **pipeline)
    history = model.fit(data, epochs=epochs, verbose=0, shuffle=False)
    return history.history["loss"], model.get_weights(), data


@pytest.mark.parametrize("pipeline", PIPELINES)
def test_fit_with_workers_equals_serial_fit_with_a_reshuffling_dataset(pipeline):
    serial_loss, serial_weights, _ = _fit({})
    loss, weights, data = _fit(pipeline)
    assert loss == serial_loss                       # bit for bit: same batches, same order
    for a, b in zip(weights, serial_weights):
        np.testing.assert_array_equal(a, b)
    assert data.epochs_ended == 3                    # on_epoch_end ran in the main process
    assert len(set(loss)) == 3


def test_reshuffling_changes_the_batches_between_epochs():
    """Without the per-epoch reshuffle the losses differ: the equality above is about
    the reshuffled batches reaching the workers."""
    model = _model()
    fixed = model.fit(Numbered(workers=2, use_multiprocessing=True), epochs=3, verbose=0,
                      shuffle=False).history["loss"]
    assert fixed != _fit({})[0]


@pytest.mark.parametrize("run_eagerly", [False, True])
def test_graph_mode_equals_eager_with_workers(run_eagerly):
    loss, weights, _ = _fit({"workers": 3}, run_eagerly=run_eagerly)
    eager_loss, eager_weights, _ = _fit({}, run_eagerly=True)
    np.testing.assert_allclose(loss, eager_loss, rtol=1e-5)
    for a, b in zip(weights, eager_weights):
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("pipeline", PIPELINES)
def test_evaluate_and_predict_with_workers_keep_batch_order(pipeline):
    model = _model()
    data = Numbered(**pipeline)
    serial = Numbered()
    x = np.concatenate([serial[i][0] for i in range(len(serial))])
    np.testing.assert_array_equal(model.predict(data, verbose=0),
                                  model.predict(x, verbose=0, batch_size=BATCH))
    assert model.evaluate(data, verbose=0) == model.evaluate(serial, verbose=0)


def test_spawned_worker_processes_get_the_reshuffled_dataset(monkeypatch):
    monkeypatch.setattr(prefetch_module, "start_method", "spawn")
    serial_loss = _fit({}, epochs=2)[0]
    assert _fit({"workers": 2, "use_multiprocessing": True}, epochs=2)[0] == serial_loss


@pytest.mark.parametrize("use_multiprocessing", [False, True])
def test_prefetch_yields_in_index_order(use_multiprocessing):
    data = Numbered()
    order = [5, 0, 7, 2, 1]
    batches = list(prefetch(data, order, 3, use_multiprocessing, 2))
    assert [int(x[0, 0]) for x, _ in batches] == order


def test_threads_really_run_in_parallel_and_stay_max_queue_size_ahead():
    data = Watched(count=12, delay=0.02)
    consumed, leads = 0, []
    for x, _ in prefetch(data, range(12), workers=4, use_multiprocessing=False,
                         max_queue_size=3):
        assert int(x[0, 0]) == consumed
        time.sleep(0.05)                                # slow "training": the queue fills
        with data.lock:
            leads.append(max(data.requested) - consumed)
        consumed += 1
    assert data.most_running >= 2                       # fetched concurrently
    assert max(leads) == 3                              # never more than 3 ahead
    assert sorted(data.requested) == list(range(12))    # each batch fetched once


def test_fit_arguments_override_the_datasets_pipeline():
    data = Watched(count=8, delay=0.02)                 # workers=1: serial by itself
    _model().fit(data, epochs=1, verbose=0, workers=4, max_queue_size=4)
    assert data.most_running >= 2
    serial = Watched(count=8, delay=0.0)
    _model().fit(serial, epochs=1, verbose=0)
    assert serial.most_running == 1


@pytest.mark.parametrize("pipeline", PIPELINES)
def test_infinite_dataset_counts_on_across_epochs(pipeline):
    model = _model()
    data = Endless(**pipeline)
    history = model.fit(data, steps_per_epoch=3, epochs=2, verbose=0)
    assert history.params["steps"] == 3 and len(history.history["loss"]) == 2
    # The same batches, serially: 0, 1, 2 then 3, 4, 5.
    expected = _model()
    for index in range(6):
        expected.train_on_batch(*data[index])
    for a, b in zip(model.get_weights(), expected.get_weights()):
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6)
    # predict continues nothing: a fresh adapter starts at index 0.
    np.testing.assert_array_equal(model.predict(data, steps=2, verbose=0),
                                  model.predict(np.array([[0.] * 3] * 2 + [[1.] * 3] * 2,
                                                         "float32"), verbose=0))


def test_infinite_dataset_needs_steps():
    with pytest.raises(ValueError, match=r"fit: Endless is an infinite PyDataset "
                                         r"\(num_batches is None\); pass argument "
                                         r"'steps_per_epoch'"):
        _model().fit(Endless(), epochs=1, verbose=0)
    with pytest.raises(ValueError, match=r"predict: Endless is an infinite .* pass "
                                         r"argument 'steps'"):
        _model().predict(Endless(), verbose=0)
    with pytest.raises(ValueError, match=r"fit \(validation\): Endless is an infinite .* "
                                         r"pass argument 'validation_steps'"):
        _model().fit(Numbered(), validation_data=Endless(), epochs=1, verbose=0)
