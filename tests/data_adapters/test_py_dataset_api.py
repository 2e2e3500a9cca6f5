"""PyDataset's Keras 3 surface: its pipeline arguments, ``num_batches``, the epoch hooks and
the errors of bad settings."""
import warnings

import numpy as np
import pytest

import lamina
from lamina import layers
from lamina.core import ignored_arguments

from .pipeline_datasets import Endless, Numbered, Watched


@pytest.fixture(autouse=True)
def _fresh_warnings(monkeypatch):
    monkeypatch.setattr(ignored_arguments, "_warned", set())


def _model():
    lamina.utils.set_random_seed(5)
    model = lamina.Sequential([layers.Input((3,)), layers.Dense(1)])
    model.compile("sgd", "mse")
    return model


def test_pipeline_arguments_are_kept_and_say_nothing():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        data = Numbered(workers=3, use_multiprocessing=True, max_queue_size=4)
    assert (data.workers, data.use_multiprocessing, data.max_queue_size) == (3, True, 4)
    data.workers, data.max_queue_size = 0, 1
    assert (data.workers, data.max_queue_size) == (0, 1)


def test_keras_defaults_also_without_super_init():
    class Bare(lamina.utils.PyDataset):
        def __init__(self):                  # forgot super().__init__()
            pass

        def __len__(self):
            return 2

        def __getitem__(self, index):
            return np.ones((1, 3), "float32"), np.ones((1, 1), "float32")
    data = Bare()
    assert (data.workers, data.use_multiprocessing, data.max_queue_size) == (1, False, 10)
    assert data.num_batches == 2 and len(list(data)) == 2
    _model().fit(data, epochs=1, verbose=0)


@pytest.mark.parametrize("argument,value,expected", [
    ("workers", -1, "an int >= 0"), ("workers", 2.0, "an int >= 0"),
    ("workers", True, "an int >= 0"),
    ("max_queue_size", 0, "an int >= 1"), ("max_queue_size", None, "an int >= 1"),
])
def test_bad_pipeline_arguments(argument, value, expected):
    with pytest.raises(ValueError, match=rf"^Numbered: argument '{argument}' must be "
                                         rf"{expected}; received {value!r}$"):
        Numbered(**{argument: value})
    if value is None:
        return                      # fit(max_queue_size=None): the dataset's own setting
    with pytest.raises(ValueError, match=rf"^fit: argument '{argument}' must be {expected}; "
                                         rf"received {value!r}$"):
        _model().fit(Numbered(), epochs=1, verbose=0, **{argument: value})


def test_num_batches_len_and_iteration():
    assert Numbered().num_batches == len(Numbered()) == 8
    endless = Endless()
    assert endless.num_batches is None
    with pytest.raises(TypeError, match=r"^Endless is infinite \(num_batches is None\) "
                                        r"and has no length$"):
        len(endless)
    first = [int(batch[0][0, 0]) for _, batch in zip(range(3), endless)]
    assert first == [0, 1, 2]

    class Counted(lamina.utils.PyDataset):
        @property
        def num_batches(self):
            return 3

        def __getitem__(self, index):
            return np.full((1, 3), index, "float32")
    assert len(Counted()) == 3 and [int(x[0, 0]) for x in Counted()] == [0, 1, 2]


def test_a_dataset_without_len_or_num_batches():
    class Empty(lamina.utils.PyDataset):
        pass
    with pytest.raises(NotImplementedError, match=r"^Empty must define __len__ \(the number "
                                                  r"of batches per epoch\) or the "
                                                  r"num_batches property"):
        Empty().num_batches
    with pytest.raises(NotImplementedError, match=r"^Empty must define __getitem__"):
        Empty()[0]


@pytest.mark.parametrize("pipeline", [{}, {"workers": 2}])
def test_epoch_hooks_run_around_every_epoch(pipeline):
    calls = []

    class Hooked(Watched):
        def on_epoch_begin(self):
            calls.append(("begin", len(self.requested)))

        def on_epoch_end(self):
            calls.append(("end", len(self.requested)))
    _model().fit(Hooked(count=3, delay=0.0, **pipeline), epochs=2, verbose=0)
    assert calls == [("begin", 0), ("end", 3), ("begin", 3), ("end", 6)]


def test_fit_arguments_with_a_pydataset_say_nothing():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        _model().fit(Numbered(), epochs=1, verbose=0, workers=2, max_queue_size=2)
        _model().fit(np.zeros((4, 3), "float32"), np.zeros((4, 1), "float32"), epochs=1,
                     verbose=0, validation_data=Numbered(), workers=2)


def test_fit_arguments_with_a_generator_warn():
    def batches():
        for i in range(2):
            yield np.zeros((2, 3), "float32"), np.zeros((2, 1), "float32")
    with pytest.warns(UserWarning, match=r"^Sequential.fit: argument 'workers' \(workers=2\) "
                                         r"has no effect in Lamina: only a PyDataset's "
                                         r"batches are fetched by workers"):
        _model().fit(batches(), epochs=1, verbose=0, workers=2)
