"""A prefetching PyDataset leaves no thread or process behind, however its epoch ends."""
import contextlib
import multiprocessing
import os
import signal
import threading
import traceback

import pytest

import lamina
from lamina import layers

from .pipeline_datasets import Numbered

PARALLEL = [
    pytest.param({"workers": 4}, id="threads"),
    pytest.param({"workers": 2, "use_multiprocessing": True}, id="processes"),
]


@contextlib.contextmanager
def no_leftovers():
    """Checked while the test still holds the exception (``as caught``): its traceback keeps
    the training loop's frames, so the garbage collector cannot have closed the pipeline."""
    before = set(threading.enumerate())
    yield
    # the process's one background compiler of elementwise chains (numba_chain.py) may
    # start during the first fit of the process; it is no pipeline's and outlives none
    after = {t for t in threading.enumerate() if not t.name.startswith("numba-chains")}
    assert after <= before, threading.enumerate()
    assert multiprocessing.active_children() == []


def _model():
    lamina.utils.set_random_seed(5)
    model = lamina.Sequential([layers.Input((3,)), layers.Dense(1)])
    model.compile("sgd", "mse")
    return model


def _workers_running() -> int:
    return len(multiprocessing.active_children()) + sum(
        t.name.startswith("lamina-") for t in threading.enumerate())


class _AtTrainEnd(lamina.callbacks.Callback):
    """Counts the pipeline's threads and processes still running when fit ends (the
    training loop's frames are alive then)."""

    def on_train_end(self, logs=None):
        self.running = _workers_running()


class _AtBatch(lamina.callbacks.Callback):
    """Runs ``action(model)`` at the end of training batch ``at`` (in the training thread),
    after checking that the pipeline's workers are running then."""

    def __init__(self, at, action, pipeline):
        super().__init__()
        self.at, self.action, self.pipeline = at, action, pipeline
        self.workers_seen = None

    def on_train_batch_end(self, batch, logs=None):
        if batch == self.at:
            if self.pipeline.get("use_multiprocessing"):
                self.workers_seen = len(multiprocessing.active_children())
            else:
                self.workers_seen = sum(t.name.startswith("lamina-Numbered")
                                        for t in threading.enumerate())
            self.action(self.model)


@pytest.mark.parametrize("pipeline", PARALLEL)
@pytest.mark.parametrize("method", ["fit", "evaluate", "predict"])
def test_a_workers_exception_is_reraised_with_its_traceback(pipeline, method):
    model = _model()
    with no_leftovers():
        with pytest.raises(ValueError, match=r"^batch 3 is broken\n") as caught:
            getattr(model, method)(Numbered(fail_at=3, **pipeline), verbose=0)
    kind = "process" if pipeline.get("use_multiprocessing") else "thread"
    assert str(caught.value) == "batch 3 is broken"
    assert caught.value.__notes__ == [f"Numbered: raised by __getitem__(3) in a worker {kind}"]
    text = "".join(traceback.format_exception(caught.value))
    assert 'raise ValueError(f"batch {index} is broken")' in text
    assert "in __getitem__" in text


@pytest.mark.parametrize("pipeline", PARALLEL)
def test_stop_training_mid_epoch(pipeline):
    def stop(model):
        model.stop_training = True
    callback, end = _AtBatch(1, stop, pipeline), _AtTrainEnd()
    with no_leftovers():
        history = _model().fit(Numbered(**pipeline), epochs=3, verbose=0,
                               callbacks=[callback, end])
    assert len(history.history["loss"]) == 1
    assert end.running == 0
    assert 1 <= callback.workers_seen <= pipeline["workers"]    # threads start on demand


@pytest.mark.parametrize("pipeline", PARALLEL)
def test_early_stopping(pipeline):
    stopper = lamina.callbacks.EarlyStopping(monitor="loss", patience=0, min_delta=1e9)
    end = _AtTrainEnd()
    with no_leftovers():
        history = _model().fit(Numbered(**pipeline), epochs=5, verbose=0,
                               callbacks=[stopper, end])
    assert end.running == 0
    assert len(history.history["loss"]) == 2 and stopper.stopped_epoch == 1


@pytest.mark.parametrize("pipeline", PARALLEL)
def test_an_exception_in_training(pipeline):
    def fail(model):
        raise RuntimeError("the step failed")
    callback = _AtBatch(2, fail, pipeline)
    with no_leftovers():
        with pytest.raises(RuntimeError, match="the step failed") as caught:
            _model().fit(Numbered(**pipeline), epochs=2, verbose=0, callbacks=[callback])
    assert 1 <= callback.workers_seen <= pipeline["workers"]    # threads start on demand
    assert caught.value.__traceback__ is not None


@pytest.mark.parametrize("pipeline", PARALLEL)
def test_keyboard_interrupt(pipeline):
    def interrupt(model):
        raise KeyboardInterrupt
    with no_leftovers():
        with pytest.raises(KeyboardInterrupt) as caught:
            _model().fit(Numbered(**pipeline), epochs=2, verbose=0,
                         callbacks=[_AtBatch(1, interrupt, {})])
    assert caught.value.__traceback__ is not None


def test_ctrl_c_reaches_the_worker_processes_and_the_training_thread():
    """As a terminal's Ctrl-C does: SIGINT to every worker and to the training process.
    The workers ignore it; the training thread's KeyboardInterrupt shuts them down."""
    pipeline = {"workers": 2, "use_multiprocessing": True}

    def ctrl_c(model):
        for child in multiprocessing.active_children():
            os.kill(child.pid, signal.SIGINT)
        os.kill(os.getpid(), signal.SIGINT)
    callback = _AtBatch(1, ctrl_c, pipeline)
    with no_leftovers():
        with pytest.raises(KeyboardInterrupt) as caught:
            _model().fit(Numbered(**pipeline), epochs=2, verbose=0, callbacks=[callback])
    assert callback.workers_seen == 2
    assert caught.value.__traceback__ is not None


def test_a_worker_process_that_dies_is_an_error_naming_the_batch():
    with no_leftovers():
        with pytest.raises(RuntimeError, match=r"Numbered: a worker process ended abruptly "
                                               r"while fetching batch 2 "
                                               r"\(use_multiprocessing=True\)") as caught:
            _model().fit(Numbered(exit_at=2, workers=2, use_multiprocessing=True),
                         epochs=1, verbose=0)
    assert caught.value.__cause__ is not None
