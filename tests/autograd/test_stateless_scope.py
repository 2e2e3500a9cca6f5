"""StatelessScope / SymbolicScope, Layer.stateless_call and Optimizer.stateless_apply."""
import numpy as np
import pytest

import lamina
from lamina import layers, ops
from lamina.core import stateless_scope as ss
from lamina.core import mode


def test_reads_mapped_values_and_collects_writes():
    v = lamina.Variable(np.array([1.0, 2.0], "float32"))
    u = lamina.Variable(np.array([5.0], "float32"))
    with lamina.StatelessScope([(v, [10.0, 20.0])]) as scope:
        np.testing.assert_array_equal((v * 2).numpy(), [20.0, 40.0])
        np.testing.assert_array_equal(v.value.numpy(), [10.0, 20.0])
        v.assign_add([1.0, 1.0])
        np.testing.assert_array_equal(ops.sum(v).numpy(), 32.0)
        np.testing.assert_array_equal(v.numpy(), [11.0, 21.0])
        v.assign_sub([0.5, 0.5])
        u.assign([7.0])                      # unmapped: the write goes to the scope too
        np.testing.assert_array_equal((u + 0).numpy(), [7.0])
    np.testing.assert_array_equal(scope.get_current_value(v).numpy(), [10.5, 20.5])
    np.testing.assert_array_equal(scope.get_current_value(u).numpy(), [7.0])
    np.testing.assert_array_equal(v.numpy(), [1.0, 2.0])
    np.testing.assert_array_equal(u.numpy(), [5.0])
    assert scope.get_current_value(lamina.Variable([0.0])) is None
    assert mode.current("stateless") is None and not mode._open_scopes   # all closed


def test_nested_scopes_and_value_dtype():
    v = lamina.Variable(np.array([1.0, 2.0], "float32"))
    other = lamina.Variable(np.array([3, 4], "int32"))
    with lamina.StatelessScope([(v, other)]) as outer:   # a Variable value is cast
        assert outer.get_current_value(v).dtype == "float32"
        with lamina.StatelessScope([(v, [0.0, 0.0])]):
            np.testing.assert_array_equal((v + 1).numpy(), [1.0, 1.0])
            assert ss.get_stateless_scope() is not outer
        np.testing.assert_array_equal((v + 1).numpy(), [4.0, 5.0])
    assert not ss.in_stateless_scope()


def test_scope_errors():
    v = lamina.Variable(np.zeros((2,), "float32"))
    with pytest.raises(ValueError, match="every key of argument 'state_mapping' must be a "
                                         "Variable"):
        lamina.StatelessScope([(np.zeros(2), np.zeros(2))])
    with pytest.raises(ValueError, match=r"must have the variable's shape \(2,\); received "
                                         r"shape \(3,\)"):
        lamina.StatelessScope([(v, np.zeros(3, "float32"))])
    with lamina.StatelessScope():
        with pytest.raises(ValueError, match=r"'\.assign: expected a value of shape \(2,\); "
                                             r"received shape \(3,\)"):
            v.assign(np.zeros(3, "float32"))


class _AddsLoss(layers.Layer):
    def call(self, x):
        self.add_loss(ops.sum(x))
        return x


def test_collect_losses():
    layer = _AddsLoss()
    x = np.ones((2, 3), "float32")
    with lamina.StatelessScope(collect_losses=True) as scope:
        layer(x)
        assert [float(l.numpy()) for l in layer.losses] == [6.0]
    assert [float(l.numpy()) for l in scope.losses] == [6.0]
    assert layer.losses == []                          # nothing left on the layer
    with lamina.StatelessScope() as scope:             # not collecting: dropped
        layer(x)
        assert layer.losses == []
    assert scope.losses == []


def test_symbolic_scope():
    assert not ss.in_symbolic_scope()
    with lamina.SymbolicScope() as scope:
        assert ss.get_symbolic_scope() is scope
    assert not ss.in_symbolic_scope()


def _model():
    model = lamina.Sequential([layers.Dense(3, activity_regularizer="l2"),
                               layers.BatchNormalization()])
    model(np.zeros((2, 4), "float32"))
    return model


def test_stateless_call_matches_a_stateful_call():
    x = np.arange(8, dtype="float32").reshape(2, 4)
    model = _model()
    rng = np.random.default_rng(0)
    trainable = [rng.normal(size=v.shape).astype("float32") for v in model.trainable_variables]
    non_trainable = [v.numpy() for v in model.non_trainable_variables]
    before = [v.numpy() for v in model.weights]
    out, new_state, losses = model.stateless_call(trainable, non_trainable, x, training=True,
                                                  return_losses=True)
    for variable, value in zip(model.weights, before):      # nothing changed
        np.testing.assert_array_equal(variable.numpy(), value)
    for variable, value in zip(model.trainable_variables, trainable):
        variable.assign(value)
    expected = model(x, training=True)
    np.testing.assert_allclose(out.numpy(), expected.numpy(), rtol=1e-6)
    np.testing.assert_allclose(losses[0].numpy(), model.losses[0].numpy(), rtol=1e-6)
    for value, variable in zip(new_state, model.non_trainable_variables):
        np.testing.assert_allclose(value.numpy(), variable.numpy(), rtol=1e-6)
    # moving mean after one step from zeros, momentum 0.99: 0.01 * batch mean
    assert not np.allclose(new_state[0].numpy(), 0.0)


