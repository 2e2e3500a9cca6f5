import numpy as np
import pytest

import lamina
from lamina import layers
from tests.layers.harness import LayerCase, case_id, run_layer_case

CASES = [
    LayerCase(layers.Normalization, {}, (4, 3), (4, 3), trainable_weights=0,
              non_trainable_weights=3, params=7,
              weight_shapes={"mean": (3,), "variance": (3,), "count": ()}),
    LayerCase(layers.Normalization, dict(axis=(1, 2)), (2, 3, 4), (2, 3, 4),
              trainable_weights=0, non_trainable_weights=3, params=25,
              weight_shapes={"mean": (3, 4), "variance": (3, 4), "count": ()}),
    LayerCase(layers.Normalization, dict(axis=None), (2, 3), (2, 3), trainable_weights=0,
              non_trainable_weights=3, params=3,
              weight_shapes={"mean": (), "variance": (), "count": ()}),
    LayerCase(layers.Normalization, dict(mean=[1.0, 2.0], variance=[4.0, 9.0]), (3, 2),
              (3, 2), trainable_weights=0, non_trainable_weights=0, params=0),
    LayerCase(layers.Normalization, dict(mean=0.5, variance=2.0, invert=True), (3, 2),
              (3, 2), trainable_weights=0, non_trainable_weights=0, params=0),
]


@pytest.mark.parametrize("case", CASES, ids=case_id)
def test_normalization_harness(case, backend):
    run_layer_case(case)


def _data(shape=(50, 3), seed=0):
    rng = np.random.default_rng(seed)
    return (rng.standard_normal(shape) * np.arange(1, shape[-1] + 1) + 3.0).astype("float32")


@pytest.mark.parametrize("batch_size", [None, 7])
def test_adapt_statistics(backend, batch_size):
    x = _data()
    layer = layers.Normalization()
    layer.adapt(x, batch_size=batch_size)
    mean, var, count = layer.get_weights()
    np.testing.assert_allclose(mean, x.mean(0), rtol=1e-5)
    np.testing.assert_allclose(var, x.var(0), rtol=1e-5)
    assert count == 0                  # Keras 3 keeps 'count' for old files, unused
    y = layer(x).numpy()
    np.testing.assert_allclose(y, (x - x.mean(0)) / np.sqrt(x.var(0)), rtol=1e-4, atol=1e-5)


def test_adapt_list_of_batches_and_steps():
    x = _data((40, 2, 3))
    layer = layers.Normalization(axis=-1)
    layer.adapt([x[:10], x[10:25], x[25:]])
    np.testing.assert_allclose(layer.get_weights()[0], x.mean((0, 1)), rtol=1e-5)
    np.testing.assert_allclose(layer.get_weights()[1], x.var((0, 1)), rtol=1e-5)
    first = layers.Normalization()
    first.adapt(iter([x[:10], x[10:]]), steps=1)
    np.testing.assert_allclose(first.get_weights()[0], x[:10].mean((0, 1)), rtol=1e-5)


def test_adapt_several_kept_axes_and_nested_lists():
    x = _data((20, 2, 3))
    layer = layers.Normalization(axis=(1, 2))
    layer.adapt(x)
    np.testing.assert_allclose(layer.get_weights()[0], x.mean(0), rtol=1e-5)
    nested = layers.Normalization()
    nested.adapt([[1.0, 10.0], [3.0, 30.0]])
    np.testing.assert_allclose(nested.get_weights()[0], [2.0, 20.0])
    np.testing.assert_allclose(nested.get_weights()[1], [1.0, 100.0])


def test_normalization_formula_and_invert(backend):
    mean, var = np.array([1.0, -2.0, 0.0]), np.array([4.0, 0.25, 0.0])
    x = _data((5, 3))
    eps = lamina.backend.epsilon()
    std = np.maximum(np.sqrt(var), eps)           # Keras: max(sqrt(variance), epsilon)
    out = layers.Normalization(mean=mean, variance=var)(x).numpy()
    np.testing.assert_allclose(out, (x - mean) / std, rtol=1e-5)
    back = layers.Normalization(mean=mean, variance=var, invert=True)(x).numpy()
    np.testing.assert_allclose(back, mean + x * std, rtol=1e-5, atol=1e-6)


def test_set_weights_like_keras_get_weights():
    layer = layers.Normalization()
    layer.build((None, 2))
    layer.set_weights([np.array([1.0, 2.0], "float32"), np.array([4.0, 16.0], "float32"),
                       np.array(8, "int32")])
    np.testing.assert_allclose(layer(np.array([[3.0, 6.0]], "float32")).numpy(), [[1.0, 1.0]])


