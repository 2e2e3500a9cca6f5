"""Bad arguments to fit / evaluate / predict and the *_on_batch methods: each is refused
with an error naming the method, the argument, what it accepts and what it received
(issue 10, item 10). Nested Python lists of numbers are data, as numpy arrays are."""
import numpy as np
import pytest

import lamina

from .common import data, fresh_session


def setup_function():
    fresh_session()


def _model():
    model = lamina.Sequential([lamina.Input((4,)), lamina.layers.Dense(3)])
    model.compile(optimizer="sgd", loss="mse")
    return model


def _call(model, method, batch_size):
    x, y = data()
    if method == "fit":
        return model.fit(x, y, batch_size=batch_size, verbose=0)
    if method == "evaluate":
        return model.evaluate(x, y, batch_size=batch_size, verbose=0)
    return model.predict(x, batch_size=batch_size, verbose=0)


@pytest.mark.parametrize("method", ["fit", "evaluate", "predict"])
@pytest.mark.parametrize("value, error, received", [
    (0, ValueError, r"0"),
    (-3, ValueError, r"-3"),
    (2.5, TypeError, r"2\.5 of type float"),
    ("32", TypeError, r"'32' of type str"),
    (True, TypeError, r"True of type bool"),
])
def test_a_batch_size_that_is_not_a_positive_int_is_refused(method, value, error, received):
    with pytest.raises(error, match=rf"^{method}: argument 'batch_size' must be a positive "
                                    rf"int or None; received {received}$"):
        _call(_model(), method, value)


def test_a_numpy_int_batch_size_is_an_int():
    model = _model()
    x, _ = data()
    np.testing.assert_allclose(model.predict(x, batch_size=np.int64(5), verbose=0),
                               model.predict(x, batch_size=5, verbose=0))


@pytest.mark.parametrize("kwargs, error, message", [
    (dict(validation_batch_size=0), ValueError,
     r"fit: argument 'validation_batch_size' must be a positive int or None; received 0"),
    (dict(steps_per_epoch=2.0), TypeError,
     r"fit: argument 'steps_per_epoch' must be a positive int or None; received 2\.0 of "
     r"type float"),
    (dict(validation_steps="1"), TypeError,
     r"fit: argument 'validation_steps' must be a positive int or None; received '1' of type str"),
    (dict(epochs=True), TypeError,
     r"fit: argument 'epochs' must be a non-negative int; received True of type bool"),
    (dict(epochs=2.0), TypeError,
     r"fit: argument 'epochs' must be a non-negative int; received 2\.0 of type float"),
    (dict(initial_epoch="1"), TypeError,
     r"fit: argument 'initial_epoch' must be a non-negative int; received '1' of type str"),
    (dict(initial_epoch=-1), ValueError,
     r"fit: argument 'initial_epoch' must be a non-negative int; received -1"),
    (dict(validation_split="0.2"), TypeError,
     r"fit: argument 'validation_split' must be a float in \[0, 1\); received '0\.2' of "
     r"type str"),
    (dict(validation_split=True), TypeError,
     r"fit: argument 'validation_split' must be a float in \[0, 1\); received True of "
     r"type bool"),
    (dict(validation_split=1.5), ValueError,
     r"fit: argument 'validation_split' must be a float in \[0, 1\); received 1\.5"),
    (dict(validation_split=0.25, validation_freq=1.5), TypeError,
     r"fit: argument 'validation_freq' must be a positive int or a list of epochs; "
     r"received 1\.5 of type float"),
    (dict(validation_split=0.25, validation_freq="1"), TypeError,
     r"fit: argument 'validation_freq' must be a positive int or a list of epochs; "
     r"received '1' of type str"),
    (dict(validation_split=0.25, validation_freq=[1, 0]), ValueError,
     r"fit: argument 'validation_freq' as a list must hold epoch numbers \(positive ints\); "
     r"received \[1, 0\]"),
    (dict(validation_freq=0), ValueError,
     r"fit: argument 'validation_freq' must be a positive int or a list of epochs; "
     r"received 0"),
    (dict(class_weight=[1.0, 2.0]), TypeError,
     r"fit: argument 'class_weight' must be a dict mapping class indices to weights, e\.g\. "
     r"\{0: 1\.0, 1: 5\.0\}; received \[1\.0, 2\.0\] of type list"),
    (dict(class_weight={"0": 1.0}), TypeError,
     r"fit: argument 'class_weight' must have int keys \(class indices\); received the key "
     r"'0' of type str"),
    (dict(class_weight={0: "heavy"}), TypeError,
     r"fit: argument 'class_weight' must have number values; received 'heavy' of type str "
     r"for class 0"),
    (dict(shuffle="yes"), TypeError,
     r"fit: argument 'shuffle' must be True, False or 'batch'; received 'yes' of type str"),
])
def test_fit_arguments_of_the_wrong_type_or_range_are_refused(kwargs, error, message):
    x, y = data()
    with pytest.raises(error, match=rf"^{message}$"):
        _model().fit(x, y, verbose=0, **kwargs)


@pytest.mark.parametrize("method", ["evaluate", "predict"])
def test_steps_of_the_wrong_type_are_a_type_error(method):
    x, y = data()
    args = (x, y) if method == "evaluate" else (x,)
    with pytest.raises(TypeError, match=rf"^{method}: argument 'steps' must be a positive "
                                        rf"int or None; received 2\.0 of type float$"):
        getattr(_model(), method)(*args, steps=2.0, verbose=0)


