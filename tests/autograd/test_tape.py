import numpy as np
import pytest

import lamina
from lamina import ops
from lamina.errors import GradientError


def t(values, dtype="float64"):
    return ops.convert_to_tensor(np.asarray(values, dtype=dtype))


def test_gradient_of_trainable_variable_is_automatic(backend):
    w = lamina.Variable([1.0, 2.0, 3.0])
    with lamina.GradientTape() as tape:
        y = ops.sum(w * w)
    g = tape.gradient(y, w)
    assert g.dtype == "float32"
    np.testing.assert_allclose(g.numpy(), [2.0, 4.0, 6.0])


def test_plain_tensors_need_watch(backend):
    x = t([1.0, 2.0])
    with lamina.GradientTape() as tape:
        y = ops.sum(x * 3.0)
    assert tape.gradient(y, x) is None
    with lamina.GradientTape() as tape:
        tape.watch(x)
        y = ops.sum(x * 3.0)
    np.testing.assert_allclose(tape.gradient(y, x).numpy(), [3.0, 3.0])


def test_non_trainable_and_unwatched_variables_get_none(backend):
    frozen = lamina.Variable([1.0], trainable=False)
    w = lamina.Variable([2.0])
    with lamina.GradientTape(watch_accessed_variables=False) as tape:
        y = ops.sum(w * frozen)
    assert tape.gradient(y, [w, frozen]) == [None, None]
    with lamina.GradientTape() as tape:
        y = ops.sum(w * frozen)
    gw, gf = tape.gradient(y, [w, frozen])
    np.testing.assert_allclose(gw.numpy(), [1.0])
    assert gf is None


def test_unconnected_gradients_zero(backend):
    x, z = t([1.0, 2.0]), t([5.0])
    with lamina.GradientTape() as tape:
        tape.watch([x, z])
        y = ops.sum(x)
    gx, gz = tape.gradient(y, [x, z], unconnected_gradients="zero")
    np.testing.assert_allclose(gz.numpy(), [0.0])
    with pytest.raises(ValueError, match="'unconnected_gradients' must be 'none' or 'zero'"):
        with lamina.GradientTape() as tape2:
            tape2.watch(x)
            y = ops.sum(x)
        tape2.gradient(y, x, unconnected_gradients="zeros")


def test_non_persistent_tape_is_single_use(backend):
    x = t([1.0])
    with lamina.GradientTape() as tape:
        tape.watch(x)
        y = ops.sum(x * x)
    tape.gradient(y, x)
    with pytest.raises(GradientError, match="only be called once on a non-persistent tape"):
        tape.gradient(y, x)


def test_persistent_tape_gives_several_gradients(backend):
    x = t([3.0])
    with lamina.GradientTape(persistent=True) as tape:
        tape.watch(x)
        y = x * x
        z = y * y
    np.testing.assert_allclose(tape.gradient(y, x).numpy(), [6.0])
    np.testing.assert_allclose(tape.gradient(z, x).numpy(), [108.0])   # 4x^3


def test_nested_tapes_give_second_and_third_derivatives(backend):
    x = t([2.0, -1.0])
    with lamina.GradientTape() as t3:
        t3.watch(x)
        with lamina.GradientTape() as t2:
            t2.watch(x)
            with lamina.GradientTape() as t1:
                t1.watch(x)
                y = ops.sum(x * x * x)
            dy = t1.gradient(y, x)                  # 3x^2
        d2y = t2.gradient(dy, x)                    # 6x
    d3y = t3.gradient(d2y, x)                       # 6
    np.testing.assert_allclose(dy.numpy(), [12.0, 3.0])
    np.testing.assert_allclose(d2y.numpy(), [12.0, -6.0])
    np.testing.assert_allclose(d3y.numpy(), [6.0, 6.0])


def test_reused_tensor_accumulates(backend):
    x = t([1.5])
    with lamina.GradientTape() as tape:
        tape.watch(x)
        y = x * 2.0 + x * 3.0 + x
    np.testing.assert_allclose(tape.gradient(y, x).numpy(), [6.0])


def test_structures_of_sources_and_targets(backend):
    a, b = lamina.Variable([1.0]), lamina.Variable([2.0])
    with lamina.GradientTape(persistent=True) as tape:
        y1 = a * b
        y2 = a * 10.0
    grads = tape.gradient([y1, y2], {"a": a, "b": (b,)})
    np.testing.assert_allclose(grads["a"].numpy(), [12.0])
    np.testing.assert_allclose(grads["b"][0].numpy(), [1.0])
    g = tape.gradient(y1, a, output_gradients=[4.0])
    np.testing.assert_allclose(g.numpy(), [8.0])


def test_no_grad_and_stop_recording(backend):
    w = lamina.Variable([1.0])
    with lamina.GradientTape() as tape:
        with lamina.no_grad():
            y = w * 2.0
    assert tape.gradient(y, w) is None

    @lamina.no_grad()
    def f(v):
        return v * 2.0
    with lamina.GradientTape() as tape:
        y = f(w)
        with tape.stop_recording():
            z = w * 5.0
    assert tape.gradient(y + z, w) is None


def test_watch_rejects_non_tensors():
    with lamina.GradientTape() as tape:
        with pytest.raises(TypeError, match="GradientTape.watch: expected tensors; received float"):
            tape.watch([[1.0]])
        with pytest.raises(TypeError, match="'sources' must be tensors or variables"):
            tape.gradient(ops.ones((1,)), [3.0])


def test_watched_variables_and_reset(backend):
    w = lamina.Variable([1.0], name="w")
    with lamina.GradientTape(persistent=True) as tape:
        y = w * w
    assert tape.watched_variables() == [w]
    tape.reset()
    assert tape.watched_variables() == []
    assert tape.gradient(y, w) is None


def test_integer_inputs_get_no_gradient(backend):
    i = ops.convert_to_tensor([1, 2])
    x = t([1.0, 1.0])
    with lamina.GradientTape() as tape:
        tape.watch([x])
        y = ops.sum(x * ops.cast(i, "float64"))
    np.testing.assert_allclose(tape.gradient(y, x).numpy(), [1.0, 2.0])


def test_a_variable_changed_in_place_before_the_gradient_is_an_error():
    import lamina
    from lamina import ops
    w = lamina.Variable([1.0, 2.0], name="w_inplace")
    with lamina.GradientTape() as tape:
        loss = ops.sum(ops.square(w))
        w.assign([0.5, 0.5])
    with pytest.raises(lamina.errors.GradientError,
                       match=r"variable 'w_inplace' was read by op 'square' and then "
                             r"changed in place"):
        tape.gradient(loss, w)
