import numpy as np
import pytest

import lamina
from lamina import layers
from tests.layers.harness import LayerCase, case_id, run_layer_case

E = layers.EinsumDense
CASES = [
    LayerCase(E, dict(equation="ab,bc->ac", output_shape=4, bias_axes="c"), (2, 3), (2, 4),
              trainable_weights=2, weight_shapes={"kernel": (3, 4), "bias": (4,)}, params=16),
    LayerCase(E, dict(equation="abc,cd->abd", output_shape=(None, 5), bias_axes="d"),
              (2, 3, 4), (2, 3, 5), trainable_weights=2,
              weight_shapes={"kernel": (4, 5), "bias": (5,)}, params=25),
    LayerCase(E, dict(equation="abc,cde->abde", output_shape=(3, 2, 4), bias_axes="de",
                      activation="tanh"), (2, 3, 5), (2, 3, 2, 4), trainable_weights=2,
              weight_shapes={"kernel": (5, 2, 4), "bias": (2, 4)}, params=48),
    LayerCase(E, dict(equation="abcd,cde->abe", output_shape=(3, 6), bias_axes="b"),
              (2, 3, 4, 5), (2, 3, 6), trainable_weights=2,
              weight_shapes={"kernel": (4, 5, 6), "bias": (3, 1)}, params=123),
    LayerCase(E, dict(equation="...b,bc->...c", output_shape=4), (2, 3, 5), (2, 3, 4),
              trainable_weights=1, weight_shapes={"kernel": (5, 4)}, params=20),
    LayerCase(E, dict(equation="ab...,bc->ac...", output_shape=4, bias_axes="c"),
              (2, 3, 5), (2, 4, 5), trainable_weights=2,
              weight_shapes={"kernel": (3, 4), "bias": (4, 1)}, params=16),
]


@pytest.mark.parametrize("case", CASES, ids=case_id)
def test_einsum_dense_harness(case, backend):
    run_layer_case(case)


@pytest.mark.parametrize("equation,output_shape,in_shape,bias_axes", [
    ("ab,bc->ac", 4, (2, 3), "c"),
    ("abc,cd->abd", (None, 5), (2, 3, 4), "d"),
    ("abc,cde->abde", (3, 2, 4), (2, 3, 5), "e"),
    ("abcd,cde->abe", (3, 6), (2, 3, 4, 5), "be"),
    ("abc,cd->adb", (5, 3), (2, 3, 4), None),           # output reordered
    ("abc,bcd->ad", 5, (2, 3, 4), "d"),                  # two contracted indices
    ("abc,dc->abd", (3, 5), (2, 3, 4), None),            # kernel index order swapped
    ("abc,cb->acb", (4, 3), (2, 3, 4), None),            # a shared (batch-like) index
    ("...cd,cde->...ce", (4, 6), (2, 7, 4, 5), "e"),     # multi-head style projection
    ("ab...,bc->ac...", 4, (2, 3, 5, 6), "c"),
])
def test_einsum_dense_matches_numpy(backend, equation, output_shape, in_shape, bias_axes):
    layer = E(equation, output_shape, bias_axes=bias_axes, bias_initializer="random_normal")
    x = np.random.default_rng(0).standard_normal(in_shape).astype("float32")
    y = layer(x).numpy()
    weights = layer.get_weights()
    expected = np.einsum(equation, x, weights[0])
    if bias_axes:
        expected = expected + weights[1]
    np.testing.assert_allclose(y, expected, rtol=1e-5, atol=1e-5)


def test_einsum_dense_symbolic_sequence():
    inputs = lamina.Input((None, 8))
    out = E("abc,cd->abd", (None, 4), bias_axes="d")(inputs)
    assert tuple(out.shape) == (None, None, 4)


def test_einsum_dense_rejects_bad_equation():
    with pytest.raises(ValueError, match=r"ed: argument 'equation' must be an einsum string "
                                         r"of the form .*received 'ab->b'"):
        E("ab->b", 3, name="ed")


def test_einsum_dense_rejects_repeated_index():
    with pytest.raises(ValueError, match=r"argument 'equation' repeats an index within one "
                                         r"operand \('aab'\)"):
        E("aab,bc->ac", 3)


def test_einsum_dense_rejects_bad_output_shape():
    with pytest.raises(ValueError, match=r"argument 'output_shape' must be a positive int or "
                                         r"a tuple .*received 0"):
        E("ab,bc->ac", 0)


def test_einsum_dense_rejects_bad_bias_axes_type():
    with pytest.raises(ValueError, match=r"argument 'bias_axes' must be a string"):
        E("ab,bc->ac", 3, bias_axes=1)


