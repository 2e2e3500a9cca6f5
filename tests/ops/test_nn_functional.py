"""keras.ops.nn's compositions (lamina/ops/normalization.py, loss_functions.py,
piecewise.py): harness cases against numpy formulas, and numbers Keras 3.15.1 (JAX, float32)
computed for the same inputs."""
import warnings

import numpy as np
import pytest

import lamina
from lamina import activations, ops
from lamina.errors import IndexRangeError, ShapeError
from tests.harness import case, distinct, rand, rand_away_from, run_case

EPS = 1e-7


def np_moments(x, axes):
    return x.mean(axis=axes), x.var(axis=axes)


def np_layer_norm(x, gamma, beta, eps=1e-3):
    m, v = x.mean(-1, keepdims=True), x.var(-1, keepdims=True)
    return (x - m) / np.sqrt(v + eps) * gamma + beta


def np_bn(x, m, v, offset, scale):
    return (x - m) / np.sqrt(v + 1e-3) * scale + offset


def np_rms(x, scale):
    return x / np.sqrt(np.mean(x * x, axis=-1, keepdims=True) + EPS) * scale


def np_bce(t, p):
    p = np.clip(p, EPS, 1 - EPS)
    return -(t * np.log(p) + (1 - t) * np.log(1 - p))


def np_bce_logits(t, x):
    return np.logaddexp(0, x) - t * x


def np_cce_logits(t, x):
    logp = x - np.log(np.sum(np.exp(x), axis=-1, keepdims=True))
    return -np.sum(t * logp, axis=-1)


def np_scce(labels, x):
    logp = x - np.log(np.sum(np.exp(x), axis=-1, keepdims=True))
    return -np.take_along_axis(logp, labels[:, None], axis=-1)[:, 0]


_T = np.array([[0.0, 1.0, 0.0], [1.0, 0.0, 0.0], [0.2, 0.3, 0.5]])
_P = rand(3, 3, low=0.1, high=0.9)
_P = _P / _P.sum(-1, keepdims=True)

CASES = [
    case("moments", lambda x: ops.moments(x, axes=[0]), lambda x: np_moments(x, 0),
         [rand(4, 3)]),
    case("moments", lambda x: ops.moments(x, axes=(0, 2), keepdims=True),
         lambda x: (x.mean(axis=(0, 2), keepdims=True), x.var(axis=(0, 2), keepdims=True)),
         [rand(2, 3, 4)], label="keepdims"),
    case("batch_normalization",
         lambda x, m, v, o, s: ops.batch_normalization(x, m, v, axis=-1, offset=o, scale=s),
         np_bn, [rand(4, 3), rand(3), rand(3, low=0.5, high=2), rand(3), rand(3)]),
    case("batch_normalization", lambda x, m, v: ops.batch_normalization(x, m, v, axis=1),
         lambda x, m, v: (x - m[:, None]) / np.sqrt(v[:, None] + 1e-3),
         [rand(2, 3, 4), rand(3), rand(3, low=0.5, high=2)], label="axis-1"),
    case("layer_normalization", lambda x, g, b: ops.layer_normalization(x, g, b, epsilon=1e-3),
         np_layer_norm, [rand(3, 5), rand(5), rand(5)]),
    case("layer_normalization", lambda x: ops.layer_normalization(x, axis=(1, 2)),
         lambda x: (x - x.mean((1, 2), keepdims=True))
         / np.sqrt(x.var((1, 2), keepdims=True) + EPS), [rand(2, 3, 4)], label="axes"),
    case("rms_normalization", lambda x, s: ops.rms_normalization(x, scale=s), np_rms,
         [rand(3, 5), rand(5)]),
    case("normalize", ops.normalize,
         lambda x: x / np.sqrt(np.sum(x * x, axis=-1, keepdims=True)), [rand(3, 4)]),
    case("normalize", lambda x: ops.normalize(x, axis=0, order=3),
         lambda x: x / np.sum(np.abs(x) ** 3, axis=0, keepdims=True) ** (1 / 3),
         [rand_away_from(3, 4)], label="order-3"),
    case("normalize", lambda x: ops.normalize(x, order=1),
         lambda x: x / np.sum(np.abs(x), axis=-1, keepdims=True), [rand_away_from(3, 4)],
         label="order-1"),
    case("binary_crossentropy", ops.binary_crossentropy, np_bce, [_T, _P]),
    case("binary_crossentropy", lambda t, x: ops.binary_crossentropy(t, x, from_logits=True),
         np_bce_logits, [_T, rand(3, 3, low=-3, high=3)], label="logits"),
    case("categorical_crossentropy", ops.categorical_crossentropy,
         lambda t, p: -np.sum(t * np.log(p), axis=-1), [_T, _P]),
    case("categorical_crossentropy",
         lambda t, x: ops.categorical_crossentropy(t, x, from_logits=True), np_cce_logits,
         [_T, rand(3, 3, low=-3, high=3)], label="logits"),
    case("sparse_categorical_crossentropy",
         lambda t, x: ops.sparse_categorical_crossentropy(t, x, from_logits=True), np_scce,
         [np.array([2, 0, 1], np.int32), rand(3, 4, low=-3, high=3)]),
    case("psnr", lambda a, b: ops.psnr(a, b, 2.0),
         lambda a, b: 20 * np.log10(2.0) - 10 * np.log10(np.mean((a - b) ** 2)),
         [rand(2, 3), rand(2, 3)]),
    case("glu", ops.glu, lambda x: x[:, :2] / (1 + np.exp(-x[:, 2:])), [rand(3, 4)]),
    case("sparse_sigmoid", ops.sparse_sigmoid, lambda x: np.clip((x + 1) / 2, 0, 1),
         [rand_away_from(6, points=(-1.0, 1.0), low=-2, high=2)]),
    case("sparsemax", ops.sparsemax, None, [distinct(2, 4, low=-0.6, high=0.6)]),
    case("threshold", lambda x: ops.threshold(x, 0.2, -1.0),
         lambda x: np.where(x > 0.2, x, -1.0), [rand_away_from(3, 4, points=(0.2,))]),
]


