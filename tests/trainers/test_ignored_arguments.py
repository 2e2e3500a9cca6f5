"""Keras arguments Lamina cannot honour warn once, naming the class, the argument and why."""
import warnings

import numpy as np
import pytest

import lamina
from lamina import layers
from lamina.core import ignored_arguments


@pytest.fixture(autouse=True)
def _fresh_warnings(monkeypatch):
    monkeypatch.setattr(ignored_arguments, "_warned", set())


def _model():
    model = lamina.Sequential([layers.Input((3,)), layers.Dense(1)])
    return model


def _caught(fn):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        fn()
    return [str(w.message) for w in caught if "has no effect in Lamina" in str(w.message)]


@pytest.mark.parametrize("argument,value,reason", [
    ("jit_compile", True, r"there is no XLA"),
    ("distribute", "mirrored", r"a Keras 2 / TensorFlow-only argument"),
])
def test_compile_argument_warns_once(argument, value, reason):
    messages = _caught(lambda: [_model().compile("sgd", "mse", **{argument: value})
                                for _ in range(2)])
    assert len(messages) == 1
    assert messages[0].startswith(f"Sequential.compile: argument '{argument}' "
                                  f"({argument}={value!r}) has no effect in Lamina: ")
    assert reason.replace("\\", "") in messages[0]


def test_compile_defaults_do_not_warn():
    assert _caught(lambda: _model().compile("sgd", "mse", jit_compile="auto",
                                            auto_scale_loss=True)) == []


def test_steps_per_execution_is_not_ignored():
    assert _caught(lambda: _model().compile("sgd", "mse", steps_per_execution=4)) == []


@pytest.mark.parametrize("method", ["fit", "evaluate", "predict"])
def test_data_arguments_warn_once_per_method(method):
    model = _model()
    model.compile("sgd", "mse")
    x, y = np.zeros((4, 3), "float32"), np.zeros((4, 1), "float32")
    args = (x,) if method == "predict" else (x, y)
    call = getattr(model, method)
    messages = _caught(lambda: [call(*args, verbose=0, workers=4, use_multiprocessing=True)
                                for _ in range(2)])
    reason = ("only a PyDataset's batches are fetched by workers (array data is sliced, and "
              "a generator drawn, in the calling thread)")
    assert sorted(messages) == [
        f"Sequential.{method}: argument 'use_multiprocessing' (use_multiprocessing=True) has "
        f"no effect in Lamina: {reason}",
        f"Sequential.{method}: argument 'workers' (workers=4) has no effect in Lamina: "
        f"{reason}"]


@pytest.mark.parametrize("layer", [layers.LSTM, layers.GRU])
def test_use_cudnn_true_warns_once_and_auto_says_nothing(layer):
    messages = _caught(lambda: [layer(2, use_cudnn=True) for _ in range(2)])
    assert len(messages) == 1
    assert messages[0].startswith(f"{layer.__name__}: argument 'use_cudnn' (use_cudnn=True) "
                                  f"has no effect in Lamina: Lamina has no cuDNN kernels")
    assert _caught(lambda: layer(2, use_cudnn="auto")) == []
