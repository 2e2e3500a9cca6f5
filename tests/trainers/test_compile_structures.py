"""``compile(loss=..., metrics=..., loss_weights=...)`` laid over nested outputs (lists,
dicts, namedtuples, deeper nestings), as Keras 3's CompileLoss / CompileMetrics do. The
expected numbers and names are Keras 3.15.1's (JAX backend) for the same models and data."""
from collections import namedtuple

import numpy as np
import pytest

import lamina
from lamina import layers, losses, tree

X = np.arange(24, dtype="float32").reshape(8, 3) / 24.0
Y1 = np.arange(8, dtype="float32").reshape(8, 1) / 8.0
Y2 = (np.arange(8) % 2).astype("float32").reshape(8, 1)
Y = namedtuple("Y", ["p", "q"])


def dense(name, activation=None, k=0.1):
    return layers.Dense(1, name=name, activation=activation,
                        kernel_initializer=lamina.initializers.Constant(k))


def struct_loss(y_true, y_pred):
    """A loss over a structure of outputs (or one output): the sum of the leaves' MAEs."""
    tree.assert_same_structure(tree.lists_to_tuples(y_true), tree.lists_to_tuples(y_pred))
    diff = 0
    for y_p, y_t in zip(tree.flatten(y_pred), tree.flatten(y_true)):
        diff += losses.mean_absolute_error(y_t, y_p)
    return diff


def two_outputs(kind):
    x = lamina.Input((3,), name="x")
    a, b = dense("output_a")(x), dense("output_b", "sigmoid", 0.2)(x)
    return lamina.Model(x, {"output_a": a, "output_b": b} if kind == "dict" else [a, b])


def fit(model, y, run_eagerly, sample_weight=None, **compile_args):
    model.compile(optimizer="sgd", run_eagerly=run_eagerly, **compile_args)
    history = model.fit(X, y, batch_size=4, epochs=2, verbose=0, shuffle=False,
                        sample_weight=sample_weight).history
    return {key: np.asarray(value) for key, value in history.items()}


def check(history, expected):
    assert sorted(history) == sorted(expected)
    for key, values in expected.items():
        np.testing.assert_allclose(history[key], values, rtol=2e-5, atol=1e-6, err_msg=key)


MODES = pytest.mark.parametrize("run_eagerly", [False, True])


@MODES
def test_dict_outputs_with_a_list_of_one_loss_and_weighted_metrics(run_eagerly):
    history = fit(two_outputs("dict"), {"output_a": Y1, "output_b": Y2}, run_eagerly,
                  loss={"output_a": "mean_squared_error", "output_b": ["binary_crossentropy"]},
                  metrics={"output_a": ["mean_squared_error"],
                           "output_b": ["mean_squared_error", "accuracy"]},
                  weighted_metrics={"output_a": ["mean_squared_error"],
                                    "output_b": ["mean_squared_error", "accuracy"]})
    check(history, {
        "loss": [0.812804, 0.797394], "output_a_loss": [0.124504, 0.109208],
        "output_a_mean_squared_error": [0.124504, 0.109208],
        "output_a_weighted_mean_squared_error": [0.124504, 0.109208],
        "output_b_accuracy": [0.5, 0.5], "output_b_loss": [0.6883, 0.688186],
        "output_b_mean_squared_error": [0.247656, 0.247599],
        "output_b_weighted_accuracy": [0.5, 0.5],
        "output_b_weighted_mean_squared_error": [0.247656, 0.247599]})


@MODES
def test_list_outputs_with_dict_losses_weights_and_metrics(run_eagerly):
    # A weighted metric named as an unweighted one logs as <output>_weighted_<name>;
    # one only among the weighted metrics keeps its name (output_b_accuracy).
    history = fit(two_outputs("list"), (Y1, Y2), run_eagerly,
                  sample_weight=np.linspace(0.5, 1.5, 8),
                  loss={"output_a": "mean_squared_error", "output_b": "binary_crossentropy"},
                  loss_weights={"output_a": 0.5, "output_b": 2.0},
                  metrics={"output_a": ["mean_squared_error"],
                           "output_b": ["mean_squared_error"]},
                  weighted_metrics={"output_a": ["mean_squared_error"],
                                    "output_b": ["accuracy"]})
    check(history, {
        "loss": [1.446092, 1.439534], "output_a_loss": [0.163909, 0.151229],
        "output_a_mean_squared_error": [0.125636, 0.115641],
        "output_a_weighted_mean_squared_error": [0.163909, 0.151229],
        "output_b_accuracy": [0.535714, 0.535714], "output_b_loss": [0.682069, 0.68196],
        "output_b_mean_squared_error": [0.247677, 0.247599]})


@MODES
def test_a_loss_over_the_whole_tuple_of_outputs_with_nested_weights(run_eagerly):
    x = lamina.Input((3,), name="x")
    model = lamina.Model(x, (dense("y1", "sigmoid")(x), dense("y2", "sigmoid", 0.3)(x)))
    history = fit(model, (Y1, Y2), run_eagerly, loss=[struct_loss, (struct_loss, "mse")],
                  loss_weights=[0.5, (2.0, 1.0)])
    check(history, {"loss": [1.100089, 1.099236], "y1_loss": [0.242123, 0.241806],
                    "y1_y2_loss": [0.728876, 0.728564], "y2_loss": [0.251405, 0.251342]})


