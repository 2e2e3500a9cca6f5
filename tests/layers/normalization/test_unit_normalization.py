import numpy as np
import pytest

from lamina import layers
from tests.layers.harness import LayerCase, case_id, run_layer_case

CASES = [
    LayerCase(layers.UnitNormalization, {}, (2, 3), (2, 3), trainable_weights=0, params=0),
    LayerCase(layers.UnitNormalization, dict(axis=[1, 2]), (2, 3, 4), (2, 3, 4), params=0),
]


@pytest.mark.parametrize("case", CASES, ids=case_id)
def test_unit_normalization_harness(case, backend):
    run_layer_case(case)


@pytest.mark.parametrize("axis", [-1, 1, [1, 2]])
def test_unit_normalization_matches_numpy(axis, backend):
    x = np.random.default_rng(0).standard_normal((2, 3, 4)).astype("float32")
    axes = tuple(axis) if isinstance(axis, list) else axis
    expected = x / np.sqrt(np.maximum((x ** 2).sum(axis=axes, keepdims=True), 1e-12))
    np.testing.assert_allclose(layers.UnitNormalization(axis=axis)(x).numpy(), expected,
                               rtol=1e-5, atol=1e-6)


def test_zero_rows_stay_zero(backend):
    y = layers.UnitNormalization()(np.zeros((1, 3), "float32")).numpy()
    np.testing.assert_array_equal(y, 0)


def test_rejects_bad_axis():
    with pytest.raises(TypeError, match=r"un: argument 'axis' must be an int or a non-empty "
                                        r"list of ints; received 1.5"):
        layers.UnitNormalization(axis=1.5, name="un")
    with pytest.raises(ValueError, match=r"un2: argument 'axis' must name distinct axes"):
        layers.UnitNormalization(axis=2, name="un2")(np.ones((2, 3), "float32"))


def test_bad_axis_message_carries_keras_s_wording():
    with pytest.raises(TypeError, match=r"un: argument 'axis' must be an int or a non-empty "
                                        r"list of ints; received \{'axis': -1\} \(Invalid "
                                        r"value for `axis` argument: expected an int or a "
                                        r"list/tuple of ints.\)"):
        layers.UnitNormalization(axis={"axis": -1}, name="un")
