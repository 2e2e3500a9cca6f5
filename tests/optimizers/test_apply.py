"""Optimizer.apply / apply_gradients: None gradients, shape checks, building on first use,
constraints, loss scaling, training under a GradientTape, and the errors."""
import numpy as np
import pytest

import lamina
from lamina import ops
from lamina.constraints import NonNeg
from lamina.errors import ShapeError
from lamina.optimizers import SGD, Adam


def _var(values, name="w", dtype="float32"):
    v = lamina.Variable(np.array(values, dtype), dtype=dtype, name=name)
    v.path = f"dense/{name}"
    return v


def _t(values, dtype="float32"):
    return ops.convert_to_tensor(np.array(values, dtype))


def test_apply_builds_on_first_use_and_then_takes_gradients_alone():
    w = _var([1.0, 2.0])
    opt = SGD(0.5)
    assert not opt.built
    opt.apply([_t([1.0, 1.0])], [w])
    assert opt.built
    opt.apply([_t([2.0, 0.0])])                  # the variables it was built with
    np.testing.assert_allclose(w.numpy(), [-0.5, 1.5])
    assert int(opt.iterations) == 2


def test_apply_gradients_returns_iterations_and_accepts_zip_and_numpy():
    w = _var([1.0])
    opt = SGD(0.5)
    result = opt.apply_gradients(zip([np.array([2.0], "float32")], [w]))
    assert result is opt.iterations and int(result) == 1
    np.testing.assert_allclose(w.numpy(), [0.0])
    assert opt.apply_gradients([]) is opt.iterations and int(opt.iterations) == 1


def test_none_gradients_are_skipped_with_a_warning():
    a, b = _var([1.0], "kernel"), _var([1.0], "bias")
    opt = SGD(0.5)
    with pytest.warns(UserWarning, match=r"gradients do not exist for variables "
                                         r"\['dense/bias'\]"):
        opt.apply_gradients([(_t([1.0]), a), (None, b)])
    np.testing.assert_allclose([a.numpy()[0], b.numpy()[0]], [0.5, 1.0])


def test_all_none_gradients_is_an_error_naming_the_variables():
    a, b = _var([1.0], "kernel"), _var([1.0], "bias")
    with pytest.raises(ValueError, match=r"SGD.apply_gradients: No gradients provided for "
                                         r"any variable\. All gradients are None, for variables "
                                         r"\['dense/kernel', 'dense/bias'\]"):
        SGD().apply_gradients([(None, a), (None, b)])


def test_mismatched_gradient_shape_is_an_error():
    w = _var([[1.0, 2.0]])
    with pytest.raises(ShapeError, match=r"Adam.apply_gradients: the gradient for variable "
                                         r"'dense/w' must have the variable's shape \(1, 2\); "
                                         r"received shape \(2,\)"):
        Adam().apply_gradients([(_t([1.0, 2.0]), w)])


def test_other_apply_errors():
    w = _var([1.0])
    with pytest.raises(ValueError, match=r"SGD.apply: when 'trainable_variables' is not "
                                         r"given the optimizer must already be built"):
        SGD().apply([_t([1.0])])
    opt = SGD()
    opt.build([w])
    with pytest.raises(ValueError, match=r"SGD.apply: unknown variable\(s\) \['dense/other'\]"):
        opt.apply([_t([1.0])], [_var([1.0], "other")])
    with pytest.raises(ValueError, match=r"SGD.apply: expected one gradient per variable "
                                         r"\(1 variables\); received 2 gradients"):
        opt.apply([_t([1.0]), _t([1.0])])
    with pytest.raises(TypeError, match=r"SGD.apply_gradients: argument 'grads_and_vars' "
                                        r"must be a list of \(gradient, variable\) pairs"):
        opt.apply_gradients([w])


def test_gradients_are_cast_to_the_variable_dtype():
    w = _var([1.0], dtype="float64")
    SGD(0.5).apply_gradients([(_t([1.0], "float32"), w)])
    assert w.dtype == "float64"
    np.testing.assert_allclose(w.numpy(), [0.5])


def test_constraint_applies_after_each_update(backend):
    w = _var([1.0, 1.0])
    w.constraint = NonNeg()
    SGD(1.0).apply_gradients([(_t([3.0, -1.0]), w)])
    np.testing.assert_allclose(w.numpy(), [0.0, 2.0])


def test_loss_scale_factor_unscales_the_gradients():
    w = _var([0.0])
    opt = SGD(1.0, loss_scale_factor=4.0)
    assert float(opt.scale_loss(_t(3.0))) == 12.0
    opt.apply_gradients([(_t([8.0]), w)])
    np.testing.assert_allclose(w.numpy(), [-2.0])


def test_training_a_quadratic_under_a_gradient_tape(backend):
    # loss = sum((w - 3)^2): Adam(0.1) gets close to the minimum in 200 steps.
    w = _var([0.0, 10.0])
    opt = Adam(0.1)
    for _ in range(200):
        with lamina.GradientTape() as tape:
            loss = ops.sum(ops.square(ops.subtract(w, 3.0)))
        opt.apply_gradients(zip(tape.gradient(loss, [w]), [w]))
    np.testing.assert_allclose(w.numpy(), [3.0, 3.0], atol=0.05)


def test_the_update_is_not_recorded_on_an_open_tape():
    w = _var([1.0])
    opt = Adam(0.5)
    with lamina.GradientTape() as tape:
        ops.sum(ops.square(w))
        recorded = len(tape._records)
        opt.apply_gradients([(_t([1.0]), w)])      # inside the tape by mistake
        assert len(tape._records) == recorded       # the optimizer's ops ran untaped


def test_a_subclass_needs_only_build_and_update_step():
    class SignDescent(lamina.optimizers.Optimizer):
        def __init__(self, learning_rate=0.1, **kwargs):
            super().__init__(learning_rate=learning_rate, **kwargs)

        def update_step(self, gradient, variable, learning_rate):
            self.assign_sub(variable, ops.multiply(ops.sign(gradient),
                                                   ops.cast(learning_rate, variable.dtype)))

    w = _var([0.0, 0.0])
    opt = SignDescent(clipvalue=1.0)
    assert opt.name == "sign_descent"
    opt.apply_gradients([(_t([5.0, -0.1]), w)])
    np.testing.assert_allclose(w.numpy(), [-0.1, 0.1], rtol=1e-6)
    with pytest.raises(NotImplementedError, match="Optimizer subclasses must implement "
                                                  "update_step"):
        lamina.optimizers.Optimizer(0.1).apply_gradients([(_t([1.0, 1.0]), w)])


def test_numpy_reductions_read_a_constrained_variable(backend):
    # Keras 3.15.1's test_constraints_are_applied checks np.min(variable) after a step:
    # numpy calls variable.min(axis=None, out=None); np.sum/np.mean also pass dtype.
    w = lamina.Variable(np.array([[-0.5, 0.25], [-1.0, 0.75]], "float32"))
    w.constraint = NonNeg()
    SGD(learning_rate=1e-4).apply_gradients([(ops.zeros((2, 2)), w)])
    assert float(np.min(w)) == 0.0 and float(np.max(w)) == 0.75
    assert float(np.sum(w)) == 1.0 and float(np.mean(w, dtype="float64")) == 0.25
    with pytest.raises(TypeError, match=r"Tensor.min: argument 'out' is not supported"):
        w.min(out=np.zeros(()))
