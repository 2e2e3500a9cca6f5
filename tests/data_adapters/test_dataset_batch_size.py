"""Keras ignores ``batch_size`` when x is a dataset: Lamina says so once and trains (issue
22, cause 5); ``y`` with a dataset is still an error."""
import warnings

import numpy as np
import pytest

import lamina
from lamina.core import ignored_arguments


class _Batches(lamina.utils.PyDataset):
    def __len__(self):
        return 2

    def __getitem__(self, i):
        return np.ones((4, 3), "float32"), np.ones((4, 1), "float32")


def _model():
    model = lamina.Sequential([lamina.Input((3,)), lamina.layers.Dense(1)])
    model.compile("sgd", "mse")
    return model


def test_batch_size_with_a_py_dataset_warns_and_trains(monkeypatch):
    monkeypatch.setattr(ignored_arguments, "_warned", set())
    model = _model()
    with pytest.warns(UserWarning, match="fit: argument 'batch_size'.*no effect"):
        history = model.fit(_Batches(), batch_size=64, epochs=1, verbose=0)
    assert len(history.history["loss"]) == 1
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        model.fit(_Batches(), batch_size=64, epochs=1, verbose=0)   # once only


def test_y_with_a_py_dataset_is_still_refused():
    with pytest.raises(ValueError, match="argument 'y' must not be given"):
        _model().fit(_Batches(), np.ones((8, 1), "float32"), verbose=0)
