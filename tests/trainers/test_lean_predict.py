"""predict_on_batch's latency path: after a first graph-mode call of an array signature,
the bound plan runs directly; every result, error and retrace stays what it was."""
import numpy as np
import pytest

import lamina
from lamina import layers
from lamina.backend import get_backend
from lamina.ops.fused import DenseBiasAct
from lamina.core.symbolic import SymbolicTensor
from tests.trainers.common import data, fresh_session


setup_function = fresh_session


def mlp():
    model = lamina.Sequential([lamina.Input((4,)), layers.Dense(8, activation="relu"),
                               layers.Dense(3)])
    model.compile("sgd", "mse")
    return model


def test_repeated_calls_use_one_bound_call_and_equal_the_model():
    x, _ = data()
    model = mlp()
    first = model.predict_on_batch(x)
    traces = model.predict_function.function.trace_count
    for _ in range(3):
        got = model.predict_on_batch(x)
        np.testing.assert_array_equal(got, first)
    np.testing.assert_allclose(first, model(x).numpy(), rtol=1e-6, atol=1e-6)
    assert len(model.predict_function._lean) == 1
    assert model.predict_function.function.trace_count == traces


def test_a_result_is_not_overwritten_by_the_next_call():
    x, _ = data()
    model = mlp()
    model.predict_on_batch(x)
    a = model.predict_on_batch(x)
    a_copy = a.copy()
    model.predict_on_batch(-x)
    np.testing.assert_array_equal(a, a_copy)


def test_new_weights_are_read_by_the_bound_call():
    x, _ = data()
    model = mlp()
    model.predict_on_batch(x)
    model.predict_on_batch(x)
    weights = [w * 2 for w in model.get_weights()]
    model.set_weights(weights)
    np.testing.assert_allclose(model.predict_on_batch(x), model(x).numpy(), rtol=1e-6,
                               atol=1e-6)


def test_other_batch_sizes_and_a_structure_change_after_the_bound_call():
    x, _ = data()
    model = mlp()
    model.predict_on_batch(x)
    model.predict_on_batch(x)
    np.testing.assert_allclose(model.predict_on_batch(x[:5]), model(x[:5]).numpy(),
                               rtol=1e-6, atol=1e-6)
    model.add(layers.Dense(2))
    assert model.predict_on_batch(x).shape == (16, 2)
    np.testing.assert_allclose(model.predict_on_batch(x), model(x).numpy(), rtol=1e-6,
                               atol=1e-6)


def test_a_wrong_feature_size_is_still_refused_after_the_bound_call():
    x, _ = data()
    model = mlp()
    model.predict_on_batch(x)
    model.predict_on_batch(x)
    with pytest.raises(lamina.errors.InputShapeError,     # the same refusal as eagerly,
                       match=r"expects shape \(None, 4\); received shape \(16, 5\)"):
        model.predict_on_batch(np.zeros((16, 5), "float32"))   # no fallback, no warning
    assert not model.make_predict_function().eager


def test_dict_outputs_come_back_packed():
    a = lamina.Input((4,), name="a")
    h = layers.Dense(3, name="h")(a)
    model = lamina.Model(a, {"y": h, "z": layers.Dense(2, name="z")(h)})
    model.compile("sgd", "mse")
    x, _ = data()
    model.predict_on_batch(x)
    got = model.predict_on_batch(x)
    assert sorted(got) == ["y", "z"]
    expected = model(x)
    for key in ("y", "z"):
        np.testing.assert_allclose(got[key], expected[key].numpy(), rtol=1e-6, atol=1e-6)


def test_float64_input_is_converted_as_before():
    x, _ = data()
    model = mlp()
    x64 = x.astype("float64")
    first = model.predict_on_batch(x64)
    np.testing.assert_array_equal(model.predict_on_batch(x64), first)
    np.testing.assert_allclose(first, model.predict_on_batch(x), rtol=1e-6, atol=1e-6)


@pytest.mark.parametrize("activation", ["relu", "linear"])
def test_the_bound_dense_kernel_equals_the_forward(activation):
    backend = get_backend()
    rng = np.random.default_rng(1)
    x, w, b = (rng.standard_normal(s).astype("float32") for s in ((3, 4), (4, 5), (5,)))
    specs = [SymbolicTensor(a.shape, "float32") for a in (x, w, b)]
    out = np.empty((3, 5), "float32")
    run = DenseBiasAct.bind(backend, specs, out=out, activation=activation)
    got = run(x, w, b)
    assert got is out
    expected = DenseBiasAct.forward(backend, x, w, b, activation=activation)
    np.testing.assert_array_equal(got, expected)
    fresh = DenseBiasAct.bind(backend, specs, activation=activation)(x, w, b)
    assert fresh is not out
    np.testing.assert_array_equal(fresh, expected)


def test_no_bound_dense_kernel_for_half_dtypes_or_a_saved_mask():
    backend = get_backend()
    f32 = [SymbolicTensor((3, 4), "float32"), SymbolicTensor((4, 5), "float32")]
    bf16 = [SymbolicTensor((3, 4), "bfloat16"), SymbolicTensor((4, 5), "bfloat16")]
    out = np.empty((3, 5), "float32")
    assert DenseBiasAct.bind(backend, bf16, out=out, activation="relu") is None
    assert DenseBiasAct.bind(backend, f32, out=out, activation="relu", save_mask=True) is None
    assert DenseBiasAct.bind(backend, f32, out=(out, out), activation="relu") is None
    assert DenseBiasAct.bind(backend, f32, out=out, activation="tanh") is None
