"""clipnorm (per gradient), global_clipnorm (all gradients together), clipvalue."""
import numpy as np
import pytest

import lamina
from lamina import ops
from lamina.optimizers import SGD, Adam
from lamina.optimizers.clipping import clip_by_global_norm


def _step(optimizer, weights, grads, dtype="float32"):
    variables = [lamina.Variable(np.array(w, dtype), name=f"w{i}")
                 for i, w in enumerate(weights)]
    optimizer.apply_gradients([(ops.convert_to_tensor(np.array(g, dtype)), v)
                               for g, v in zip(grads, variables)])
    return [v.numpy() for v in variables]


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_clipnorm_clips_each_gradient_to_its_own_norm(backend, dtype):
    # [3, 4] has norm 5 -> [0.6, 0.8]; [0, 0.5] has norm 0.5 < 1 and is unchanged.
    a, b = _step(SGD(1.0, clipnorm=1.0), [[0.0, 0.0], [1.0, 1.0]],
                 [[3.0, 4.0], [0.0, 0.5]], dtype)
    np.testing.assert_allclose(a, [-0.6, -0.8], rtol=1e-6)
    np.testing.assert_allclose(b, [1.0, 0.5], rtol=1e-6)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_global_clipnorm_scales_all_gradients_together(backend, dtype):
    # joint norm of [3, 0] and [0, 4] is 5 -> both scaled by 1/5 (clipnorm would give 1, 1).
    a, b = _step(SGD(1.0, global_clipnorm=1.0), [[0.0, 0.0], [0.0, 0.0]],
                 [[3.0, 0.0], [0.0, 4.0]], dtype)
    np.testing.assert_allclose(a, [-0.6, 0.0], rtol=1e-6)
    np.testing.assert_allclose(b, [0.0, -0.8], rtol=1e-6)
    a, b = _step(SGD(1.0, clipnorm=1.0), [[0.0, 0.0], [0.0, 0.0]],
                 [[3.0, 0.0], [0.0, 4.0]], dtype)
    np.testing.assert_allclose(np.concatenate([a, b]), [-1.0, 0.0, 0.0, -1.0], rtol=1e-6)


def test_global_clipnorm_leaves_small_gradients_alone():
    (a,) = _step(SGD(1.0, global_clipnorm=10.0), [[0.0, 0.0]], [[3.0, 4.0]])
    np.testing.assert_allclose(a, [-3.0, -4.0], rtol=1e-6)


def test_clip_by_global_norm_of_an_infinite_gradient_is_nan():
    grads = [ops.convert_to_tensor(np.array([np.inf, 1.0], "float32"))]
    with np.errstate(invalid="ignore"):
        (clipped,) = clip_by_global_norm(grads, 1.0)
    assert np.isnan(clipped.numpy()).all()


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_clipvalue_clips_elementwise(backend, dtype):
    (a,) = _step(SGD(1.0, clipvalue=0.5), [[0.0, 0.0, 0.0]], [[-2.0, 0.3, 1.0]], dtype)
    np.testing.assert_allclose(a, [0.5, -0.3, -0.5], rtol=1e-6)


def test_clipping_happens_before_the_optimizer_sees_the_gradient():
    # Adam's first step moves each weight by ~lr whatever the gradient's size; the
    # clipped and unclipped velocities differ by the clip factor squared.
    opt = Adam(0.1, clipnorm=1.0)
    _step(opt, [[0.0, 0.0]], [[30.0, 40.0]])
    np.testing.assert_allclose(opt._velocities[0].numpy(), [0.001 * 0.36, 0.001 * 0.64],
                               rtol=1e-5)


@pytest.mark.parametrize("kwargs,shown", [
    ({"clipnorm": 1.0, "clipvalue": 0.5}, "clipnorm=1.0, clipvalue=0.5"),
    ({"clipnorm": 1.0, "global_clipnorm": 2.0}, "clipnorm=1.0, global_clipnorm=2.0"),
    ({"clipvalue": 1.0, "global_clipnorm": 2.0}, "clipvalue=1.0, global_clipnorm=2.0"),
])
def test_only_one_clip_option_at_a_time(kwargs, shown):
    with pytest.raises(ValueError, match=r"Adam: Only one of `clipnorm`, `clipvalue` and "
                                         r"`global_clipnorm` can be set; received " + shown):
        Adam(**kwargs)


def test_clip_options_must_be_positive():
    with pytest.raises(ValueError, match=r"SGD: argument 'clipnorm' must be > 0; "
                                         r"received -1.0"):
        SGD(clipnorm=-1.0)
    with pytest.raises(TypeError, match=r"SGD: argument 'clipvalue' must be a number; "
                                        r"received 'big'"):
        SGD(clipvalue="big")


@pytest.mark.parametrize("kwargs, expected", [
    ({"clipnorm": 1}, [2**0.5 / 2, 2**0.5 / 2]),
    ({"clipvalue": 1}, [1.0, 1.0]),
    ({"global_clipnorm": 1}, [2**0.5 / 2, 2**0.5 / 2]),
    ({}, [100.0, 100.0]),
])
def test_clip_gradients_takes_plain_arrays_as_keras(kwargs, expected):
    # Keras 3.15.1's tests call optimizer._clip_gradients([np.array([100.0, 100.0])])
    (clipped,) = SGD(**kwargs)._clip_gradients([np.array([100.0, 100.0])])
    np.testing.assert_allclose(np.asarray(clipped), expected, rtol=1e-6)