def test_normalization_errors():
    with pytest.raises(TypeError, match=r"n: argument 'axis' must be an int, a list of ints "
                                        r"or None; received 'x'"):
        layers.Normalization(axis="x", name="n")
    with pytest.raises(ValueError, match=r"n: When setting values directly, both `mean` and "
                                         r"`variance` must be set .*received mean=1.0, "
                                         r"variance=None"):
        layers.Normalization(mean=1.0, name="n")
    with pytest.raises(ValueError, match=r"n: All `axis` values must be in the range \[-ndim, "
                                         r"ndim\) = \[-2, 2\) .*received axis=\(3,\)"):
        layers.Normalization(axis=3, name="n")(np.zeros((2, 3), "float32"))
    with pytest.raises(ValueError, match=r"n: All `axis` values to be kept must have a known "
                                         r"shape \(size\); received axis=\(1,\)"):
        layers.Normalization(axis=1, name="n")(lamina.Input((None, 3)))


def test_adapt_errors():
    fixed = layers.Normalization(mean=0.0, variance=1.0, name="n")
    with pytest.raises(ValueError, match=r"n.adapt: the layer was given a fixed 'mean'"):
        fixed.adapt(np.zeros((2, 2)))
    layer = layers.Normalization(name="n")
    layer.adapt(np.zeros((4, 3)))
    with pytest.raises(ValueError, match=r"n.adapt: data batches must have the shape the "
                                         r"layer was built for, \(4, 3\); received a batch of "
                                         r"an incompatible shape, \(4, 2\)"):
        layer.adapt(np.zeros((4, 2)))
    with pytest.raises(ValueError, match=r"n.adapt: argument 'data' holds no values .*"
                                         r"received an empty iterable \(no batches\)"):
        layers.Normalization(name="n").adapt([])
    with pytest.raises(ValueError, match=r"received batches with no rows"):
        layers.Normalization(name="n").adapt(np.zeros((0, 3)))
    with pytest.raises(TypeError, match=r"n.adapt: every batch of an iterable must be an array "
                                        r"or tensor with a `.shape` that has a batch axis; "
                                        r"received int 42"):
        layers.Normalization(name="n").adapt(iter([42]))
    with pytest.raises(ValueError, match=r"argument 'batch_size' must be a positive int"):
        layers.Normalization(name="n").adapt(np.zeros((4, 3)), batch_size=0)
    with pytest.raises(ValueError, match=r"n.adapt: argument 'data' must have a batch axis"):
        layers.Normalization(name="n").adapt(np.float32(2.0))
    with pytest.raises(TypeError, match=r"n.adapt: argument 'data' must be an array, a "
                                        r"tensor or an iterable of batches; received int"):
        layers.Normalization(name="n").adapt(3)


# Keras 3.15.1: a given mean/variance aligns with the kept axes from the right.
@pytest.mark.parametrize("axis, shape, mean, want", [
    (2, (2, 4, 5, 3), np.arange(1, 6, dtype="float32"), (1, 1, 5, 1)),
    ((1, 2), (None, 10, 13, 3), np.zeros((10, 13), "float32"), (1, 10, 13, 1)),
    ((1, 2), (2, 7, 5, 3), np.arange(1, 6, dtype="float32"), (1, 7, 5, 1)),
])
def test_given_statistics_align_from_the_right(axis, shape, mean, want):
    layer = layers.Normalization(axis=axis, mean=mean, variance=np.ones_like(mean))
    layer.build(shape)
    got = layer.mean.numpy()
    assert got.shape == want
    if mean.ndim == 1:
        np.testing.assert_array_equal(got[0, -1, :, 0] if axis == (1, 2) else got[0, 0, :, 0],
                                      mean)


def test_adapt_takes_x_of_x_y_tuples_and_calls_on_higher_rank():
    rng = np.random.default_rng(0)
    x = rng.random((24, 3)).astype("float32")
    layer = layers.Normalization()
    layer.adapt([(x[i:i + 8], np.zeros(8)) for i in range(0, 24, 8)])
    out = layer(x).numpy()
    np.testing.assert_allclose(out.mean(axis=0), 0.0, atol=1e-5)
    np.testing.assert_allclose(out.var(axis=0), 1.0, atol=1e-4)
    # Built for rank 2, called on rank 3: the statistics broadcast from the right (Keras).
    np.testing.assert_allclose(layer(x[None]).numpy()[0], out, rtol=1e-6)
