import numpy as np
import pytest

import lamina
from lamina import layers
from lamina.errors import ShapeError
from tests.layers.harness import LayerCase, case_id, run_layer_case


def _no_weights(cls, kwargs, input_shape, output_shape):
    return LayerCase(cls, kwargs, input_shape, output_shape, trainable_weights=0,
                     weight_shapes={}, params=0)


CASES = [
    _no_weights(layers.GlobalAveragePooling1D, {}, (2, 5, 3), (2, 3)),
    _no_weights(layers.GlobalAveragePooling1D, dict(keepdims=True,
                                                    data_format="channels_first"),
                (2, 3, 5), (2, 3, 1)),
    _no_weights(layers.GlobalAveragePooling2D, {}, (2, 4, 5, 3), (2, 3)),
    _no_weights(layers.GlobalAveragePooling2D, dict(keepdims=True), (2, 4, 5, 3),
                (2, 1, 1, 3)),
    _no_weights(layers.GlobalMaxPooling1D, {}, (2, 5, 3), (2, 3)),
    _no_weights(layers.GlobalMaxPooling2D, dict(data_format="channels_first"), (2, 3, 4, 5),
                (2, 3)),
    _no_weights(layers.GlobalMaxPooling2D, dict(keepdims=True, data_format="channels_first"),
                (2, 3, 4, 5), (2, 3, 1, 1)),
]


@pytest.mark.parametrize("case", CASES, ids=case_id)
def test_global_pooling_harness(case, backend):
    run_layer_case(case)


@pytest.mark.parametrize("cls, reduce, axes", [
    (layers.GlobalAveragePooling1D, np.mean, (1,)),
    (layers.GlobalMaxPooling1D, np.max, (1,)),
    (layers.GlobalAveragePooling2D, np.mean, (1, 2)),
    (layers.GlobalMaxPooling2D, np.max, (1, 2)),
])
@pytest.mark.parametrize("keepdims", [False, True])
def test_values(cls, reduce, axes, keepdims, backend):
    shape = (2, 5, 3) if len(axes) == 1 else (2, 4, 5, 3)
    x = np.random.default_rng(0).standard_normal(shape).astype("float32")
    y = cls(keepdims=keepdims)(x).numpy()
    np.testing.assert_allclose(y, reduce(x, axis=axes, keepdims=keepdims), rtol=1e-6)


def test_average_1d_mask_averages_unmasked_steps(backend):
    x = np.random.default_rng(1).standard_normal((2, 6, 3)).astype("float32")
    x[0, 4:] = 1e30                          # masked steps must not leak in (not even as inf)
    mask = np.array([[1, 1, 1, 1, 0, 0], [0, 1, 0, 1, 1, 1]], bool)
    y = layers.GlobalAveragePooling1D()(x, mask=mask).numpy()
    np.testing.assert_allclose(y[0], x[0, :4].mean(0), rtol=1e-5)
    np.testing.assert_allclose(y[1], x[1, [1, 3, 4, 5]].mean(0), rtol=1e-5)


def test_average_1d_mask_channels_first_keepdims(backend):
    x = np.random.default_rng(2).standard_normal((1, 3, 4)).astype("float32")
    mask = np.array([[1, 0, 1, 0]], bool)
    y = layers.GlobalAveragePooling1D(data_format="channels_first", keepdims=True)(
        x, mask=mask).numpy()
    np.testing.assert_allclose(y, x[:, :, [0, 2]].mean(2, keepdims=True), rtol=1e-5)


def test_average_1d_takes_the_mask_of_an_embedding(backend):
    ids = np.array([[3, 5, 0, 0], [2, 0, 0, 0]])
    inputs = lamina.Input((4,), dtype="int32")
    emb = layers.Embedding(8, 2, mask_zero=True)
    model = lamina.Model(inputs, layers.GlobalAveragePooling1D()(emb(inputs)))
    table = emb.get_weights()[0]
    np.testing.assert_allclose(model(ids).numpy(), [table[[3, 5]].mean(0), table[2]],
                               rtol=1e-5)


def test_output_has_no_mask(backend):
    x = lamina.ops.convert_to_tensor(np.ones((1, 3, 2), "float32"))
    y = layers.GlobalAveragePooling1D()(x, mask=np.array([[1, 1, 0]], bool))
    assert getattr(y, "_keras_mask", None) is None


def test_aliases():
    assert layers.GlobalAvgPool1D is layers.GlobalAveragePooling1D
    assert layers.GlobalAvgPool2D is layers.GlobalAveragePooling2D
    assert layers.GlobalMaxPool1D is layers.GlobalMaxPooling1D
    assert layers.GlobalMaxPool2D is layers.GlobalMaxPooling2D


def test_rank_error_names_the_layer():
    with pytest.raises(ShapeError, match=r"^gap expects input of rank 3 \(batch, steps, "
                                         r"channels\); received shape \(2, 4, 5, 3\)$"):
        layers.GlobalAveragePooling1D(name="gap")(np.zeros((2, 4, 5, 3), "float32"))


@pytest.mark.parametrize("kwargs, message", [
    (dict(keepdims="yes"), r"argument 'keepdims' must be True or False; received 'yes'"),
    (dict(data_format="channels_middle"), r"argument 'data_format' must be 'channels_last', "
                                          r"'channels_first' or None"),
])
def test_bad_arguments(kwargs, message):
    with pytest.raises(ValueError, match=r"^gmp: " + message):
        layers.GlobalMaxPooling2D(name="gmp", **kwargs)


def test_average_pooling_1d_refuses_a_mask_that_does_not_fit_its_steps():
    """Masking marks axis 1; a channels_first pooling averages axis 2. Keras fails with a
    raw broadcasting error; this names the layer, both shapes and the fix (fuzzer seed
    4374)."""
    import re

    import lamina
    x = lamina.Input((7, 3))
    h = lamina.layers.Masking(1.5)(x)
    pool = lamina.layers.GlobalAveragePooling1D(data_format="channels_first", name="gap")
    with pytest.raises(ValueError, match=re.escape(
            "gap: the mask must have shape (batch, steps) with the 3 steps of axis 2 "
            "(data_format='channels_first'); received a mask of shape (None, 7) for input "
            "of shape (None, 7, 3)")):
        pool(h)
