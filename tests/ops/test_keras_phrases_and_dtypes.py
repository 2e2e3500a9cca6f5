"""Behaviour aligned with Keras 3.15.1's ops tests (issue 22): error messages that keep
Lamina's wording and carry Keras's key phrase, ``convert_to_numpy`` of a symbolic tensor,
CTC on half-precision inputs, and ``solve`` of a stack of vectors."""
import numpy as np
import pytest

import lamina
from lamina import ops
from lamina.errors import ShapeError


def test_segment_ids_errors_carry_keras_phrases():
    # keras math_test TestMathErrors.test_segment_reduce_multi_dim_segment_ids
    with pytest.raises(ShapeError, match=r"segment_sum: argument 'segment_ids' must be 1-D "
                                         r".*Argument `segment_ids` should be an 1-D vector,"
                                         r".*received shapes \(2, 2\) and \(4,\)"):
        ops.segment_sum(np.array([1, 2, 3, 4]), np.array([[0, 0], [1, 1]]))
    # ... test_segment_reduce_leading_not_match
    with pytest.raises(ShapeError, match=r"segment_max: .*Argument `segment_ids` and `data` "
                                         r"should have same leading dimension\..*received "
                                         r"shapes \(4,\) and \(0,\)"):
        ops.segment_max(np.array([]), np.array([0, 0, 1, 1]))


def test_conv_channel_mismatch_errors_carry_keras_phrase():
    # keras nn_test NNOpsStaticShapeTest.test_conv_input_channel_validation
    x = lamina.KerasTensor((2, 10, 3))
    with pytest.raises(ShapeError, match=r"conv: the input's channels must be a multiple of "
                                         r"the kernel's in_channels 5 \(input channels must "
                                         r"match the kernel's"):
        ops.conv(x, lamina.KerasTensor((3, 5, 4)), padding="valid")
    with pytest.raises(ShapeError, match=r"input channels must match the kernel"):
        ops.depthwise_conv(x, lamina.KerasTensor((3, 5, 1)), padding="valid")
    with pytest.raises(ShapeError, match=r"conv_transpose: the input has 3 channels but the "
                                         r"kernel expects 5 \(its last axis\): input channels "
                                         r"must match the kernel's"):
        ops.conv_transpose(lamina.KerasTensor((2, 4, 3)), lamina.KerasTensor((2, 4, 5)), 2)


def test_convert_to_numpy_of_a_symbolic_tensor_is_a_value_error():
    with pytest.raises(ValueError, match=r"convert_to_numpy: argument 'x' is a symbolic "
                                         r"tensor \(shape \(2,\), float32\)"):
        ops.convert_to_numpy(lamina.KerasTensor((2,)))
    y = ops.convert_to_numpy(ops.convert_to_tensor([1.0, 2.0]))
    y[0] = 5.0                                              # a writable host copy
    np.testing.assert_array_equal(y, [5.0, 2.0])


HALF_LOGITS = np.array([[[0.4, 0.8, 0.4], [0.2, 0.8, 0.3], [0.9, 0.4, 0.5]]])


@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
def test_ctc_on_half_precision_computes_in_float32(dtype, backend):
    # Keras 3.15.1 (JAX): result_type(dtype, "float32"); numbers for the float16 logits
    logits = ops.cast(ops.convert_to_tensor(HALF_LOGITS.astype("float16")), dtype)
    loss = ops.ctc_loss(np.array([[1, 2, 1]], "int32"), logits, np.array([3]), np.array([3]))
    assert loss.dtype == "float32"
    if dtype == "float16":
        np.testing.assert_allclose(loss.numpy(), [3.4411137104034424], rtol=1e-6)
    for strategy, score in (("greedy", -2.49951171875), ("beam_search", -1.201361060142517)):
        decoded, scores = ops.ctc_decode(logits, np.array([3]), strategy=strategy)
        assert decoded.dtype == "int32" and scores.dtype == "float32"
        np.testing.assert_array_equal(decoded.numpy(), [[[1, -1, -1]]])
        if dtype == "float16":
            np.testing.assert_allclose(scores.numpy(), [[score]], rtol=1e-6)
    assert ops.ctc_loss(np.array([[1, 2, 1]], "int32"), HALF_LOGITS, np.array([3]),
                        np.array([3])).dtype == "float64"


def test_solve_takes_a_stack_of_vectors_like_keras():
    # keras linalg_test: (4, 3, 3) and (4, 3) give (4, 3); (None, 20, 20) and (None, 20) too
    assert ops.solve(lamina.KerasTensor((4, 3, 3)), lamina.KerasTensor((4, 3))).shape == (4, 3)
    assert ops.solve(lamina.KerasTensor((None, 20, 20)),
                     lamina.KerasTensor((None, 20))).shape == (None, 20)
    assert ops.solve(lamina.KerasTensor((4, 3, 3)),
                     lamina.KerasTensor((4, 3, 5))).shape == (4, 3, 5)
    with pytest.raises(ShapeError, match=r"solve: argument 'b' must have 20 rows"):
        ops.solve(lamina.KerasTensor((None, 20, 20)), lamina.KerasTensor((None, None, 5)))


def test_conv_with_unknown_channels_takes_the_kernels():
    # keras nn_test: "Dynamic channel dimension should NOT raise."
    x = lamina.KerasTensor((2, 10, None))
    assert ops.conv(x, lamina.KerasTensor((3, 5, 4))).shape == (2, 8, 4)
    assert ops.depthwise_conv(x, lamina.KerasTensor((3, 5, 1))).shape == (2, 8, 5)
    inputs = lamina.Input((10, None))                 # batch and channels both unknown
    kernel = np.random.default_rng(0).standard_normal((3, 2, 4)).astype("float32")
    model = lamina.Model(inputs, ops.conv(inputs, kernel))
    x = np.random.default_rng(1).standard_normal((3, 10, 2)).astype("float32")
    expected = np.stack([np.einsum("bkc,kco->bo", x[:, t:t + 3], kernel) for t in range(8)], 1)
    np.testing.assert_allclose(model(x).numpy(), expected, rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(model.predict(x, verbose=0), expected, rtol=1e-5, atol=1e-5)
    with pytest.raises(ShapeError, match=r"the input has 4 channels but the kernel expects 2"):
        model(np.ones((3, 10, 4), "float32"))
