"""Sequential models called on a list or dict (Keras 3 runs the layers one after the other
on the structure) and layers that cannot be stacked."""
import numpy as np
import pytest

import lamina
from lamina import layers


def setup_function():
    lamina.backend.clear_session(free_memory=False)


class _Swap(layers.Layer):
    """Takes and returns a structure: a list reversed, or a dict's values swapped."""

    def call(self, inputs):
        if isinstance(inputs, dict):
            return {"a": inputs["b"], "b": inputs["a"]}
        return list(reversed(inputs))


def test_a_list_runs_through_the_layers_unchanged_in_kind():
    model = lamina.Sequential([_Swap(), _Swap(), _Swap()])
    x = [np.ones((3, 2), "float32"), np.zeros((3, 2), "float32")]
    y = model(x)
    assert type(y) is list
    np.testing.assert_array_equal(np.asarray(y[0]), x[1])
    np.testing.assert_array_equal(np.asarray(y[1]), x[0])
    assert model.built
    model.summary(print_fn=lambda *args, **kwargs: None)


def test_a_dict_runs_through_the_layers():
    model = lamina.Sequential([_Swap()])
    y = model({"a": np.ones((3, 2), "float32"), "b": np.zeros((3, 2), "float32")})
    assert type(y) is dict
    np.testing.assert_array_equal(np.asarray(y["a"]), np.zeros((3, 2)))


def test_other_inputs_are_refused():
    model = lamina.Sequential([layers.Dense(2)])
    with pytest.raises(ValueError, match=r"takes one tensor \(or a list or dict of "
                                         r"tensors\) as input; received str"):
        model("x")


def test_a_layer_with_two_required_positional_arguments_cannot_be_stacked():
    class NeedsTraining(layers.Layer):
        def call(self, inputs, training):
            return inputs

    model = lamina.Sequential(name="seq")
    model.add(NeedsTraining(name="bad"))
    with pytest.raises(ValueError, match=r"seq: Layers added to a Sequential model can only "
                                         r"have a single required positional argument.*"
                                         r"'bad'.*\['inputs', 'training'\]"):
        model.build((None, 2))


def test_a_layer_without_positional_arguments_cannot_be_stacked():
    class KeywordsOnly(layers.Layer):
        def call(self, *, inputs=None):
            return inputs

    model = lamina.Sequential([lamina.Input((2,))], name="seq")
    with pytest.raises(ValueError, match=r"should have a single positional argument.*"
                                         r"no positional arguments"):
        model.add(KeywordsOnly(name="kw"))