def test_validation_split_of_a_generator_is_refused():
    x, y = data()

    def batches():
        yield x, y
    with pytest.raises(ValueError, match=r"^fit: argument 'validation_split' is only "
                                         r"supported when x holds arrays or tensors; received "
                                         r"x as a generator\. Pass validation_data instead$"):
        _model().fit(batches(), validation_split=0.25, verbose=0)


def test_class_weight_weighs_the_batches_of_a_generator_as_those_of_arrays():
    # It used to be accepted and ignored for generators.
    x, _ = data()
    y = np.array([0, 1, 2, 1] * 4)
    weights = {0: 1.0, 1: 4.0, 2: 0.5}

    def run(make_x):
        fresh_session()
        model = lamina.Sequential([lamina.Input((4,)),
                                   lamina.layers.Dense(3, activation="softmax")])
        model.compile(optimizer="sgd", loss="sparse_categorical_crossentropy")
        if make_x is None:
            history = model.fit(x, y, batch_size=8, shuffle=False, class_weight=weights,
                                verbose=0)
        else:
            history = model.fit(make_x(), class_weight=weights, verbose=0)
        return history.history["loss"], model.get_weights()

    def batches():
        for i in range(2):
            yield x[i * 8:(i + 1) * 8], y[i * 8:(i + 1) * 8]
    expected_loss, expected_weights = run(None)
    loss, weights_after = run(batches)
    np.testing.assert_allclose(loss, expected_loss, rtol=1e-6)
    for w, e in zip(weights_after, expected_weights):
        np.testing.assert_allclose(w, e, rtol=1e-6, atol=1e-7)
    fresh_session()
    unweighted = lamina.Sequential([lamina.Input((4,)),
                                    lamina.layers.Dense(3, activation="softmax")])
    unweighted.compile(optimizer="sgd", loss="sparse_categorical_crossentropy")
    plain = unweighted.fit(batches(), verbose=0).history["loss"]
    assert abs(plain[0] - loss[0]) > 1e-3            # the weights did change the loss


# ---------------------------------------------------------------- Python lists as data
def test_nested_python_lists_train_and_predict_as_numpy_arrays():
    x, y = data()

    def run(to_data):
        fresh_session()
        model = _model()
        history = model.fit(to_data(x), to_data(y), batch_size=4, shuffle=False, verbose=0)
        return (history.history["loss"], model.predict(to_data(x), verbose=0),
                model.evaluate(to_data(x), to_data(y), verbose=0),
                model.train_on_batch(to_data(x), to_data(y)),
                model.predict_on_batch(to_data(x)))

    expected = run(lambda a: a)
    got = run(lambda a: a.tolist())
    for g, e in zip(got, expected):
        np.testing.assert_allclose(g, e, rtol=1e-6, atol=1e-7)


def test_a_list_of_arrays_is_still_one_array_per_input():
    a = lamina.Input((2,), name="a")
    b = lamina.Input((3,), name="b")
    out = lamina.layers.Dense(1)(lamina.layers.Concatenate()([a, b]))
    model = lamina.Model([a, b], out)
    xa, xb = np.ones((5, 2), "float32"), np.ones((5, 3), "float32")
    expected = model.predict([xa, xb], verbose=0)
    np.testing.assert_allclose(model.predict([xa.tolist(), xb], verbose=0), expected)
    assert expected.shape == (5, 1)


def test_a_ragged_nested_list_is_refused():
    with pytest.raises(ValueError, match=r"^predict: argument 'x' is a ragged nested list "
                                         r"\(its rows have different lengths\); pass rows of "
                                         r"one length, or a numpy array$"):
        _model().predict([[1.0, 2.0, 3.0, 4.0], [1.0]], verbose=0)


# ---------------------------------------------------------------- no samples
def _no_samples_error(method, shape):
    return pytest.raises(ValueError, match=rf"^{method}: argument 'x' holds no samples; "
                                           rf"received arrays of shape {shape}\. Pass at "
                                           rf"least one sample$")


@pytest.mark.parametrize("method", ["fit", "predict", "train_on_batch", "test_on_batch",
                                    "predict_on_batch"])
def test_an_empty_list_is_the_same_no_samples_error_everywhere(method):
    # (zero-row arrays: tests/trainers/test_data_exhaustion.py)
    kwargs = {"verbose": 0} if method in ("fit", "predict") else {}
    args = ([],) if "predict" in method else ([], [])
    with _no_samples_error(method, r"\(0,\)"):
        getattr(_model(), method)(*args, **kwargs)


def test_predict_on_batch_of_zero_rows_is_the_no_samples_error_fit_gives():
    # It used to return an empty array where predict and the other methods refuse.
    with _no_samples_error("predict_on_batch", r"\(0, 4\)"):
        _model().predict_on_batch(np.zeros((0, 4), "float32"))


@pytest.mark.parametrize("method", ["train_on_batch", "predict_on_batch"])
def test_no_arrays_at_all_is_a_clear_error(method):
    with pytest.raises(ValueError, match=rf"^{method}: argument 'x' holds no arrays; "
                                         rf"received a dict of length 0\. Pass at least one "
                                         rf"sample$"):
        getattr(_model(), method)({})
