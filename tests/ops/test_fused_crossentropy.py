"""The fused crossentropy ops the simplify pass creates (lamina/ops/fused_*crossentropy.py)."""
import numpy as np
import pytest

from lamina import ops
from lamina.errors import DTypeError, GradientError, ShapeError
from lamina.ops.fused_crossentropy import SoftmaxCrossentropy, SoftmaxCrossentropyGrad
from lamina.ops.fused_sigmoid_crossentropy import SigmoidCrossentropy, SigmoidCrossentropyGrad
from tests.harness import case, rand, run_case

EPS = (1e-7, 1 - 1e-7)


def np_log_softmax(x, axis):
    shifted = x - x.max(axis=axis, keepdims=True)
    return shifted - np.log(np.exp(shifted).sum(axis=axis, keepdims=True))


def np_softmax_xent(y, x, axis=1, sparse=False, bounds=EPS):
    logp = np_log_softmax(x, axis)
    if bounds is not None:
        logp = np.clip(logp, np.log(bounds[0]), np.log(bounds[1]))
    if sparse:
        return -np.squeeze(np.take_along_axis(logp, y, axis), axis)
    return -(y * logp).sum(axis=axis)


def np_softmax_xent_grad(g, y, x, axis=1, sparse=False, bounds=EPS):
    p = np.exp(np_log_softmax(x, axis))
    if sparse:
        y = (np.arange(x.shape[axis]).reshape([-1 if i == axis else 1 for i in range(x.ndim)])
             == y).astype(x.dtype)
    w = y * np.expand_dims(g, axis)
    if bounds is not None:
        w = w * ((p >= bounds[0]) & (p <= bounds[1]))
    return p * w.sum(axis=axis, keepdims=True) - w


def np_sigmoid_xent(z, x, axis=1, bounds=EPS):
    p = np.clip(1 / (1 + np.exp(-x)), *bounds) if bounds else 1 / (1 + np.exp(-x))
    return np.mean(-(z * np.log(p) + (1 - z) * np.log(1 - p)), axis=axis)


def np_sigmoid_xent_grad(g, z, x, axis=1, bounds=EPS):
    p = 1 / (1 + np.exp(-x))
    mask = (p >= bounds[0]) & (p <= bounds[1]) if bounds else 1.0
    return np.expand_dims(g, axis) / x.shape[axis] * (p - z) * mask


def one_hot(n, k, axis=1):
    y = np.eye(k)[np.arange(n) % k]
    return np.moveaxis(y, 1, axis) if axis != 1 else y


_labels = np.array([[0], [2], [1], [2]])
_soft = rand(4, 3, low=0.0, high=1.0)
_soft = _soft / _soft.sum(axis=1, keepdims=True)
_saturated = np.array([[30.0, 0.0, -30.0], [0.5, 0.1, -0.2]])
_bits = (rand(3, 2) > 0).astype("float64")

