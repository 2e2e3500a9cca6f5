"""Variable updates in graph mode: "compute every new value, then commit".

Writing an update straight into its variable is an optimization the alias analysis must
prove safe for the variable and every view of it (reshape, transpose, getitem,
stop_gradient, expand_dims share the variable's buffer)."""
import numpy as np
import pytest

import lamina
from lamina import layers, ops
from lamina.graph.memory_plan import plan_memory


# --------------------------------------------------------------------------- models
def _conv1d_data(rng):
    return (rng.standard_normal((8, 6, 3)).astype("float32"),
            rng.standard_normal((8, 6, 2)).astype("float32"))


HEADS = {
    # name: (body, head, data); a conv head reads its kernel through a view (expand_dims,
    # reshape, transpose) in the backward pass of the layer that feeds it
    "conv1d": (lambda: layers.Conv1D(3, 3, padding="same", activation="tanh"),
               lambda: layers.Conv1D(2, 3, padding="same"), _conv1d_data),
    "depthwise_conv2d": (
        lambda: layers.Conv2D(3, 3, padding="same", activation="tanh"),
        lambda: layers.DepthwiseConv2D(3, padding="same"),
        lambda rng: (rng.standard_normal((8, 5, 5, 2)).astype("float32"),
                     rng.standard_normal((8, 5, 5, 3)).astype("float32"))),
    "separable_conv1d": (lambda: layers.Conv1D(3, 3, padding="same", activation="tanh"),
                         lambda: layers.SeparableConv1D(2, 3, padding="same"), _conv1d_data),
    "conv1d_transpose": (lambda: layers.Conv1D(3, 3, padding="same", activation="tanh"),
                         lambda: layers.Conv1DTranspose(2, 3, padding="same"), _conv1d_data),
    "layernorm_dense": (
        lambda: layers.Dense(5, activation="tanh"),
        lambda: lamina.Sequential([layers.LayerNormalization(), layers.Dense(2)]),
        lambda rng: (rng.standard_normal((8, 4)).astype("float32"),
                     rng.standard_normal((8, 2)).astype("float32"))),
}


def _subclassed(body, head, head_first: bool):
    class HeadAndBody(lamina.Model):
        def __init__(self):
            super().__init__()
            if head_first:          # the head's weights come first and are updated first
                self.head = head()
                self.body = body()
            else:
                self.body = body()
                self.head = head()

        def call(self, x):
            return self.head(self.body(x))
    return HeadAndBody()


def _train(name, head_first, eager, steps=4):
    body, head, data = HEADS[name]
    x, y = data(np.random.default_rng(0))
    lamina.utils.set_random_seed(3)
    model = _subclassed(body, head, head_first)
    # a large learning rate makes a stale read of an updated weight plainly visible
    model.compile(optimizer=lamina.optimizers.Adam(0.05), loss="mse", run_eagerly=eager)
    losses = [model.train_on_batch(x, y) for _ in range(steps)]
    return model, losses, model.get_weights()


@pytest.mark.parametrize("head_first", [True, False], ids=["head_first", "body_first"])
@pytest.mark.parametrize("name", sorted(HEADS))
def test_subclassed_model_trains_as_in_eager_mode_in_either_creation_order(name, head_first):
    _, eager_losses, eager_weights = _train(name, head_first, eager=True)
    _, graph_losses, graph_weights = _train(name, head_first, eager=False)
    np.testing.assert_allclose(graph_losses, eager_losses, rtol=1e-4, atol=1e-5)
    assert len(graph_weights) == len(eager_weights)
    for got, want in zip(graph_weights, eager_weights):
        np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-5)


def _train_plan(model):
    (_, plan), = model.train_function.function._plans.values()
    return plan


def test_a_weight_read_through_a_view_after_its_update_gets_a_separate_buffer():
    model, _, _ = _train("conv1d", head_first=True, eager=False)
    plan = _train_plan(model)
    kernel = model.head.kernel
    # the head's kernel is read (as a view) by the body's backward pass after its update
    assert id(kernel) not in plan.direct_updates
    # every other update (Adam slots, biases, the body's kernel) still writes in place
    assert len(plan.direct_updates) == len(plan.update_slots) - 1