@pytest.mark.parametrize("c", CASES, ids=str)
def test_forward_and_gradient(c, backend):
    run_case(c)


def _f(values, dtype="float32"):
    return ops.convert_to_tensor(np.array(values, dtype))


_X = [[1.0, -2, 3, 0.5], [4, 5, 6, -1]]
# keras.ops.<name>(...) for the same arguments, Keras 3.15.1 (JAX), float32
KERAS = [
    (lambda: ops.glu(_f(_X)), [[0.9525741338729858, -1.244918704032898],
                               [3.99010968208313, 1.3447071313858032]]),
    (lambda: ops.sparse_sigmoid(_f([-2, -0.5, 0.3, 1.5])), [0.0, 0.25, 0.6499999761581421, 1.0]),
    (lambda: ops.sparsemax(_f(_X)), [[0.0, 0.0, 1.0, 0.0], [0.0, 0.0, 1.0, 0.0]]),
    (lambda: ops.threshold(_f(_X), 1.0, -9.0), [[-9.0, -9.0, 3.0, -9.0], [4, 5, 6, -9]]),
    (lambda: ops.layer_normalization(_f(_X), gamma=_f([1.0, 2, 3, 4]),
                                     beta=_f([0.5, 0, 0, -0.5])),
     [[0.7105587124824524, -2.947821855545044, 4.00061559677124, -0.7807449102401733],
      [0.6856952905654907, 1.1141719818115234, 2.7854299545288086, -7.185032367706299]]),
    (lambda: ops.layer_normalization(_f(_X), axis=0, epsilon=0.1),
     [[-0.9784920811653137, -0.9959431886672974, -0.978492021560669, 0.9214426279067993],
      [0.9784921407699585, 0.9959431886672974, 0.978492259979248, -0.9214426279067993]]),
    (lambda: ops.rms_normalization(_f(_X), scale=_f([1.0, 2, 3, 4])),
     [[0.5298129320144653, -2.1192517280578613, 4.768316268920898, 1.0596258640289307],
      [0.9058216214179993, 2.264554023742676, 4.076197624206543, -0.9058216214179993]]),
    (lambda: ops.rms_normalization(_f(_X), axis=0, epsilon=0.5),
     [[0.3333333432674408, -0.5163977742195129, 0.6255432367324829, 0.4714045226573944],
      [1.3333333730697632, 1.29099440574646, 1.2510864734649658, -0.9428090453147888]]),
    (lambda: ops.normalize(_f(_X)),
     [[0.26490646600723267, -0.5298129320144653, 0.794719398021698, 0.13245323300361633],
      [0.45291081070899963, 0.566138505935669, 0.6793662309646606, -0.11322770267724991]]),
    (lambda: ops.normalize(_f(_X), axis=0, order=3),
     [[0.24871131777763367, -0.3918135464191437, 0.48074978590011597, 0.48074984550476074],
      [0.9948452711105347, 0.979533851146698, 0.9614995718002319, -0.9614996910095215]]),
    (lambda: ops.batch_normalization(_f(_X), _f([1.0, 0, 2, 0]), _f([1.0, 4, 0.5, 2]), axis=1,
                                     offset=_f([0.0, 1, 0, 1]), scale=_f([2.0, 1, 1, 3])),
     [[0.0, 0.00012493133544921875, 1.4128012657165527, 2.0603950023651123],
      [5.997002124786377, 3.499687671661377, 5.651205539703369, -1.1207900047302246]]),
    (lambda: ops.batch_normalization(_f(_X), _f([1.0, 0]), _f([1.0, 4]), axis=0, epsilon=0.1),
     [[0.0, -2.8603875637054443, 1.9069249629974365, -0.4767312705516815],
      [1.9754592180252075, 2.4693241119384766, 2.963188886642456, -0.4938648045063019]]),
    (lambda: ops.moments(_f(_X), axes=[0]), ([2.5, 1.5, 4.5, -0.25], [2.25, 12.25, 2.25, 0.5625])),
    (lambda: ops.moments(_f(_X), axes=(0, 1), keepdims=True), ([[2.0625]], [[7.27734375]])),
    (lambda: ops.moments(ops.multiply(_f(_X, "float16"), 1000.0), axes=[1]),
     ([625.0, 3500.0], [65504.0, 65504.0])),
    (lambda: ops.binary_crossentropy(_f([[0, 1, 0], [1, 0, 0.0]]),
                                     _f([[2.0, -1.0, 0.5], [-3.0, 0.0, 1.5]]), from_logits=True),
     [[2.1269280910491943, 1.3132617473602295, 0.9740769863128662],
      [3.0485873222351074, 0.6931471824645996, 1.7014132738113403]]),
    (lambda: ops.categorical_crossentropy(_f([[0, 1, 0], [1, 0, 0.0]]),
                                          _f([[0.2, 0.7, 0.1], [0.5, 0.3, 0.2]]), axis=0),
     [0.33647218346595764, 0.3566749691963196, 0.0]),
    (lambda: ops.categorical_crossentropy(_f([[0, 1, 0], [1, 0, 0.0]]),
                                          _f([[2.0, -1.0, 0.5], [-3.0, 0.0, 1.5]]),
                                          from_logits=True),
     [3.2413113117218018, 4.71045446395874]),
    (lambda: ops.sparse_categorical_crossentropy(_f([[2], [0]], "int32"),
                                                 _f([[2.0, -1.0, 0.5], [-3.0, 0.0, 1.5]]),
                                                 from_logits=True),
     [1.7413113117218018, 4.71045446395874]),
    (lambda: ops.psnr(_f([[0, 1, 0], [1, 0, 0.0]]), _f([[0.2, 0.7, 0.1], [0.5, 0.3, 0.2]]), 2.5),
     18.580280303955078),
]


