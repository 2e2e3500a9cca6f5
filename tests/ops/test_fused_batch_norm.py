"""The training batch normalization op of lamina/ops/fused_batch_norm.py: forward against a
numpy reference (float64: the reference formulas; float32: oneDNN where it loads), gradients
(through y, mean and variance) against float64 central differences, eager == graph, the
layer's fused and composed forms against each other, and errors."""
import numpy as np
import pytest

import lamina as keras
from lamina import ops
from lamina.errors import DTypeError, ShapeError
from lamina.ops import fused_batch_norm as fbn
from tests.harness import case, rand, run_case

EPS = 1e-3


def ref(axis, scale=True, shift=True):
    def fn(x, *params):
        params = list(params)
        gamma = params.pop(0) if scale else None
        beta = params.pop(0) if shift else None
        axes = tuple(i for i in range(x.ndim) if i != axis % x.ndim)
        shape = [1] * x.ndim
        shape[axis] = x.shape[axis]
        mean = x.mean(axis=axes)
        variance = ((x - mean.reshape(shape)) ** 2).mean(axis=axes)
        y = (x - mean.reshape(shape)) / np.sqrt(variance.reshape(shape) + EPS)
        if gamma is not None:
            y = y * gamma.reshape(shape)
        if beta is not None:
            y = y + beta.reshape(shape)
        return y, mean, variance
    return fn


def fused(axis, scale=True, shift=True):
    def fn(x, *params):
        params = list(params)
        gamma = params.pop(0) if scale else None
        beta = params.pop(0) if shift else None
        return fbn.batch_norm_train(x, gamma, beta, epsilon=EPS, axis=axis)
    return fn


def _grad_op(x, gamma, beta):
    y, mean, variance = fbn.BatchNormTrain(x, gamma, beta, epsilon=EPS, axis=-1)
    return fbn.BatchNormTrainGrad(x, mean, variance, ops.ones_like(y), gamma, epsilon=EPS,
                                  axis=-1)


TOL = dict(fwd_rtol32=1e-5, fwd_atol32=1e-5)
CASES = [
    case("batch_norm_train", fused(-1), ref(-1), [rand(4, 3, 2, 5), rand(5), rand(5)],
         label="channels-last-4d", **TOL),
    case("batch_norm_train", fused(-1), ref(-1), [rand(6, 4), rand(4), rand(4)],
         label="dense", **TOL),
    case("batch_norm_train", fused(1), ref(1), [rand(3, 4, 5), rand(4), rand(4)],
         label="axis-1", **TOL),
    case("batch_norm_train", fused(0, shift=False), ref(0, shift=False),
         [rand(4, 3, 2), rand(4)], label="axis-0-no-shift", **TOL),
    case("batch_norm_train", fused(-1, scale=False), ref(-1, scale=False),
         [rand(2, 3, 3, 2, 3), rand(3)], label="5d-no-scale", **TOL),
    case("batch_norm_train", fused(-1, False, False), ref(-1, False, False),
         [rand(5, 2, 3)], label="plain", **TOL),
    case("batch_norm_train_grad", _grad_op, None, [rand(4, 3, 5), rand(5), rand(5)],
         grad=False),
]


@pytest.mark.parametrize("c", CASES, ids=str)
def test_forward_and_gradient(c, backend):
    run_case(c)


@pytest.mark.parametrize("c", CASES[:3], ids=str)
def test_numpy_kernels_forward_and_gradient(c, numpy_kernels):
    run_case(c)


def test_onednn_and_reference_agree_and_repeat_bit_for_bit(numpy_kernels):
    rng = np.random.default_rng(0)
    x = ops.convert_to_tensor(rng.standard_normal((8, 6, 6, 16)) * 3 + 1, dtype="float32")
    gamma = ops.convert_to_tensor(rng.standard_normal(16), dtype="float32")
    beta = ops.convert_to_tensor(rng.standard_normal(16), dtype="float32")
    dy = ops.convert_to_tensor(rng.standard_normal((8, 6, 6, 16)), dtype="float32")
    results = {}
    for onednn in (False, True):
        numpy_kernels.onednn = onednn
        out = fbn.BatchNormTrain(x, gamma, beta)
        grads = fbn.BatchNormTrainGrad(x, out[1], out[2], dy, gamma)
        again = fbn.BatchNormTrain(x, gamma, beta)
        for a, b in zip(out, again):
            np.testing.assert_array_equal(a.numpy(), b.numpy())
        results[onednn] = [t.numpy() for t in (*out, *grads)]
    for a, b in zip(results[False], results[True]):
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=2e-5)


def test_layer_fused_and_composed_forms_agree_in_training():
    rng = np.random.default_rng(1)
    x = rng.standard_normal((16, 5, 5, 8)).astype("float32") * 2 + 0.5
    target = rng.standard_normal((16, 5, 5, 8)).astype("float32")
    results = {}
    for fused_on in (True, False):
        keras.utils.set_random_seed(0)
        layer = keras.layers.BatchNormalization(momentum=0.5)
        layer.build(x.shape)
        saved = fbn.runs_fused       # the op (oneDNN, or its reference) or the composed ops
        fbn.runs_fused = lambda t, fused_on=fused_on: fused_on
        try:
            xt = keras.Variable(x)
            with keras.GradientTape() as tape:
                y = layer(xt, training=True)
                loss = ops.sum(ops.square(y - target))
            grads = tape.gradient(loss, [xt, layer.gamma, layer.beta])
        finally:
            fbn.runs_fused = saved
        results[fused_on] = [np.asarray(v) for v in (y, *grads, layer.moving_mean,
                                                     layer.moving_variance)]
    for a, b in zip(results[True], results[False]):
        np.testing.assert_allclose(a, b, rtol=1e-4, atol=1e-5)


def test_errors_name_the_op_and_argument():
    x = ops.zeros((4, 3))
    with pytest.raises(ShapeError, match="batch_norm_train: argument 'scale' must have "
                                         r"shape \(3,\)"):
        fbn.batch_norm_train(x, ops.zeros((4,)))
    with pytest.raises(ShapeError, match="argument 'x' must have rank 2 or more"):
        fbn.batch_norm_train(ops.zeros((4,)))
    with pytest.raises(ShapeError, match="argument 'axis' must be an axis of 'x'"):
        fbn.batch_norm_train(x, axis=2)
    with pytest.raises(DTypeError, match="argument 'shift' must have the dtype of 'x'"):
        fbn.BatchNormTrain(x, ops.zeros((3,), dtype="float64"), scale=False)
    with pytest.raises(DTypeError, match="argument 'x' must be a float tensor"):
        fbn.batch_norm_train(ops.zeros((4, 3), dtype="int32"))
    y, mean, variance = fbn.batch_norm_train(x, ops.ones((3,)))
    with pytest.raises(ShapeError, match="batch_norm_train_grad: argument 'dy' must have "
                                         "the shape of 'x'"):
        fbn.BatchNormTrainGrad(x, mean, variance, ops.zeros((4, 4)), ops.ones((3,)),
                               shift=False)
    with pytest.raises(TypeError, match="batch_norm_train_grad: expected a 'scale' input"):
        fbn.BatchNormTrainGrad(x, mean, variance, y)
