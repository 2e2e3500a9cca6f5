import numpy as np
import pytest

import lamina
from lamina import layers
from tests.layers.harness import LayerCase, case_id, run_layer_case


def _padded(rng, shape):
    x = rng.standard_normal(shape).astype("float32")
    x[:, -1, :] = 0.0                       # the last timestep is padding
    return x


CASES = [
    LayerCase(layers.Masking, {}, (2, 4, 3), (2, 4, 3), trainable_weights=0, params=0,
              make_input=_padded),
    LayerCase(layers.Masking, dict(mask_value=1.5), (3, 2, 5), (3, 2, 5),
              trainable_weights=0, params=0),
]


@pytest.mark.parametrize("case", CASES, ids=case_id)
def test_masking_harness(case, backend):
    run_layer_case(case)


def test_masking_output_and_mask(backend):
    x = np.array([[[1.0, 2.0], [-1.0, -1.0], [-1.0, 3.0]]], "float32")
    y = layers.Masking(mask_value=-1.0)(x)
    keep = np.any(x != -1.0, axis=-1)
    np.testing.assert_array_equal(y._keras_mask.numpy(), keep)
    np.testing.assert_array_equal(y.numpy(), x * keep[..., None])


class _MaskedSum(layers.Layer):
    def call(self, inputs, mask=None):
        return lamina.ops.sum(inputs * lamina.ops.cast(mask[..., None], inputs.dtype), axis=1)


def test_masking_mask_reaches_a_downstream_layer():
    inputs = lamina.Input((3, 2))
    model = lamina.Model(inputs, _MaskedSum()(layers.Masking()(inputs)))
    x = np.array([[[1.0, 2.0], [0.0, 0.0], [3.0, 4.0]]], "float32")
    np.testing.assert_allclose(model(x).numpy(), [[4.0, 6.0]])


def test_masking_rejects_non_number():
    with pytest.raises(TypeError, match=r"m: argument 'mask_value' must be a number; "
                                        r"received 'x'"):
        layers.Masking("x", name="m")


def test_masking_rejects_rank_1():
    with pytest.raises(ValueError, match=r"expects input of rank at least 2"):
        layers.Masking()(np.zeros(3, "float32"))
