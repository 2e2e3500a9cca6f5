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
    with pytest.raises(ValueError, match=r"d: Invalid value for argument `output_mode`. "
                                         r"Expected one of 'int', 'one_hot', 'multi_hot', "
                                         r"'count'; received 'bad'"):
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


def test_rejects_num_bins_with_boundaries_and_neither():
    with pytest.raises(ValueError, match=r"d: Both `num_bins` and `bin_boundaries` should not "
                                         r"be set .*received num_bins=5"):
        D(bin_boundaries=[0.0, 1.0], num_bins=5, name="d")
    with pytest.raises(ValueError, match=r"d: you need to set either `num_bins` or "
                                         r"`bin_boundaries`; received neither"):
        D(name="d")


def test_call_before_adapt_raises():
    with pytest.raises(ValueError, match=r"d: You need to either pass the `bin_boundaries` "
                                         r"argument .* call `adapt\(dataset\)`"):
        D(num_bins=3, name="d")([[0.1, 0.8, 0.9]])


def test_config_before_and_after_adapt_round_trips():
    # Keras 3.15.1: bin_boundaries None before adapt; both keys after adapt.
    layer = D(num_bins=5, output_mode="count")
    config = layer.get_config()
    assert config["bin_boundaries"] is None and config["num_bins"] == 5
    assert D.from_config(config).get_config() == config
    assert layer.compute_output_shape((None, 4, 2)) == (None, 2, 5)
    layer.adapt(np.array([0.0, 1.0, 5.0]))
    config = layer.get_config()
    assert config["bin_boundaries"] == [0.0, 1.0] and config["num_bins"] == 5
    revived = D.from_config(config)
    assert revived.get_config() == config
    np.testing.assert_array_equal(revived(np.array([[0.5, 3.0]])).numpy(), [[0, 1, 1]])


# Keras 3.15.1's outputs for a rank-3 input with bin_boundaries=[0, 1, 2].
X3 = np.array([[[-1.0, 0.5], [1.5, 2.5]], [[0.2, 0.2], [3.0, -2.0]]])
KERAS_RANK3 = {
    "one_hot": [[[[1, 0, 0, 0], [0, 1, 0, 0]], [[0, 0, 1, 0], [0, 0, 0, 1]]],
                [[[0, 1, 0, 0], [0, 1, 0, 0]], [[0, 0, 0, 1], [1, 0, 0, 0]]]],
    "multi_hot": [[[1, 0, 1, 0], [0, 1, 0, 1]], [[0, 1, 0, 1], [1, 1, 0, 0]]],
    "count": [[[1, 0, 1, 0], [0, 1, 0, 1]], [[0, 1, 0, 1], [1, 1, 0, 0]]],
}


@pytest.mark.parametrize("mode", sorted(KERAS_RANK3))
def test_rank3_encodings_match_keras(mode, backend):
    layer = D(bin_boundaries=[0.0, 1.0, 2.0], output_mode=mode)
    y = layer(X3)
    np.testing.assert_array_equal(y.numpy(), KERAS_RANK3[mode])
    symbolic = layer(layers.Input(shape=(2, 2)))
    assert symbolic.shape[1:] == y.shape[1:]
    assert symbolic.dtype == layer.output_dtype == "float32"


def test_rejects_sparse():
    with pytest.raises(ValueError, match=r"argument 'sparse' must be False"):
        D(num_bins=3, output_mode="count", sparse=True)


def test_adapt_rejects_fixed_boundaries():
    with pytest.raises(ValueError, match=r"d.adapt: the layer was given 'bin_boundaries'"):
        D(bin_boundaries=[0.0], name="d").adapt(X)


def test_adapt_rejects_empty_data():
    with pytest.raises(ValueError, match=r"adapt: argument 'data' holds no values"):
        D(num_bins=2).adapt(np.zeros((0, 2), "float32"))