def test_stateless_call_gradients_and_graph_mode():
    x = np.arange(8, dtype="float32").reshape(2, 4)
    model = _model()
    trainable = [ops.convert_to_tensor(v.numpy() + 0.5) for v in model.trainable_variables]
    non_trainable = [v.numpy() for v in model.non_trainable_variables]

    def loss_fn(trainable, non_trainable, x):
        out, state = model.stateless_call(trainable, non_trainable, x, training=True)
        return ops.sum(out * out + out), state

    with lamina.GradientTape() as tape:
        tape.watch(trainable)
        eager_loss, eager_state = loss_fn(trainable, non_trainable, x)
    eager_grads = tape.gradient(eager_loss, trainable)
    for variable, value in zip(model.trainable_variables, trainable):   # same, stateful
        variable.assign(value)
    with lamina.GradientTape() as tape:
        out = model(x, training=True)
        loss = ops.sum(out * out + out)
    stateful = tape.gradient(loss, model.trainable_variables)
    for a, b in zip(eager_grads, stateful):
        np.testing.assert_allclose(a.numpy(), b.numpy(), rtol=1e-5, atol=1e-6)

    @lamina.jit
    def graph_step(trainable, non_trainable, x):
        with lamina.GradientTape() as tape:
            tape.watch(trainable)
            loss, state = loss_fn(trainable, non_trainable, x)
        return loss, tape.gradient(loss, trainable), state

    before = [v.numpy() for v in model.weights]
    g_loss, g_grads, g_state = graph_step(trainable,
                                          [ops.convert_to_tensor(v) for v in non_trainable], x)
    np.testing.assert_allclose(g_loss.numpy(), eager_loss.numpy(), rtol=1e-5)
    for a, b in zip(g_grads, eager_grads):
        np.testing.assert_allclose(a.numpy(), b.numpy(), rtol=1e-5, atol=1e-6)
    for a, b in zip(g_state, eager_state):
        np.testing.assert_allclose(a.numpy(), b.numpy(), rtol=1e-5, atol=1e-6)
    for variable, value in zip(model.weights, before):
        np.testing.assert_array_equal(variable.numpy(), value)


def test_stateless_call_errors():
    with pytest.raises(ValueError, match="Dense.stateless_call: the layer must be built"):
        layers.Dense(2).stateless_call([], [], np.zeros((1, 2), "float32"))
    dense = layers.Dense(2)
    dense(np.zeros((1, 3), "float32"))
    with pytest.raises(ValueError, match=r"argument 'trainable_variables' must be a list of "
                                         r"tensors corresponding 1:1 .*received a list of "
                                         r"length 1, expected 2"):
        dense.stateless_call([np.zeros((3, 2), "float32")], [], np.zeros((1, 3), "float32"))
    with pytest.raises(ValueError, match="argument 'non_trainable_variables'.*length 1, "
                                         "expected 0"):
        dense.stateless_call([v.numpy() for v in dense.trainable_variables],
                             [np.zeros(2)], np.zeros((1, 3), "float32"))


def test_stateless_apply_matches_apply():
    rng = np.random.default_rng(1)
    start = rng.normal(size=(3,)).astype("float32")
    grads = [rng.normal(size=(3,)).astype("float32")]
    w = lamina.Variable(start.copy())
    optimizer = lamina.optimizers.Adam(0.1)
    optimizer.build([w])
    state = [v.numpy() for v in optimizer.variables]
    new_w, new_state = optimizer.stateless_apply(state, grads, [start])
    np.testing.assert_array_equal(w.numpy(), start)
    assert int(optimizer.iterations.numpy()) == 0
    optimizer.apply(grads)                                # the stateful step
    np.testing.assert_allclose(new_w[0].numpy(), w.numpy(), rtol=1e-6)
    for value, variable in zip(new_state, optimizer.variables):
        np.testing.assert_allclose(np.asarray(value.numpy()), variable.numpy(), rtol=1e-6)
    assert int(new_state[0].numpy()) == 1


def test_stateless_apply_errors():
    optimizer = lamina.optimizers.SGD()
    with pytest.raises(ValueError, match="SGD.stateless_apply: the optimizer must be built"):
        optimizer.stateless_apply([], [], [])
    w = lamina.Variable(np.zeros(2, "float32"))
    optimizer.build([w])
    with pytest.raises(ValueError, match="argument 'optimizer_variables'.*received a list of "
                                         "length 0"):
        optimizer.stateless_apply([], [np.zeros(2, "float32")], [np.zeros(2, "float32")])
    with pytest.raises(ValueError, match="argument 'trainable_variables'.*received a list of "
                                         "length 2, expected 1"):
        optimizer.stateless_apply([v.numpy() for v in optimizer.variables],
                                  [np.zeros(2, "float32")], [np.zeros(2, "float32")] * 2)
