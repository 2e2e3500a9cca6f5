import itertools

import numpy as np
import pytest

from lamina import layers
from tests.layers.harness import LayerCase, case_id, run_layer_case

CASES = [
    LayerCase(layers.MaxPooling3D, dict(), (2, 4, 4, 5, 3), (2, 2, 2, 2, 3), params=0,
              trainable_weights=0),
    LayerCase(layers.MaxPooling3D, dict(pool_size=(2, 3, 2), strides=1, padding="same"),
              (2, 3, 4, 5, 2), (2, 3, 4, 5, 2), params=0, trainable_weights=0),
    LayerCase(layers.AveragePooling3D, dict(pool_size=2), (2, 4, 5, 4, 3), (2, 2, 2, 2, 3),
              params=0, trainable_weights=0),
    LayerCase(layers.AveragePooling3D, dict(pool_size=3, strides=2, padding="same",
                                            data_format="channels_first"),
              (2, 3, 5, 4, 4), (2, 3, 3, 2, 2), params=0, trainable_weights=0),
    LayerCase(layers.GlobalMaxPooling3D, dict(), (2, 3, 4, 5, 6), (2, 6), params=0,
              trainable_weights=0),
    LayerCase(layers.GlobalAveragePooling3D, dict(keepdims=True), (2, 3, 4, 5, 6),
              (2, 1, 1, 1, 6), params=0, trainable_weights=0),
    LayerCase(layers.GlobalAveragePooling3D, dict(data_format="channels_first"),
              (2, 6, 3, 4, 5), (2, 6), params=0, trainable_weights=0),
]


@pytest.mark.parametrize("case", CASES, ids=case_id)
def test_pooling3d_harness(case, backend):
    run_layer_case(case)


def pool3d_reference(x, reduce, pool, strides, pads):
    """Pool x (n, d, h, w, c) over windows, padding (explicit, TF's) left out."""
    x = np.pad(x.astype(np.float64), ((0, 0), *pads, (0, 0)), constant_values=np.nan)
    out = [(x.shape[1 + a] - pool[a]) // strides[a] + 1 for a in range(3)]
    y = np.zeros((x.shape[0], *out, x.shape[-1]))
    for i, j, k in itertools.product(*map(range, out)):
        window = x[:, i * strides[0]:i * strides[0] + pool[0],
                   j * strides[1]:j * strides[1] + pool[1],
                   k * strides[2]:k * strides[2] + pool[2]]
        y[:, i, j, k] = reduce(window, axis=(1, 2, 3))
    return y


@pytest.mark.parametrize("cls,reduce", [(layers.MaxPooling3D, np.nanmax),
                                        (layers.AveragePooling3D, np.nanmean)])
@pytest.mark.parametrize("kwargs,shape,pads", [
    (dict(pool_size=2), (2, 4, 5, 6, 3), ((0, 0), (0, 0), (0, 0))),
    (dict(pool_size=(3, 2, 2), strides=(2, 1, 3)), (1, 7, 4, 8, 2), ((0, 0), (0, 0), (0, 0))),
    # 'same': depth 5 / stride 2 -> 3 outputs, pool 3 needs 2 pads (1, 1); height 4 / 2 -> 2
    # needs 1 (0, 1) after; width 5 / 2 -> 3 needs 2 (1, 1).
    (dict(pool_size=3, strides=2, padding="same"), (2, 5, 4, 5, 2),
     ((1, 1), (0, 1), (1, 1))),
])
def test_pooling3d_matches_numpy(backend, cls, reduce, kwargs, shape, pads):
    x = np.random.default_rng(0).standard_normal(shape).astype("float32")
    layer = cls(**kwargs)
    want = pool3d_reference(x, reduce, layer.pool_size, layer.strides, pads)
    np.testing.assert_allclose(layer(x).numpy(), want, rtol=1e-5, atol=1e-6)


def test_global_pooling3d_matches_numpy(backend):
    x = np.random.default_rng(2).standard_normal((2, 3, 4, 5, 6)).astype("float32")
    np.testing.assert_allclose(layers.GlobalMaxPooling3D()(x).numpy(), x.max(axis=(1, 2, 3)))
    np.testing.assert_allclose(layers.GlobalAveragePooling3D()(x).numpy(),
                               x.mean(axis=(1, 2, 3)), rtol=1e-5, atol=1e-6)


def test_pooling3d_gradient_flows(backend):
    import lamina
    x = lamina.ops.convert_to_tensor(
        np.random.default_rng(3).standard_normal((1, 4, 4, 4, 2)).astype("float32"))
    with lamina.GradientTape() as tape:
        tape.watch(x)
        y = lamina.ops.sum(layers.AveragePooling3D(2)(x))
    g = tape.gradient(y, x).numpy()
    np.testing.assert_allclose(g, np.full(x.shape, 1 / 8), rtol=1e-6)


def test_average_pooling3d_needs_pool_size():
    with pytest.raises(TypeError):
        layers.AveragePooling3D()


def test_pooling3d_rejects_bad_pool_size():
    with pytest.raises(ValueError, match=r"p3: argument 'pool_size' must be an int or a tuple "
                                         r"of 3 ints, all positive; received \(2, 2\)"):
        layers.MaxPooling3D((2, 2), name="p3")


def test_pooling3d_rejects_rank4_input():
    with pytest.raises(ValueError, match=r"p3 expects input of rank 5 \(batch, depth, height, "
                                         r"width, channels\); received shape \(2, 4, 4, 3\)"):
        layers.MaxPooling3D(name="p3")(np.ones((2, 4, 4, 3), "float32"))


def test_pooling3d_rejects_window_larger_than_input():
    with pytest.raises(ValueError, match=r"p3: the pool_size \(3, 3, 3\) is larger than the "
                                         r"input's spatial size \(2, 4, 4\)"):
        layers.MaxPooling3D(3, name="p3")(np.ones((1, 2, 4, 4, 1), "float32"))


def test_global_pooling3d_rejects_rank4_input():
    with pytest.raises(ValueError, match=r"g3 expects input of rank 5"):
        layers.GlobalMaxPooling3D(name="g3")(np.ones((2, 4, 4, 3), "float32"))
