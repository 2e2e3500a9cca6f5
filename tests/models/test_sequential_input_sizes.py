"""A Sequential takes data of its Input's rank but other sizes when its layers do (Keras 3
checks no sizes against a Sequential's Input; its layers check them): Keras 3.15.1 gives
Sequential([Input((5, 7)), Flatten()]).predict(ones((2, 7, 5))) of shape (2, 35). When the
layers refuse the data, the error is the input's own; a functional model keeps its check."""
import numpy as np
import pytest

import lamina
from lamina import layers
from lamina.errors import InputShapeError


@pytest.mark.parametrize("run", ["call", "predict"])
def test_other_sizes_run_when_the_layers_take_them(run):
    model = lamina.Sequential([lamina.Input((5, 7)), layers.Flatten()])
    x = np.arange(70, dtype="float32").reshape(2, 7, 5)
    out = model(x) if run == "call" else model.predict(x, verbose=0)
    out = np.asarray(out.numpy() if hasattr(out, "numpy") else out)
    assert out.shape == (2, 35)
    np.testing.assert_array_equal(out, x.reshape(2, 35))


def test_a_model_built_from_data_takes_other_sizes():
    def batches():
        yield (np.ones((3, 5, 7), "float32"),)
        yield (np.ones((2, 7, 5), "float32"),)
    model = lamina.Sequential([layers.Flatten()])
    assert model.predict(batches(), verbose=0).shape == (5, 35)


def test_fit_with_varying_lengths():
    def batches():
        yield np.ones((1, 12, 2), "float32"), np.zeros((1, 3, 8), "float32")
        yield np.ones((1, 20, 2), "float32"), np.zeros((1, 5, 8), "float32")
    model = lamina.Sequential([layers.Reshape((-1, 8))])
    model.compile(loss="mse")
    model.fit(batches(), steps_per_epoch=2, epochs=1, verbose=0)
    assert tuple(model(np.ones((1, 24, 2), "float32")).shape) == (1, 6, 8)


def test_sizes_the_layers_refuse_give_the_input_error():
    model = lamina.Sequential([lamina.Input((5, 7)), layers.Dense(3)], name="net")
    with pytest.raises(InputShapeError, match=r"^net: input '.*' expects shape "
                                              r"\(None, 5, 7\); received shape \(2, 7, 5\)"):
        model(np.ones((2, 7, 5), "float32"))
    model.compile("sgd", "mse")
    with pytest.raises(InputShapeError, match=r"expects shape \(None, 5, 7\)"):
        model.fit(np.ones((2, 7, 5), "float32"), np.ones((2, 7, 3), "float32"), verbose=0)


def test_a_functional_model_keeps_its_size_check():
    inputs = lamina.Input((5, 7))
    model = lamina.Model(inputs, layers.Flatten()(inputs), name="f")
    with pytest.raises(InputShapeError, match=r"^f: input '.*' expects shape \(None, 5, 7\)"):
        model(np.ones((2, 7, 5), "float32"))