@pytest.mark.parametrize("index", range(len(KERAS)))
def test_matches_keras(index, backend):
    fn, expected = KERAS[index]
    got = fn()
    got = [g.numpy() for g in got] if isinstance(got, tuple) else got.numpy()
    if isinstance(expected, tuple):
        for g, e in zip(got, expected):
            np.testing.assert_allclose(g, e, rtol=2e-6, atol=1e-6)
    else:
        np.testing.assert_allclose(got, expected, rtol=2e-6, atol=1e-6)


def test_dtypes_follow_keras(backend):
    half = ops.layer_normalization(_f(_X, "float16"))
    assert half.dtype == "float16"
    np.testing.assert_allclose(half.numpy()[0], [0.2105712890625, -1.4736328125, 1.333984375,
                                                 -0.0701904296875], atol=2e-3)
    ints = ops.layer_normalization(ops.convert_to_tensor(np.array([[1, 2, 3]], np.int32)))
    assert ints.dtype == "int32" and ints.numpy().tolist() == [[-1, 0, 1]]


def test_layer_normalization_rms_scaling_is_deprecated_but_honoured(backend):
    with pytest.warns(UserWarning, match="You passed `rms_scaling=True`, which is "
                                               "deprecated"):
        y = ops.layer_normalization(_f(_X), rms_scaling=True)
    np.testing.assert_allclose(y.numpy()[0], [0.5614898800849915, -1.122979760169983,
                                              1.6844696998596191, 0.2807449400424957], rtol=2e-6)
    with pytest.raises(TypeError, match=r"layer_normalization: unexpected keyword arguments "
                                        r"\['center'\]"):
        ops.layer_normalization(_f(_X), center=True)


