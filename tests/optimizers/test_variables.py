"""Optimizer state: Keras 3's order and names, dtypes, devices, in-place updates, and
restoring it (set_weights, save_own_variables/load_own_variables)."""
import numpy as np
import pytest

from lamina.optimizers import SGD, Adagrad, Adam, Nadam, RMSprop

from .helpers import make_variables, train


def _names(optimizer):
    return [v.name for v in optimizer.variables]


def test_adam_slots_are_interleaved_per_variable():
    opt = Adam()
    opt.build(make_variables("float32"))
    assert _names(opt) == ["iteration", "learning_rate",
                           "dense_kernel_momentum", "dense_kernel_velocity",
                           "dense_bias_momentum", "dense_bias_velocity"]
    assert opt.variables[2].path == "adam/dense_kernel_momentum"
    assert all(not v.trainable for v in opt.variables)


def test_amsgrad_velocity_hats_follow():
    opt = Adam(amsgrad=True)
    opt.build(make_variables("float32"))
    assert _names(opt)[-2:] == ["dense_kernel_velocity_hat", "dense_bias_velocity_hat"]


def test_rmsprop_slots_are_grouped_by_kind():
    opt = RMSprop(momentum=0.5, centered=True)
    opt.build(make_variables("float32"))
    assert _names(opt)[2:] == ["dense_kernel_velocity", "dense_bias_velocity",
                               "dense_kernel_momentum", "dense_bias_momentum",
                               "dense_kernel_average_gradient", "dense_bias_average_gradient"]


def test_sgd_without_momentum_has_no_slots_and_nadam_ends_with_u_product():
    sgd = SGD()
    sgd.build(make_variables("float32"))
    assert _names(sgd) == ["iteration", "learning_rate"]
    nadam = Nadam()
    nadam.build(make_variables("float64"))
    assert _names(nadam)[-1] == "u_product"
    assert nadam.variables[-1].shape == () and nadam.variables[-1].dtype == "float64"


def test_ema_and_accumulator_slots_come_before_the_optimizers_own():
    opt = SGD(momentum=0.5, use_ema=True, gradient_accumulation_steps=2)
    opt.build(make_variables("float32"))
    assert _names(opt)[2:] == ["dense_kernel_average", "dense_kernel_gradient_accumulator",
                               "dense_bias_average", "dense_bias_gradient_accumulator",
                               "dense_kernel_momentum", "dense_bias_momentum"]


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_slots_take_the_variables_shape_dtype_and_device(backend, dtype):
    variables = make_variables(dtype)
    opt = Adagrad()
    opt.build(variables)
    for slot, variable in zip(opt.variables[2:], variables):
        assert slot.shape == variable.shape and slot.dtype == dtype
        assert slot.backend is backend
        np.testing.assert_allclose(slot.numpy(), np.full(variable.shape, 0.1))


def test_updates_are_in_place():
    variables = make_variables("float32")
    buffers = [v.data for v in variables]
    opt = Adam(0.1)
    train(opt, variables, 1)
    slots, slot_buffers = opt.variables, [v.data for v in opt.variables]
    train(opt, variables, 2)
    assert all(v.data is b for v, b in zip(variables, buffers))
    assert all(a is b for a, b in zip(opt.variables, slots))
    assert all(v.data is b for v, b in zip(opt.variables, slot_buffers))
    assert int(opt.iterations) == 3


def test_build_twice_keeps_the_first_slots():
    variables = make_variables("float32")
    opt = Adam()
    opt.build(variables)
    first = opt.variables
    opt.build(variables)
    assert len(opt.variables) == 6 and all(a is b for a, b in zip(opt.variables, first))


def test_set_weights_and_save_load_round_trip():
    variables = make_variables("float32")
    opt = Adam(0.1)
    train(opt, variables, 3)
    store = {}
    opt.save_own_variables(store)
    assert sorted(store) == [str(i) for i in range(6)] and int(store["0"]) == 3
    fresh = Adam(0.1)
    fresh.build(make_variables("float32"))
    fresh.load_own_variables(store)
    for a, b in zip(fresh.variables, opt.variables):
        np.testing.assert_array_equal(a.numpy(), b.numpy())
    other = Adam(0.1)
    other.build(make_variables("float32"))
    other.set_weights([v.numpy() for v in opt.variables])
    np.testing.assert_array_equal(other.variables[3].numpy(), opt.variables[3].numpy())


def test_load_into_an_unbuilt_optimizer_warns_and_skips():
    with pytest.warns(UserWarning, match="Skipping variable loading for optimizer 'adam': "
                                         "it has 2 variables and the saved optimizer has 6"):
        Adam().load_own_variables({str(i): None for i in range(6)})


def test_state_errors():
    opt = Adam()
    with pytest.raises(ValueError, match=r"Adam.set_weights: You are calling set_weights\(\) "
                                         r"on an optimizer that has not been built yet"):
        opt.set_weights([])
    opt.build(make_variables("float32"))
    with pytest.raises(ValueError, match=r"Adam.set_weights: expected 6 arrays; received 1"):
        opt.set_weights([np.zeros(())])
    wrong = [v.numpy() for v in opt.variables]
    wrong[2] = np.zeros((3, 3), "float32")
    with pytest.raises(ValueError, match=r"variable 'adam/dense_kernel_momentum' has shape "
                                         r"\(2, 3\); received shape \(3, 3\)"):
        opt.set_weights(wrong)
    with pytest.raises(TypeError, match=r"SGD.build: expected a list of lamina.Variable; "
                                        r"element 0 is a ndarray"):
        SGD().build([np.zeros(3)])