CASES = [
    case("softmax_crossentropy", lambda y, x: SoftmaxCrossentropy(y, x, axis=1, bounds=EPS),
         np_softmax_xent, [one_hot(4, 3), rand(4, 3, low=-3, high=3)]),
    case("softmax_crossentropy", lambda y, x: SoftmaxCrossentropy(y, x, axis=1, bounds=EPS),
         np_softmax_xent, [_soft, rand(4, 3)], label="soft-labels"),
    case("softmax_crossentropy", lambda y, x: SoftmaxCrossentropy(y, x, axis=1, bounds=EPS),
         np_softmax_xent, [one_hot(2, 3)[::-1].copy(), _saturated], label="clipped"),
    case("softmax_crossentropy", lambda y, x: SoftmaxCrossentropy(y, x, axis=0, bounds=None),
         lambda y, x: np_softmax_xent(y, x, 0, bounds=None), [one_hot(2, 3, 0), rand(3, 2)],
         label="axis0-unclipped"),
    case("softmax_crossentropy",
         lambda y, x: SoftmaxCrossentropy(y, x, axis=1, sparse=True, bounds=EPS),
         lambda y, x: np_softmax_xent(y, x, sparse=True), [_labels, rand(4, 3, low=-2, high=2)],
         label="sparse"),
    case("softmax_crossentropy_grad",
         lambda g, y, x: SoftmaxCrossentropyGrad(g, y, x, axis=1, bounds=EPS),
         np_softmax_xent_grad, [rand(2), one_hot(2, 3), _saturated], grad=False),
    case("softmax_crossentropy_grad",
         lambda g, y, x: SoftmaxCrossentropyGrad(g, y, x, axis=1, sparse=True, bounds=EPS),
         lambda g, y, x: np_softmax_xent_grad(g, y, x, sparse=True),
         [rand(4), _labels, rand(4, 3)], grad=False, label="sparse"),
    case("sigmoid_crossentropy", lambda z, x: SigmoidCrossentropy(z, x, axis=1, bounds=EPS),
         np_sigmoid_xent, [_bits, rand(3, 2, low=-4, high=4)]),
    case("sigmoid_crossentropy", lambda z, x: SigmoidCrossentropy(z, x, axis=0, bounds=EPS),
         lambda z, x: np_sigmoid_xent(z, x, 0), [rand(3, 2, low=0, high=1), rand(3, 2)],
         label="soft-axis0"),
    case("sigmoid_crossentropy", lambda z, x: SigmoidCrossentropy(z, x, axis=1, bounds=None),
         lambda z, x: np_sigmoid_xent(z, x, bounds=None), [_bits, rand(3, 2)],
         label="unclipped"),
    case("sigmoid_crossentropy_grad",
         lambda g, z, x: SigmoidCrossentropyGrad(g, z, x, axis=1, bounds=EPS),
         np_sigmoid_xent_grad, [rand(2), np.array([[1.0, 0.0], [0.0, 1.0]]),
                                np.array([[20.0, 0.3], [-0.5, -20.0]])], grad=False),
]


@pytest.mark.parametrize("c", CASES, ids=str)
def test_forward_and_gradient(c, backend):
    run_case(c)


def test_saturated_predictions_cost_the_clipped_log_and_pass_no_gradient():
    x = ops.convert_to_tensor(np.array([[40.0, 0.0, -40.0]], "float32"))
    y = ops.convert_to_tensor(np.array([[0.0, 0.0, 1.0]], "float32"))
    loss = SoftmaxCrossentropy(y, x, axis=1, bounds=(1e-7, 1 - 1e-7)).numpy()
    np.testing.assert_allclose(loss, [-np.log(np.float32(1e-7))], rtol=1e-6)
    g = SoftmaxCrossentropyGrad(ops.ones((1,)), y, x, axis=1, bounds=(1e-7, 1 - 1e-7))
    np.testing.assert_allclose(g.numpy(), 0.0, atol=1e-12)


def test_bad_arguments_are_typed_errors():
    x = ops.ones((2, 3))
    with pytest.raises(ShapeError, match=r"softmax_crossentropy: argument 'labels' must have "
                                         r"shape \(2, 1\)"):
        SoftmaxCrossentropy(ops.ones((2, 3), dtype="int32"), x, axis=1, sparse=True)
    with pytest.raises(DTypeError, match=r"sparse labels must be integer indices"):
        SoftmaxCrossentropy(ops.ones((2, 1)), x, axis=1, sparse=True)
    with pytest.raises(DTypeError, match=r"must have one dtype"):
        SigmoidCrossentropy(ops.ones((2, 3), dtype="float64"), x, axis=1)
    with pytest.raises(ShapeError, match=r"sigmoid_crossentropy_grad: argument 'g' must have "
                                         r"shape \(2,\)"):
        SigmoidCrossentropyGrad(ops.ones((3,)), x, x, axis=1)
    with pytest.raises(ShapeError, match=r"softmax_crossentropy_grad: argument 'g'"):
        SoftmaxCrossentropyGrad(ops.ones((3,)), x, x, axis=1)


@pytest.mark.parametrize("op", [SoftmaxCrossentropyGrad, SigmoidCrossentropyGrad])
def test_the_gradient_ops_have_no_gradient(op):
    assert not op.differentiable
    with pytest.raises(GradientError, match=r"created by graph optimization after autodiff"):
        op.gradient(None, None)
