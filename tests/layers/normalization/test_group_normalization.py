import numpy as np
import pytest

from lamina import layers
from tests.layers.harness import LayerCase, case_id, run_layer_case

CASES = [
    LayerCase(layers.GroupNormalization, {}, (2, 3, 32), (2, 3, 32), trainable_weights=2,
              params=64, weight_shapes={"gamma": (32,), "beta": (32,)}),
    LayerCase(layers.GroupNormalization, dict(groups=2), (2, 5, 4), (2, 5, 4),
              trainable_weights=2, params=8),
    LayerCase(layers.GroupNormalization, dict(groups=3, axis=1, center=False),
              (2, 6, 2, 2), (2, 6, 2, 2), trainable_weights=1, params=6,
              weight_shapes={"gamma": (6,)}),
]


@pytest.mark.parametrize("case", CASES, ids=case_id)
def test_group_normalization_harness(case, backend):
    run_layer_case(case)


def _reference(x, groups, epsilon=1e-3):
    """Channels last: channel c is in group c // (C / groups)."""
    n, *spatial, c = x.shape
    g = x.reshape(n, -1, groups, c // groups)
    mean = g.mean(axis=(1, 3), keepdims=True)
    var = g.var(axis=(1, 3), keepdims=True)
    return ((g - mean) / np.sqrt(var + epsilon)).reshape(x.shape)


@pytest.mark.parametrize("groups", [1, 2, -1])
def test_group_normalization_matches_numpy(groups, backend):
    rng = np.random.default_rng(0)
    x = (rng.standard_normal((2, 3, 4, 6)) * 2 + 1).astype("float32")
    layer = layers.GroupNormalization(groups=groups)
    layer(x)
    gamma, beta = rng.standard_normal((2, 6)).astype("float32")
    layer.set_weights([gamma, beta])
    expected = _reference(x, 6 if groups == -1 else groups) * gamma + beta
    np.testing.assert_allclose(layer(x).numpy(), expected, rtol=1e-4, atol=1e-5)
    if groups == -1:
        assert layer.get_config()["groups"] == 6        # Keras stores the resolved count


def test_channels_first_axis(backend):
    x = np.random.default_rng(1).standard_normal((2, 6, 3, 3)).astype("float32")
    y = layers.GroupNormalization(groups=3, axis=1)(x).numpy()
    expected = _reference(np.moveaxis(x, 1, -1), 3)
    np.testing.assert_allclose(y, np.moveaxis(expected, -1, 1), rtol=1e-4, atol=1e-5)


def test_rejects_bad_arguments():
    with pytest.raises(ValueError, match=r"gn: argument `groups` must be a positive int \(or "
                                         r"-1 for instance normalization\); received 0"):
        layers.GroupNormalization(groups=0, name="gn")
    with pytest.raises(TypeError, match=r"gn_a: argument 'axis' must be an int; received"):
        layers.GroupNormalization(axis=[1], name="gn_a")
    with pytest.raises(ValueError, match=r"gn_e: argument 'epsilon' must be a non-negative"):
        layers.GroupNormalization(epsilon=-1.0, name="gn_e")
    with pytest.raises(ValueError, match=r"gn_c: the number of channels \(6\) must be a "
                                         r"multiple of argument 'groups' and at least as "
                                         r"large; received groups=4"):
        layers.GroupNormalization(groups=4, name="gn_c")(np.ones((2, 6), "float32"))
    with pytest.raises(ValueError, match=r"gn_m: the number of groups \(8\) cannot be more "
                                         r"than the number of channels \(6\)"):
        layers.GroupNormalization(groups=8, name="gn_m")(np.ones((2, 6), "float32"))
    with pytest.raises(ValueError, match=r"gn_u: axis -1 of the input tensor should have a "
                                         r"defined dimension but the layer received an input "
                                         r"with shape \(None, 2, None\)"):
        layers.GroupNormalization(groups=2, name="gn_u").build((None, 2, None))
    with pytest.raises(ValueError, match=r"gn_b: argument 'axis' must be a non-batch axis"):
        layers.GroupNormalization(groups=1, axis=0, name="gn_b")(np.ones((2, 6), "float32"))
