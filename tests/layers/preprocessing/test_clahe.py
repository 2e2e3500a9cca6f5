"""ContrastLimitedAdaptiveHistogramEqualization: harness case, deterministic in both
modes, graph == eager, argument errors (Keras's numbers: test_augment_reference.py)."""
import numpy as np
import pytest

import lamina
from lamina import layers
from tests.layers.harness import LayerCase, case_id, run_layer_case

CLAHE = layers.ContrastLimitedAdaptiveHistogramEqualization
CASES = [LayerCase(CLAHE, dict(tile_grid_size=(2, 2)), (2, 6, 5, 3), (2, 6, 5, 3), params=0)]


@pytest.mark.parametrize("case", CASES, ids=case_id)
def test_harness(case, backend):
    run_layer_case(case)


def test_same_in_training_and_inference_and_graph():
    x = np.random.default_rng(3).uniform(80, 140, (2, 9, 10, 1)).astype("float32")
    layer = CLAHE(tile_grid_size=(3, 2))
    a, b = layer(x).numpy(), layer(x, training=False).numpy()
    np.testing.assert_array_equal(a, b)
    assert a.max() - a.min() > x.max() - x.min()          # contrast is stretched
    np.testing.assert_allclose(lamina.jit(lambda t: layer(t))(x).numpy(), a, rtol=1e-6)


@pytest.mark.parametrize("kwargs, match", [
    (dict(tile_grid_size=(0, 2)), r"c: argument 'tile_grid_size' must be a pair of "
                                  r"positive ints; received \(0, 2\)"),
    (dict(clip_limit="x"), r"c: argument 'clip_limit' must be a number; received 'x'"),
    (dict(value_range=3), r"c: argument 'value_range' must be a list of two numbers"),
])
def test_argument_errors(kwargs, match):
    with pytest.raises(ValueError, match=match):
        CLAHE(name="c", **kwargs)
