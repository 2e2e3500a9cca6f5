"""Issue 24 item 7: string data names the argument and the two fixes."""
import numpy as np
import pytest

import lamina
from lamina.errors import ArgumentTypeError


def _model():
    model = lamina.Sequential([lamina.Input((3,)), lamina.layers.Dense(2)])
    model.compile("sgd", "sparse_categorical_crossentropy")
    return model


def test_string_labels_name_y_and_both_fixes():
    with pytest.raises(ArgumentTypeError, match=r"^fit: argument 'y' holds strings \(dtype "
                                                r"<U4\); a model takes numbers: integer-encode "
                                                r"the labels .*np\.unique\(y, return_inverse="
                                                r"True\).* or map them with a lamina\.layers\."
                                                r"StringLookup layer"):
        _model().fit(np.zeros((4, 3)), np.array(["cat", "dog", "cat", "bird"]), verbose=0)


def test_string_inputs_name_x_and_the_layers_that_take_strings():
    with pytest.raises(ArgumentTypeError, match=r"^predict: argument 'x' holds strings .*"
                                                r"StringLookup or TextVectorization layer"):
        _model().predict(np.array([["a", "b", "c"]]), verbose=0)


def test_object_arrays_say_how_to_convert():
    with pytest.raises(TypeError, match=r"argument 'x' holds Python objects \(dtype object\)"
                                        r".*np\.asarray"):
        _model().predict(np.array([[None, 1, 2]], dtype=object), verbose=0)