def test_einsum_dense_rejects_unknown_bias_axis():
    with pytest.raises(ValueError, match=r"ed: argument 'bias_axes' names index 'x', which is "
                                         r"not in the output spec 'ac'"):
        E("ab,bc->ac", 3, bias_axes="x", name="ed")(np.ones((2, 4), "float32"))


def test_einsum_dense_rejects_wrong_output_rank():
    with pytest.raises(ValueError, match=r"argument 'output_shape' must give 2 sizes"):
        E("abc,cd->abd", 4)(np.ones((2, 3, 4), "float32"))


def test_einsum_dense_rejects_wrong_input_rank():
    with pytest.raises(ValueError, match=r"the input must have rank 3 to match the equation "
                                         r"'abc,cd->abd'; received shape \(2, 4\)"):
        E("abc,cd->abd", (None, 4))(np.ones((2, 4), "float32"))


def test_einsum_dense_rejects_mismatched_shared_size():
    with pytest.raises(ValueError, match=r"input and output shapes differ at shared index 'b'"):
        E("abc,cd->abd", (7, 4))(np.ones((2, 3, 4), "float32"))


def test_einsum_dense_rejects_unmatched_output_index():
    with pytest.raises(ValueError, match=r"output index 'z' of 'ab,bc->az' appears in neither"):
        E("ab,bc->az", 3)(np.ones((2, 4), "float32"))


def test_einsum_dense_rejects_unknown_kernel_size():
    with pytest.raises(ValueError, match=r"the size of kernel index 'd' .* is unknown"):
        E("abc,cd->abd", (None, None))(np.ones((2, 3, 4), "float32"))


def test_einsum_dense_rejects_bad_lora_arguments():
    with pytest.raises(ValueError, match=r"argument 'lora_rank' must be a positive int or "
                                         r"None; received 2.5"):
        E("ab,bc->ac", 3, lora_rank=2.5)
    with pytest.raises(ValueError, match=r"argument 'lora_alpha' must be a finite number or "
                                         r"None; received 'big'"):
        E("ab,bc->ac", 3, lora_rank=2, lora_alpha="big")


def test_einsum_dense_warns_about_extra_output_sizes_and_drops_them():
    # Keras 3.15.1 builds 'ab,ab->a' with output_shape=(2,) (int8 too) and ignores the 2
    layer = E("ab,ab->a", output_shape=(2,), name="ed_extra")
    with pytest.warns(UserWarning, match=r"ed_extra: argument 'output_shape' gives 1 sizes "
                                         r"but the output of 'ab,ab->a' has 0 .*the extra "
                                         r"sizes \(2,\) are ignored"):
        layer.build((2, 4))
    assert tuple(layer.kernel.shape) == (2, 4)
    x = np.arange(8, dtype="float32").reshape(2, 4)
    np.testing.assert_allclose(layer(x), np.sum(x * layer.kernel.numpy(), axis=1), rtol=1e-6)
    quantized = E("ab,ab->a", output_shape=(2,), dtype="int8_from_float32")
    quantized.build((2, 4))
    assert quantized.kernel.dtype == "int8" and quantized.kernel_scale.dtype == "float32"


def test_variance_scaling_fans_follow_the_einsum_axes():
    # Keras 3.15's EinsumDense counts fan_in over the contracted kernel axes and fan_out
    # over the output ones: for 'abc,cde->abde' with c=32, d*e=128, a uniform
    # VarianceScaling(scale=2, fan_avg) has limit sqrt(3 * 2 / 80) = 0.27386 (Keras's
    # kernel reaches 0.27376), where counting the kernel as a conv's would give 0.0866.
    layer = layers.EinsumDense("abc,cde->abde", (None, 8, 16),
                               kernel_initializer=lamina.initializers.VarianceScaling(
                                   scale=2.0, mode="fan_avg", distribution="uniform",
                                   seed=3))
    layer.build((None, 10, 32))
    kernel = layer.kernel.numpy()
    assert 0.26 < np.abs(kernel).max() <= 0.27387
    assert layer.kernel_initializer.input_axes is None     # the layer's own is unchanged
    mha = layers.MultiHeadAttention(num_heads=8, key_dim=16,
                                    kernel_initializer="lecun_normal")
    mha.build((None, 10, 32), (None, 10, 32))
    np.testing.assert_allclose(np.std(mha.query_dense.kernel.numpy()), np.sqrt(1 / 32),
                               atol=0.02)
    np.testing.assert_allclose(np.std(mha.output_dense.kernel.numpy()), np.sqrt(1 / 128),
                               atol=0.01)
