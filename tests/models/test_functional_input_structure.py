"""How a functional model matches the structure it is called with to its Inputs (Keras 3:
warn when a structure still lines up, fail when it cannot), and the messages of a call
that does not fit."""
import warnings

import numpy as np
import pytest

import lamina
from lamina import layers

PHRASE = "The structure of `inputs` doesn't match the expected structure"


def setup_function():
    lamina.backend.clear_session(free_memory=False)


def _structure_warnings(record) -> list:
    return [w for w in record if str(w.message).startswith(PHRASE)]


def test_a_list_for_a_dict_model_with_sorted_keys_warns_once_and_runs():
    i1, i2 = lamina.Input((2,), name="i1"), lamina.Input((2,), name="i2")
    model = lamina.Model({"i1": i1, "i2": i2}, layers.Subtract()([i1, i2]))
    with warnings.catch_warnings(record=True) as record:
        warnings.simplefilter("always")
        y = model.predict([np.ones((2, 2)), np.zeros((2, 2))], verbose=0)
        model([np.ones((2, 2)), np.zeros((2, 2))])
    assert len(_structure_warnings(record)) == 1
    np.testing.assert_array_equal(y, np.ones((2, 2)))       # i1 - i2: keys sorted


def test_a_tuple_for_a_list_model_does_not_warn():
    i1, i2 = lamina.Input((2,)), lamina.Input((2,))
    model = lamina.Model([i1, i2], layers.Add()([i1, i2]))
    with warnings.catch_warnings(record=True) as record:
        warnings.simplefilter("always")
        model.predict((np.ones((2, 2)), np.zeros((2, 2))), verbose=0)
    assert _structure_warnings(record) == []


def test_a_list_for_a_dict_model_with_unsorted_keys_is_an_error():
    x1, x2 = lamina.Input((10,), name="IT"), lamina.Input((10,), name="IS")
    model = lamina.Model(inputs={"IT": x1, "IS": x2}, outputs=layers.subtract([x1, x2]))
    y = model({"IT": np.ones((1, 10)), "IS": np.zeros((1, 10))})
    np.testing.assert_array_equal(np.asarray(y), np.ones((1, 10)))
    with pytest.raises(ValueError, match=r"^The structure of `inputs` doesn't match the "
                                         r"expected structure: .*keys \['IT', 'IS'\] are not "
                                         r"in sorted order"):
        model([np.ones((1, 10)), np.zeros((1, 10))])


def test_extra_dict_keys_warn_on_values_and_are_ignored():
    a = lamina.Input((3,), batch_size=2, name="a")
    model = lamina.Model({"a": a}, a * 5 + 2)
    with warnings.catch_warnings(record=True) as record:
        warnings.simplefilter("always")
        y = model({"a": np.ones((2, 3)), "b": np.ones((2, 1))})
    assert len(_structure_warnings(record)) == 1
    np.testing.assert_array_equal(np.asarray(y), np.full((2, 3), 7.0))


def test_one_array_for_a_dict_model_names_the_keys():
    a, b = lamina.Input((4,), name="a"), lamina.Input((4,), name="b")
    model = lamina.Model({"a": a, "b": b}, layers.Dense(2)(a + b), name="m")
    with pytest.raises(ValueError, match=r"m: expects 2 named input\(s\) with keys "
                                         r"\['a', 'b'\]; received 1"):
        model(np.zeros((2, 3)))


def test_shape_messages_carry_keras_phrases():
    x = lamina.Input((4,), name="x")
    model = lamina.Model(x, layers.Dense(2)(x), name="m")
    with pytest.raises(ValueError, match=r"^m: input 'x' expects shape \(None, 4\); received "
                                         r"shape \(2, 3\) \(input 0 with name 'x' and path '': "
                                         r"expected shape=\(None, 4\), found "
                                         r"shape=\(2, 3\)\)$"):
        model(np.zeros((2, 3)))
    nested = [{"foo": lamina.Input((3,), name="my_input")}]
    model = lamina.Model(nested, layers.Dense(3)(nested[0]["foo"]))
    with pytest.raises(ValueError, match=r"name 'my_input' and path '0.foo'"):
        model(np.zeros(()))