def test_relu_is_keras_ops_relu(backend):
    x = _f([-1.0, 2.0])
    assert ops.relu(x).numpy().tolist() == [0.0, 2.0]
    with pytest.raises(TypeError):
        ops.relu(x, negative_slope=0.1)          # keras.ops.relu(x) has no such argument
    assert activations.relu(x, negative_slope=0.5).numpy().tolist() == [-0.5, 2.0]
    assert activations.glu is ops.glu and activations.sparsemax is ops.sparsemax


def test_errors(backend):
    x = _f(_X)
    with pytest.raises(ValueError, match="normalize: Argument `order` must be an int >= 1; "
                                         "received 0"):
        ops.normalize(x, order=0)
    with pytest.raises(TypeError, match="argument 'epsilon' must be a number or None"):
        ops.rms_normalization(x, epsilon="small")
    with pytest.raises(NotImplementedError, match="moments: synchronized=True"):
        ops.moments(x, axes=[0], synchronized=True)
    with pytest.raises(ShapeError, match=r"batch_normalization: argument `variance` must be a "
                                         r"vector of length x.shape\[axis\] = 4; received "
                                         r"shape \(3,\)"):
        ops.batch_normalization(x, _f([0.0] * 4), _f([1.0] * 3), axis=1)
    with pytest.raises(ShapeError, match=r"batch_normalization: argument `offset` must be a "
                                         r"vector of length x.shape\[axis\] = 4; received "
                                         r"shape \(3,\)"):
        ops.batch_normalization(x, _f([0.0] * 4), _f([1.0] * 4), axis=1, offset=_f([0.0] * 3))
    with pytest.raises(ShapeError, match="binary_crossentropy: arguments 'target' and "
                                         "'output' must have the same shape"):
        ops.binary_crossentropy(_f([1.0]), x)
    with pytest.raises(ShapeError, match="categorical_crossentropy: arguments 'target' and "
                                         "'output' must be at least rank 1"):
        ops.categorical_crossentropy(_f(1.0), _f(1.0))
    with pytest.raises(ShapeError, match="sparse_categorical_crossentropy: argument 'output' "
                                         "must be at least rank 1"):
        ops.sparse_categorical_crossentropy(_f(1, "int32"), _f(1.0))
    with pytest.raises(ShapeError, match="sparse_categorical_crossentropy: argument 'target' "
                                         "must have the shape of 'output' without axis 1"):
        ops.sparse_categorical_crossentropy(_f([1, 0, 1], "int32"), x)
    with pytest.raises(IndexRangeError, match="sparse_categorical_crossentropy: 'target' "
                                              "holds the label 7"):
        ops.sparse_categorical_crossentropy(_f([7, 0], "int32"), x)
    with pytest.raises(ShapeError, match="psnr: arguments 'x1' and 'x2' must have the same "
                                         "shape"):
        ops.psnr(x, _f([1.0]), 1.0)
    with pytest.raises(ShapeError, match="glu: axis -1 of 'x' must exist and have even size"):
        ops.glu(_f([1.0, 2.0, 3.0]))


def test_graph_mode_normalization(backend):
    def f(x, g, b):
        return ops.layer_normalization(x, g, b), ops.rms_normalization(x, g)
    x, g, b = _f(_X), _f([1.0, 2, 3, 4]), _f([0.5, 0, 0, -0.5])
    for e, j in zip(f(x, g, b), lamina.jit(f)(x, g, b)):
        np.testing.assert_array_equal(e.numpy(), j.numpy())
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        ops.moments(x, axes=[1])
