import numpy as np
import pytest

from lamina import layers
from tests.layers.harness import LayerCase, case_id, run_layer_case

D = layers.Discretization
CASES = [
    LayerCase(D, dict(bin_boundaries=[-0.5, 0.0, 0.5]), (3, 4), (3, 4), trainable_weights=0,
              params=0, weight_shapes={}, output_dtype="int64"),
    LayerCase(D, dict(bin_boundaries=[0.0, 1.0], output_mode="one_hot"), (5, 1), (5, 3),
              trainable_weights=0, params=0),
    LayerCase(D, dict(bin_boundaries=[0.0], output_mode="count"), (2, 6), (2, 2),
              trainable_weights=0, params=0),
]


@pytest.mark.parametrize("case", CASES, ids=case_id)
def test_discretization_harness(case, backend):
    run_layer_case(case)


X = np.array([[-1.5, 1.0, 3.4, 0.5], [0.0, 3.0, 1.3, 0.0]], "float32")


def test_keras_example_boundaries(backend):
    y = D(bin_boundaries=[0.0, 1.0, 2.0])(X).numpy()
    np.testing.assert_array_equal(y, [[0, 2, 3, 1], [1, 3, 2, 1]])
    assert y.dtype == np.int64


def test_keras_example_adapt(backend):
    layer = D(num_bins=4, epsilon=0.01)
    layer.adapt(X)
    np.testing.assert_array_equal(layer(X).numpy(), [[0, 2, 3, 2], [1, 3, 3, 1]])


def test_matches_numpy_digitize(backend):
    bounds = [-1.0, -0.2, 0.0, 0.7, 2.0]
    x = np.random.default_rng(0).standard_normal((6, 5)).astype("float32")
    x[0, :3] = [-1.0, 0.0, 2.0]                 # values on a boundary go to the upper bin
    np.testing.assert_array_equal(D(bin_boundaries=bounds)(x).numpy(), np.digitize(x, bounds))


def test_multi_hot_of_bins(backend):
    y = D(bin_boundaries=[0.0, 1.0, 2.0], output_mode="multi_hot")(X).numpy()
    np.testing.assert_array_equal(y, [[1, 1, 1, 1], [0, 1, 1, 1]])


def test_integer_inputs(backend):
    y = D(bin_boundaries=[1.5])(np.array([[1, 2]], "int32")).numpy()
    np.testing.assert_array_equal(y, [[0, 1]])


# Keras 3's quantile summary, in numpy (keras/src/layers/preprocessing/discretization.py).
def _summarize(values, epsilon):
    values = np.sort(np.reshape(values, [-1]))
    increment = np.size(values) / (1.0 / epsilon)
    step = max(increment, 1)
    kept = values[int(increment)::int(step)]
    return np.stack([kept, np.ones_like(kept) * step])


def _compress(summary, epsilon):
    if summary.shape[1] * epsilon < 1:
        return summary
    percents = epsilon + np.arange(0.0, 1.0, epsilon)
    cum = summary[1].cumsum()
    frac = cum / cum[-1]
    bins = np.interp(percents, frac, summary[0])
    cum = np.interp(percents, frac, cum)
    return np.stack((bins, cum - np.concatenate(([0], cum[:-1])))).astype("float32")


def _merge(a, b, epsilon):
    merged = np.concatenate((a, b), axis=1)
    return _compress(np.take(merged, np.argsort(merged[0], kind="stable"), axis=1), epsilon)


@pytest.mark.parametrize("num_bins,epsilon", [(4, 0.01), (10, 0.01), (3, 0.1)])
def test_adapt_matches_keras_algorithm(backend, num_bins, epsilon):
    rng = np.random.default_rng(3)
    batches = [rng.standard_normal((300, 2)).astype("float32") * (i + 1) for i in range(3)]
    summary = np.array([[], []], "float32")
    for b in batches:
        summary = _merge(_summarize(b.astype("float32"), epsilon), summary, epsilon)
    want = _compress(summary, 1.0 / num_bins)[0, :-1]
    layer = D(num_bins=num_bins, epsilon=epsilon)
    layer.adapt(iter(batches))
    assert len(layer.bin_boundaries) == num_bins - 1
    np.testing.assert_allclose(layer.bin_boundaries, want, rtol=1e-5, atol=1e-6)
    # and the config carries the adapted boundaries
    clone = D.from_config(layer.get_config())
    np.testing.assert_array_equal(clone(batches[0]).numpy(), layer(batches[0]).numpy())


def test_adapt_quantiles_of_uniform_data(backend):
    layer = D(num_bins=4)
    layer.adapt(np.linspace(0, 1, 10001, dtype="float32"))
    np.testing.assert_allclose(layer.bin_boundaries, [0.25, 0.5, 0.75], atol=0.02)


def test_rejects_bad_output_mode():
    with pytest.raises(ValueError, match=r"d: argument 'output_mode' must be one of 'int', "
                                         r"'one_hot', 'multi_hot', 'count'; received 'bad'"):
        D(bin_boundaries=[0.0], output_mode="bad", name="d")


def test_rejects_negative_num_bins():
    with pytest.raises(ValueError, match=r"argument 'num_bins' must be an int >= 0 or None; "
                                         r"received -1"):
        D(num_bins=-1)


def test_rejects_bad_epsilon():
    with pytest.raises(ValueError, match=r"argument 'epsilon' must be a number in \(0, 1\); "
                                         r"received 0"):
        D(num_bins=3, epsilon=0)


def test_rejects_unsorted_boundaries():
    with pytest.raises(ValueError, match=r"argument 'bin_boundaries' must be sorted"):
        D(bin_boundaries=[1.0, 0.0])


def test_rejects_disagreeing_num_bins():
    with pytest.raises(ValueError, match=r"arguments 'bin_boundaries' and 'num_bins' "
                                         r"disagree: 2 boundaries make 3 bins; received "
                                         r"num_bins=5"):
        D(bin_boundaries=[0.0, 1.0], num_bins=5)


def test_rejects_sparse():
    with pytest.raises(ValueError, match=r"argument 'sparse' must be False"):
        D(num_bins=3, output_mode="count", sparse=True)


def test_adapt_rejects_fixed_boundaries():
    with pytest.raises(ValueError, match=r"d.adapt: the layer was given 'bin_boundaries'"):
        D(bin_boundaries=[0.0], name="d").adapt(X)


def test_adapt_needs_num_bins():
    with pytest.raises(ValueError, match=r"adapt: argument 'num_bins' must be set"):
        D().adapt(X)


def test_adapt_rejects_empty_data():
    with pytest.raises(ValueError, match=r"adapt: argument 'data' holds no values"):
        D(num_bins=2).adapt(np.zeros((0, 2), "float32"))