def test_a_dense_mlp_still_writes_every_adam_update_in_place():
    rng = np.random.default_rng(0)
    x, y = rng.standard_normal((16, 6)).astype("float32"), rng.integers(0, 3, 16)
    model = lamina.Sequential([lamina.Input((6,)), layers.Dense(8, activation="relu"),
                               layers.Dense(3, activation="softmax")])
    model.compile(optimizer="adam", loss="sparse_categorical_crossentropy")
    model.fit(x, y, batch_size=8, epochs=1, verbose=0)
    plan = _train_plan(model)
    # 4 weights x (value, momentum, velocity), the iteration count, the loss accumulators
    assert len(plan.update_slots) >= 13
    assert len(plan.direct_updates) == len(plan.update_slots)


# --------------------------------------------------------------------------- lamina.jit
VIEWS = {
    "reshape": (lambda v: ops.reshape(v, (3, 2)), lambda a: a.reshape(3, 2)),
    "transpose": (lambda v: ops.transpose(v), lambda a: a.T),
    "getitem": (lambda v: v[1], lambda a: a[1]),
    "stop_gradient": (lambda v: ops.stop_gradient(v), lambda a: a),
    "expand_dims": (lambda v: ops.expand_dims(v, 0), lambda a: a[None]),
}
START = np.arange(6, dtype="float32").reshape(2, 3) + 1


@pytest.mark.parametrize("passes", [None, []], ids=["optimized", "no_passes"])
@pytest.mark.parametrize("view", sorted(VIEWS))
def test_a_view_read_after_an_assign_sees_the_old_value(view, passes):
    make_view, reference = VIEWS[view]
    v = lamina.Variable(START.copy())

    @lamina.jit(passes=passes)
    def step(x):
        old = make_view(v)                     # a view of the variable's buffer
        # the update needs the view, so the view is made before the update's op, which may
        # write over the variable; the second output reads the view after that op
        v.assign(ops.multiply(v, ops.mean(old)))
        return ops.sum(v), ops.add(ops.multiply(old, x), 0.5)
    x = ops.convert_to_tensor(np.float32(3.0))
    for call in range(3):
        before = v.numpy().copy()
        new_sum, got = step(x)
        after = before * reference(before).mean()
        np.testing.assert_allclose(got.numpy(), reference(before) * 3.0 + 0.5, rtol=1e-6,
                                   err_msg=f"call {call}")
        np.testing.assert_allclose(v.numpy(), after, rtol=1e-6)
        np.testing.assert_allclose(float(new_sum.numpy()), after.sum(), rtol=1e-6)


@pytest.mark.parametrize("view", sorted(VIEWS))
def test_a_returned_view_of_an_updated_variable_is_the_old_value(view):
    make_view, reference = VIEWS[view]
    v = lamina.Variable(START.copy())

    @lamina.jit
    def step(x):
        out = make_view(v)
        v.assign_add(ops.multiply(ops.ones_like(v), x))
        return out
    x = ops.convert_to_tensor(np.float32(10.0))
    first = step(x)
    np.testing.assert_array_equal(first.numpy(), reference(START))
    second = step(x)
    np.testing.assert_array_equal(second.numpy(), reference(START + 10.0))
    np.testing.assert_array_equal(first.numpy(), reference(START))     # a snapshot
    np.testing.assert_array_equal(v.numpy(), START + 20.0)


@pytest.mark.parametrize("view", sorted(VIEWS))
def test_a_returned_view_of_a_variable_is_a_snapshot(view):
    make_view, reference = VIEWS[view]
    v = lamina.Variable(START.copy())
    read = lamina.jit(lambda x: (make_view(v), ops.add(x, 1.0)))
    x = ops.convert_to_tensor(np.float32(1.0))
    read(x)
    out, _ = read(x)
    v.assign(np.zeros((2, 3), "float32"))
    np.testing.assert_array_equal(out.numpy(), reference(START))


def test_an_update_from_a_view_of_another_updated_variable_takes_the_old_value():
    a = lamina.Variable(START.copy())
    b = lamina.Variable(np.zeros((3, 2), "float32"))

    @lamina.jit
    def swap(x):
        old_a = ops.reshape(ops.transpose(a), (3, 2))
        a.assign(ops.add(a, x))               # committed before or after b: b gets the old a
        b.assign(old_a)
        return x
    swap(ops.convert_to_tensor(np.float32(1.0)))
    np.testing.assert_array_equal(b.numpy(), START.T.reshape(3, 2))
    np.testing.assert_array_equal(a.numpy(), START + 1.0)
    swap(ops.convert_to_tensor(np.float32(1.0)))
    np.testing.assert_array_equal(b.numpy(), (START + 1.0).T.reshape(3, 2))


