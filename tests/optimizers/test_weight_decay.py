"""Decoupled weight decay on any optimizer, and excluding variables from it."""
import numpy as np
import pytest

import lamina
from lamina import ops
from lamina.optimizers import SGD, AdamW


def _variables(dtype="float32"):
    kernel = lamina.Variable(np.array([2.0, -4.0], dtype), name="kernel")
    bias = lamina.Variable(np.array([1.0, 1.0], dtype), name="bias")
    kernel.path, bias.path = "dense/kernel", "dense/bias"
    return kernel, bias


def _step(optimizer, variables, dtype="float32"):
    ones = [ops.convert_to_tensor(np.ones(v.shape, dtype)) for v in variables]
    optimizer.apply_gradients(zip(ones, variables))


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_decay_comes_before_the_update(backend, dtype):
    kernel, bias = _variables(dtype)
    _step(SGD(0.1, weight_decay=0.5), [kernel, bias], dtype)
    # w -= w * 0.5 * 0.1 -> [1.9, -3.8]; then w -= 0.1 * 1
    np.testing.assert_allclose(kernel.numpy(), [1.8, -3.9], rtol=1e-6)
    np.testing.assert_allclose(bias.numpy(), [0.85, 0.85], rtol=1e-6)


def test_exclude_by_name():
    kernel, bias = _variables()
    opt = SGD(0.1, weight_decay=0.5)
    opt.exclude_from_weight_decay(var_names=["bias"])
    _step(opt, [kernel, bias])
    np.testing.assert_allclose(kernel.numpy(), [1.8, -3.9], rtol=1e-6)
    np.testing.assert_allclose(bias.numpy(), [0.9, 0.9], rtol=1e-6)     # no decay


def test_exclude_by_variable():
    kernel, bias = _variables()
    opt = AdamW(0.1, weight_decay=0.5)
    opt.exclude_from_weight_decay(var_list=[kernel])
    reference = AdamW(0.1, weight_decay=0.0)
    k2, b2 = _variables()
    _step(opt, [kernel, bias])
    _step(reference, [k2, b2])
    np.testing.assert_allclose(kernel.numpy(), k2.numpy(), rtol=1e-6)  # not decayed
    assert not np.allclose(bias.numpy(), b2.numpy())                    # decayed


def test_exclude_after_build_is_an_error():
    kernel, bias = _variables()
    opt = SGD(weight_decay=0.1)
    opt.build([kernel, bias])
    with pytest.raises(ValueError, match=r"SGD.exclude_from_weight_decay: can only be "
                                         r"configured before the optimizer is built"):
        opt.exclude_from_weight_decay(var_names=["bias"])


def test_weight_decay_must_be_non_negative():
    with pytest.raises(ValueError, match=r"SGD: argument 'weight_decay' must be >= 0; "
                                         r"received -0.1"):
        SGD(weight_decay=-0.1)


def test_apply_weight_decay_alone_uses_the_current_learning_rate():
    # Keras's _apply_weight_decay(variables) has no learning-rate argument:
    # v - v * 0.1 * 0.5 with AdamW(learning_rate=0.5, weight_decay=0.1)
    kernel, bias = _variables()
    opt = AdamW(learning_rate=0.5, weight_decay=0.1)
    opt.exclude_from_weight_decay(var_names=["bias"])
    opt._apply_weight_decay([kernel, bias])
    np.testing.assert_allclose(kernel.numpy(), [1.9, -3.8], rtol=1e-6)
    np.testing.assert_array_equal(bias.numpy(), [1.0, 1.0])
