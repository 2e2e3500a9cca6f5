import numpy as np
import pytest

import lamina
from lamina import layers, ops
from tests.layers.harness import LayerCase, case_id, run_layer_case
from tests.layers.merging.masking import X1, X1_MASK, X2, X2_MASK, masked, output_mask

CASES = [
    LayerCase(layers.Dot, dict(axes=1), [(2, 3), (2, 3)], (2, 1), trainable_weights=0,
              params=0, weight_shapes={}),
    LayerCase(layers.Dot, dict(axes=(1, 2), normalize=True), [(2, 3, 4), (2, 5, 3)],
              (2, 4, 5), trainable_weights=0, params=0),
]


@pytest.mark.parametrize("case", CASES, ids=case_id)
def test_dot_harness(case, backend):
    run_layer_case(case)


def np_batch_dot(a, b, axes):
    """Keras's own reference (merging_test.np_dot): a tensordot per sample."""
    if isinstance(axes, int):
        axes = (axes, axes)
    axes = [axis if axis < 0 else axis - 1 for axis in axes]
    out = np.stack([np.tensordot(a[i], b[i], axes) for i in range(a.shape[0])])
    return out[:, None] if out.ndim == 1 else out


@pytest.mark.parametrize("shapes, axes", [
    (((2, 4), (2, 4)), -1),
    (((2, 4, 5), (2, 4, 5)), -1),
    (((2, 3, 5), (2, 3, 6)), 1),
    (((2, 5), (2, 3, 5)), (1, 2)),
    (((2, 3, 4), (2, 4)), (2, 1)),
    (((1, 3, 2), (1, 1, 2, 3)), (-2, -1)),
    (((2, 3, 4, 5), (2, 5, 6, 7)), (3, 1)),
])
def test_dot_matches_per_sample_tensordot(shapes, axes, backend):
    rng = np.random.default_rng(0)
    a, b = (rng.standard_normal(s).astype("float32") for s in shapes)
    y = layers.Dot(axes)([a, b]).numpy()
    np.testing.assert_allclose(y, np_batch_dot(a, b, axes), rtol=1e-5, atol=1e-5)


def test_dot_normalize_gives_cosine_similarity(backend):
    rng = np.random.default_rng(1)
    a, b = rng.standard_normal((2, 3, 4)).astype("float32"), \
        rng.standard_normal((2, 3, 5)).astype("float32")
    y = layers.dot([a, b], axes=1, normalize=True).numpy()
    a_n = a / np.linalg.norm(a, axis=1, keepdims=True)
    b_n = b / np.linalg.norm(b, axis=1, keepdims=True)
    np.testing.assert_allclose(y, np_batch_dot(a_n, b_n, 1), rtol=1e-5, atol=1e-6)


def test_dot_normalize_of_zero_vector_has_finite_gradient(backend):
    a = ops.convert_to_tensor(np.zeros((1, 3), "float32"))
    b = ops.convert_to_tensor(np.ones((1, 3), "float32"))
    with lamina.GradientTape() as tape:
        tape.watch(a)
        y = ops.sum(layers.Dot(1, normalize=True)([a, b]))
    assert y.numpy() == 0
    assert np.all(np.isfinite(tape.gradient(y, a).numpy()))


def test_dot_symbolic_shape():
    a, b = lamina.layers.Input(shape=(3, 4)), lamina.layers.Input(shape=(5, 4))
    assert layers.Dot(-1)([a, b]).shape == (None, 3, 5)


def test_dot_has_no_output_mask(backend):
    out = layers.Dot(-1)([masked(X1, X1_MASK), masked(X2, X2_MASK)])
    assert output_mask(out) is None


def test_dot_rejects_bad_axes_type():
    with pytest.raises(TypeError, match=r"argument 'axes' must be an int or a pair of ints; "
                                        r"received 'last'"):
        layers.Dot("last")


@pytest.mark.parametrize("bad", [(1, 2, 3), (1, 1.0), [1]])
def test_dot_rejects_bad_axes_pair(bad):
    with pytest.raises(ValueError, match=r"argument 'axes' must be an int or a pair of ints "
                                         r"\(one axis per input\)"):
        layers.Dot(bad)


def test_dot_rejects_batch_axis():
    with pytest.raises(ValueError, match=r"dt: argument 'axes' 0 must name a non-batch axis "
                                         r"of each input, and each input needs rank >= 2; "
                                         r"received shapes \(2, 3\), \(2, 3\)"):
        layers.Dot(0, name="dt")([np.ones((2, 3), "float32")] * 2)


def test_dot_rejects_size_mismatch():
    with pytest.raises(ValueError, match=r"the summed axes must have one size, but axis 1 of "
                                         r"the first input has 3 and axis 1 of the second has "
                                         r"4; received shapes \(2, 3\), \(2, 4\)"):
        layers.Dot(1)([np.ones((2, 3), "float32"), np.ones((2, 4), "float32")])


def test_dot_rejects_three_inputs():
    with pytest.raises(ValueError, match=r"a `Dot` layer should be called on exactly 2 "
                                         r"inputs; received 3"):
        layers.Dot(1)([np.ones((2, 3), "float32")] * 3)


def test_dot_rejects_unknown_sizes_above_rank_3():
    a = lamina.layers.Input(shape=(None, 4, 5))
    b = lamina.layers.Input(shape=(5, 6))
    with pytest.raises(ValueError, match=r"inputs of rank > 3 need known non-batch sizes; "
                                         r"received shape \(None, None, 4, 5\)"):
        layers.Dot((3, 1))([a, b])
