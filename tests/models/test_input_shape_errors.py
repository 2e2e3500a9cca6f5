"""Issue 24 items 2 and 4: data that fits no Input is one clear error, in every entry point
and mode, naming the user's model, the input, both shapes and the likely fix; no warning
about falling back to eager mode, no chained tracebacks, no internal names."""
import warnings

import numpy as np
import pytest

import lamina
from lamina import layers
from lamina.errors import InputShapeError

X = np.zeros((5, 28, 28), "float32")
Y = np.zeros((5, 10), "float32")


def setup_function():
    lamina.backend.clear_session()          # the Input is called 'input_layer'


def _sequential():
    model = lamina.Sequential([lamina.Input((28, 28)), layers.Flatten(), layers.Dense(10)],
                              name="digits")
    model.compile("sgd", "mse")
    return model


def _functional():
    inputs = lamina.Input((28, 28), name="image")
    model = lamina.Model(inputs, layers.Dense(10)(layers.Flatten()(inputs)), name="net")
    model.compile("sgd", "mse")
    return model


CALLS = {
    "predict": lambda m, x: m.predict(x, verbose=0),
    "fit": lambda m, x: m.fit(x, Y[:len(x)] if len(x) <= 5 else None, verbose=0),
    "evaluate": lambda m, x: m.evaluate(x, Y[:len(x)], verbose=0),
    "call": lambda m, x: m(x),
    "predict_on_batch": lambda m, x: m.predict_on_batch(x),
}


@pytest.mark.parametrize("call", ["predict", "call", "predict_on_batch"])
@pytest.mark.parametrize("make, name, input_name", [(_sequential, "digits", "input_layer"),
                                                    (_functional, "net", "image")])
def test_a_sample_without_its_batch_axis(make, name, input_name, call):
    model = make()
    with warnings.catch_warnings():
        warnings.simplefilter("error")            # no "runs eagerly instead" warning
        with pytest.raises(InputShapeError) as info:
            CALLS[call](model, X[0])
    assert str(info.value) == (
        f"{name}: input '{input_name}' expects shape (None, 28, 28); received shape "
        f"(28, 28). It looks like one sample without its batch axis: add one with x[None] "
        f"(or np.expand_dims(x, 0)) (input 0 with name '{input_name}' and path '': expected "
        f"shape=(None, 28, 28), found shape=(28, 28))")
    assert info.value.__cause__ is None and info.value.__suppress_context__


def test_an_extra_leading_axis_and_swapped_axes_are_named():
    model = _sequential()
    with pytest.raises(InputShapeError, match=r"received shape \(1, 5, 28, 28\)\. It has an "
                                              r"extra leading axis of size 1: pass x\[0\]"):
        model.predict(X[None], verbose=0)
    with pytest.raises(InputShapeError, match=r"digits: input 'input_layer(_1)?' expects "
                                              r"shape \(None, 20\); received shape "
                                              r"\(5, 28, 28\) \(input 0 with name "
                                              r"'input_layer(_1)?' and path '': expected "
                                              r"shape=\(None, 20\), found "
                                              r"shape=\(5, 28, 28\)\)$"):
        lamina.Sequential([lamina.Input((20,)), layers.Dense(2)], name="digits")(X)


def test_fit_and_evaluate_raise_the_same_error_with_a_graph_step():
    model = _sequential()
    for call in ("fit", "evaluate"):
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            with pytest.raises(InputShapeError, match=r"^digits: input 'input_layer' expects "
                                                      r"shape \(None, 28, 28\); received "
                                                      r"shape \(5, 28\)"):
                CALLS[call](model, X[:, 0])
    assert not model.make_train_function().eager         # still a graph step afterwards