def test_two_variables_assigned_one_value_both_get_it():
    a = lamina.Variable(np.zeros(3, "float32"))
    b = lamina.Variable(np.zeros(3, "float32"))

    @lamina.jit
    def step(x):
        value = ops.multiply(x, 2.0)
        a.assign(value)
        b.assign(value)
        return ops.sum(value)
    step(ops.convert_to_tensor(np.arange(3, dtype="float32")))
    np.testing.assert_array_equal(a.numpy(), [0, 2, 4])
    np.testing.assert_array_equal(b.numpy(), [0, 2, 4])


def test_an_update_reading_only_the_variable_itself_still_writes_in_place():
    v = lamina.Variable(START.copy())

    @lamina.jit
    def step(x):
        total = ops.sum(ops.transpose(v))     # every view is read before the update
        v.assign(ops.add(v, x))
        return total
    assert float(step(ops.convert_to_tensor(np.float32(1.0))).numpy()) == START.sum()
    (_, plan), = step._plans.values()
    assert plan.direct_updates == {id(v)}
    np.testing.assert_array_equal(v.numpy(), START + 1.0)


# --------------------------------------------------------------------------- planner rule
class _Op:
    def __init__(self, writes_out=True, inplace=False):
        self.writes_out, self.inplace = writes_out, inplace


F = ((4, 4), "float32")
ELEMENTWISE, GEMM, VIEW = _Op(inplace=True), _Op(), _Op(writes_out=False)


def test_an_inplace_op_never_writes_over_a_buffer_a_view_still_needs():
    # 1 = gemm(0); 2 = view(1); 3 = relu(1) (1's last direct read); 4 = gemm(2, 3)
    schedule = [(GEMM, (0,), (1,)), (VIEW, (1,), (2,)), (ELEMENTWISE, (1,), (3,)),
                (GEMM, (2, 3), (4,))]
    plan = plan_memory(schedule, {s: F for s in range(1, 5)}, external={0, 4}, keep={4})
    assert plan.inplace == 0 and plan.assignment[3] != plan.assignment[1]


def test_variables_are_alias_roots_and_views_extend_their_lifetime():
    # 0 = variable; 1 = view(0); 2 = gemm(0); 3 = gemm(1) reads the variable at step 2
    schedule = [(VIEW, (0,), (1,)), (GEMM, (0,), (2,)), (GEMM, (1, 2), (3,))]
    plan = plan_memory(schedule, {1: F, 2: F, 3: F}, external={0, 3}, keep={3},
                       sources={0})
    assert plan.roots[1] == frozenset({0}) and plan.end[0] == 2
    assert 1 not in plan.aliasing          # a view of a variable is not an arena alias


def test_eager_snapshot_survives_a_compiled_training_step():
    """A tensor read eagerly from a variable keeps its value when a compiled step (graph
    mode) later updates the variable in place: the plan releases the variable's views."""
    model = lamina.Sequential([lamina.Input((3,)), layers.Dense(2)])
    model.compile(optimizer="sgd", loss="mse")
    x, y = np.ones((8, 3), "float32"), np.zeros((8, 2), "float32")
    model.fit(x, y, epochs=2, verbose=0)           # the second epoch runs the graph
    kernel = model.layers[0].kernel
    snapshot = ops.convert_to_tensor(kernel)
    before = snapshot.numpy().copy()
    model.fit(x, y, epochs=1, verbose=0)
    assert not np.array_equal(kernel.numpy(), before)
    np.testing.assert_array_equal(snapshot.numpy(), before)


@pytest.mark.parametrize("read", ["convert_to_tensor", "cast_same", "reshape_same"])
def test_traced_read_before_assign_keeps_the_old_value(read):
    """Inside lamina.jit, ``convert_to_tensor(v)`` (and other ops that return their input
    unchanged) taken before ``v.assign_sub`` is the old value, as eagerly (fuzzer seed 17)."""
    reads = {"convert_to_tensor": ops.convert_to_tensor,
             "cast_same": lambda v: ops.cast(v, "float32"),
             "reshape_same": lambda v: ops.reshape(v, (2, 2))}
    results = []
    for compiled in (False, True):
        v = lamina.Variable(np.arange(4, dtype="float32").reshape(2, 2))

        def step(x):
            before = reads[read](v)
            v.assign_sub(x)
            return ops.sum(before), ops.sum(v)
        out = (lamina.jit(step) if compiled else step)(ops.ones((2, 2)))
        results.append([float(t.numpy()) for t in out])
    assert results[0] == [6.0, 2.0]
    assert results[1] == results[0]
