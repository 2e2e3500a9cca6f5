import numpy as np
import pytest

from lamina import layers, ops
from tests.layers.harness import LayerCase, case_id, run_layer_case

CASES = [
    LayerCase(layers.Softmax, {}, (2, 3), (2, 3), params=0),
    LayerCase(layers.Softmax, dict(axis=1), (2, 3, 4), (2, 3, 4), params=0),
    LayerCase(layers.Softmax, dict(axis=[1, 2]), (2, 3, 4), (2, 3, 4), params=0),
]


@pytest.mark.parametrize("case", CASES, ids=case_id)
def test_softmax_harness(case, backend):
    run_layer_case(case)


def _softmax(x, axis):
    e = np.exp(x - x.max(axis=axis, keepdims=True))
    return e / e.sum(axis=axis, keepdims=True)


@pytest.mark.parametrize("axis", [-1, 1, [1, 2]])
def test_softmax_matches_numpy(axis, backend):
    x = np.random.default_rng(0).standard_normal((2, 3, 4)).astype("float32") * 5
    np_axis = tuple(axis) if isinstance(axis, list) else axis
    np.testing.assert_allclose(layers.Softmax(axis=axis)(x).numpy(), _softmax(x, np_axis),
                               rtol=1e-5, atol=1e-7)


def test_masked_positions_get_a_large_negative_logit(backend):
    x = np.random.default_rng(1).standard_normal((2, 5)).astype("float32")
    mask = np.array([[1, 1, 0, 1, 0], [0, 1, 1, 1, 1]], bool)
    y = layers.Softmax()(x, mask=mask).numpy()
    np.testing.assert_allclose(y, _softmax(x + (1 - mask) * -1e9, -1), rtol=1e-5, atol=1e-7)
    assert np.all(y[~mask] == 0)


def test_mask_broadcasts_and_comes_from_the_input(backend):
    x = np.random.default_rng(2).standard_normal((2, 3, 3)).astype("float32")
    mask = np.array([[[1, 1, 0]], [[1, 0, 0]]], bool)       # (2, 1, 3): over the keys
    y = layers.Softmax()(x, mask=mask).numpy()
    np.testing.assert_allclose(y, _softmax(np.where(mask, x, x - 1e9), -1), rtol=1e-5,
                               atol=1e-7)
    t = ops.convert_to_tensor(x)
    t._keras_mask = ops.convert_to_tensor(np.broadcast_to(mask, x.shape))
    np.testing.assert_allclose(layers.Softmax()(t).numpy(), y, rtol=1e-6)


def test_float16_uses_a_representable_negative(backend):
    x = np.zeros((1, 3), "float16")
    y = layers.Softmax(dtype="float16")(x, mask=np.array([[1, 1, 0]], bool)).numpy()
    assert np.isfinite(y).all() and y[0, 2] == 0
    np.testing.assert_allclose(y[0, :2], 0.5, rtol=1e-3)


def test_rejects_bad_axis():
    with pytest.raises(TypeError, match=r"s: argument 'axis' must be an int or a non-empty "
                                        r"list of ints; received 'last'"):
        layers.Softmax(axis="last", name="s")
    with pytest.raises(ValueError, match=r"s2: argument 'axis' must name axes of the input "
                                         r"\(rank 2\); received axis=2"):
        layers.Softmax(axis=2, name="s2")(np.ones((2, 3), "float32"))


def test_a_timestep_mask_masks_every_feature_of_a_step_in_both_modes():
    # Masking gives a (batch, steps) mask for (batch, steps, features) inputs (fuzzer
    # seeds 510, 878): it used to fail to broadcast in the layer's add.
    import lamina
    x = np.array([[[0.1, 0.2], [1.5, 1.5], [0.3, -0.4]]], "float32")
    inputs = lamina.Input((3, 2))
    model = lamina.Model(inputs, layers.Softmax(axis=1)(layers.Masking(mask_value=1.5)(inputs)))
    e = np.exp(x[0, [0, 2]])
    want = np.zeros_like(x)
    want[0, [0, 2]] = e / e.sum(0)
    np.testing.assert_allclose(model(x).numpy(), want, rtol=1e-6, atol=1e-7)
    np.testing.assert_allclose(model.predict(x, verbose=0), want, rtol=1e-6, atol=1e-7)


def test_a_mask_that_fits_neither_way_is_refused():
    with pytest.raises(ValueError, match=r"sm: the mask must be broadcastable to the inputs "
                                         r"\(each mask size 1 or the input's, or the mask "
                                         r"matching the inputs' leading axes\); received mask "
                                         r"shape \(2, 5\) for input shape \(2, 3, 4\)"):
        layers.Softmax(name="sm")(np.ones((2, 3, 4), "float32"), mask=np.ones((2, 5), bool))


def test_a_mask_larger_than_the_inputs_is_refused():
    # Keras 3.15: each mask size must be 1 or the input's, never larger, nor more axes
    x = np.array([[1.0, 2.0, 1.0]], "float32")
    with pytest.raises(ValueError, match=r"sm: the mask must be broadcastable.*received mask "
                                         r"shape \(2, 3\) for input shape \(1, 3\)"):
        layers.Softmax(name="sm")(x, mask=np.array([[1.0, 0.0, 1.0], [0.0, 1.0, 0.0]]))
    with pytest.raises(ValueError, match=r"must not have more dimensions; received mask shape "
                                         r"\(1, 1, 3\)"):
        layers.Softmax()(x, mask=np.array([[[1.0, 0.0, 1.0]]]))


def test_masked_positions_are_zero_even_in_a_fully_masked_row(backend):
    # Keras 3.15.1's numbers (softmax_test.py): a fully masked row is all zeros, not uniform
    x = np.array([[1.0, 2.0, 5.0, 1.0], [1.0, 1.0, 1.0, 1.0], [3.0, 1.0, 2.0, 4.0]],
                 "float32")
    mask = np.array([[1, 1, 0, 0], [0, 0, 0, 0], [1, 1, 1, 1]], bool)
    want = [[0.268941, 0.731059, 0.0, 0.0], [0.0, 0.0, 0.0, 0.0],
            [0.236883, 0.032059, 0.087144, 0.643914]]
    np.testing.assert_allclose(layers.Softmax()(x, mask=mask).numpy(), want, atol=1e-6)
    # a numeric mask keeps the entries above 0.5, as Keras
    np.testing.assert_allclose(layers.Softmax()(x, mask=mask * 0.75).numpy(), want, atol=1e-6)