@MODES
def test_namedtuple_outputs(run_eagerly):
    x = lamina.Input((3,), name="x")
    model = lamina.Model(x, Y(dense("y1", "sigmoid")(x), dense("y2", "sigmoid", 0.3)(x)))
    history = fit(model, Y(Y1, Y2), run_eagerly, loss=[struct_loss, Y("mse", struct_loss)])
    check(history, {"loss": [1.295532, 1.29513], "y1_loss": [0.080134, 0.079986],
                    "y1_y2_loss": [0.728648, 0.728414], "y2_loss": [0.486751, 0.48673]})


@MODES
def test_deeply_nested_outputs_name_losses_by_path(run_eagerly):
    x = lamina.Input((3,), name="x")
    a, b = dense("y1", "sigmoid")(x), dense("y2", "sigmoid", 0.3)(x)
    c = dense("y3", "sigmoid", -0.2)(x)
    model = lamina.Model(x, {"a": (a, b), "b": {"b1": a, "b2": b}, "d": c})
    history = fit(model, {"a": (Y1, Y2), "b": {"b1": Y1, "b2": Y2}, "d": Y2}, run_eagerly,
                  loss={"a": [struct_loss, (None, "mse")], "b": [struct_loss, {"b1": "mae"}],
                        "d": "mse"})
    check(history, {"a/y2_loss": [0.251418, 0.251371], "a_loss": [0.728998, 0.728607],
                    "b/b1_loss": [0.242249, 0.241868], "b_loss": [0.728998, 0.728607],
                    "d_loss": [0.265883, 0.265783], "loss": [2.217544, 2.216235]})


@MODES
def test_a_list_of_losses_for_one_output_adds_them(run_eagerly):
    history = fit(two_outputs("list"), (Y1, Y2), run_eagerly,
                  loss=["mean_squared_error", ["mean_squared_error", "binary_crossentropy"]])
    check(history, {"loss": [1.060456, 1.044907], "output_a_loss": [0.124504, 0.109208],
                    "output_b_loss": [0.688298, 0.688128]})


def test_loss_trackers_weight_batches_by_their_size():
    model = two_outputs("list")
    model.compile(loss=["mse", "bce"])
    logs = model.evaluate(X, (Y1, Y2), batch_size=3, verbose=0, return_dict=True)
    np.testing.assert_allclose([logs["loss"], logs["output_a_loss"], logs["output_b_loss"]],
                               [0.81478703, 0.12648436, 0.6883027], rtol=1e-6)


def test_a_custom_compute_loss_may_split_one_output():
    class Split(lamina.Model):
        def compute_loss(self, x, y, y_pred, sample_weight=None, **kwargs):
            return super().compute_loss(x=x, y=y, y_pred=[y_pred, y_pred],
                                        sample_weight=sample_weight, **kwargs)
    x = lamina.Input((3,))
    model = Split(x, dense("a")(x))
    model.compile(optimizer="sgd", loss=["mean_squared_error", "binary_crossentropy"])
    history = model.fit(X, (Y1, Y2), batch_size=4, epochs=1, verbose=0).history
    assert sorted(history) == ["binary_crossentropy_loss", "loss", "mean_squared_error_loss"]


@pytest.mark.parametrize("kind, arg, error, match", [
    ("dict", "loss", KeyError, "in the `loss` argument, can't be found in either the "
                               "model's output"),
    ("list", "loss", ValueError, r"Expected keys \['output_a', 'output_b'\] in loss dict"),
    ("dict", "metrics", ValueError, r"(?s)Invalid `metrics`.*output_c"),
    ("list", "metrics", ValueError, r"(?s)Invalid `metrics`.*output_c"),
])
def test_keys_that_name_no_output(kind, arg, error, match):
    model = two_outputs(kind)
    args = {"loss": {"output_a": "mse", "output_c": "bce"}} if arg == "loss" else \
        {"loss": "mse", "metrics": {"output_c": ["mse"]}}
    model.compile(optimizer="sgd", **args)
    with pytest.raises(error, match=match):
        model.fit(X, (Y1, Y2), batch_size=4, epochs=1, verbose=0)


def test_metrics_must_be_a_list_or_dict():
    with pytest.raises(ValueError, match="Expected `metrics` argument to be a list, tuple"):
        two_outputs("list").compile(loss="mse", metrics="mae")


def test_a_loss_function_wrapper_takes_structures_of_arrays():
    # Keras 3's Loss converts every leaf of y_true and y_pred (lists, tuples, dicts).
    y_pred = (np.full((8, 1), 0.25, "float32"), np.full((8, 1), 0.75, "float32"))
    value = losses.LossFunctionWrapper(struct_loss)((Y1, Y2), y_pred)
    expected = np.mean(np.abs(Y1 - 0.25)) + np.mean(np.abs(Y2 - 0.75))
    np.testing.assert_allclose(value.numpy(), expected, rtol=1e-6)
