"""Tensors made from a Variable are snapshots: a later in-place write to the variable does
not change them (as TensorFlow and JAX), even where they share its buffer until then."""
import numpy as np
import pytest

import lamina
from lamina import layers, ops, optimizers
from lamina.autograd import eager

START = np.arange(6, dtype="float32").reshape(2, 3)

# Every op that can hand back its input, or a view of it.
READS = {
    "convert_to_tensor": lambda v: ops.convert_to_tensor(v),
    "convert_to_tensor_dtype": lambda v: ops.convert_to_tensor(v, dtype="float32"),
    "cast_same_dtype": lambda v: ops.cast(v, "float32"),
    "stop_gradient": lambda v: ops.stop_gradient(v),
    "reshape": lambda v: ops.reshape(v, (3, 2)),
    "reshape_same_shape": lambda v: ops.reshape(v, (2, 3)),
    "reshape_of_reshape": lambda v: ops.reshape(ops.reshape(v, (6,)), (3, 2)),
    "expand_dims": lambda v: ops.expand_dims(v, 0),
    "squeeze": lambda v: ops.squeeze(ops.expand_dims(v, 0), 0),
    "transpose": lambda v: ops.transpose(v),
    "transpose_identity": lambda v: ops.transpose(v, (0, 1)),
    "getitem_row": lambda v: v[0],
    "getitem_slice": lambda v: v[:, 1:],
    "broadcast_to_same": lambda v: ops.broadcast_to(v, (2, 3)),
    "tile_ones": lambda v: ops.tile(v, (1, 1)),
    "flip_no_axes": lambda v: ops.flip(v, axis=()),
    "sum_no_axes": lambda v: ops.sum(v, axis=()),
    "value": lambda v: v.value,
    "tensor_of_variable": lambda v: lamina.Tensor(v),
}

WRITES = {
    "assign": lambda v: v.assign(np.full((2, 3), -1.0, "float32")),
    "assign_add": lambda v: v.assign_add(np.ones((2, 3), "float32")),
    "assign_sub": lambda v: v.assign_sub(np.ones((2, 3), "float32")),
    "optimizer_step": lambda v: optimizers.SGD(0.5).apply_gradients(
        [(ops.ones((2, 3)), v)]),
}


@pytest.mark.parametrize("write", sorted(WRITES))
@pytest.mark.parametrize("read", sorted(READS))
def test_a_read_is_a_snapshot(read, write):
    v = lamina.Variable(START, name="v")
    t = READS[read](v)
    expected = np.array(t.numpy(), copy=True)
    WRITES[write](v)
    assert not np.array_equal(v.numpy(), START)
    np.testing.assert_array_equal(t.numpy(), expected)
    assert not isinstance(t, lamina.Variable)


def test_a_snapshot_of_a_snapshot_is_a_snapshot():
    v = lamina.Variable(START, name="v")
    a = ops.convert_to_tensor(v)
    b = ops.transpose(ops.reshape(a, (3, 2)))       # views of a view of the buffer
    host = a.numpy()
    v.assign_add(np.ones((2, 3), "float32"))
    np.testing.assert_array_equal(a.numpy(), START)
    np.testing.assert_array_equal(b.numpy(), START.reshape(3, 2).T)
    np.testing.assert_array_equal(host, START)      # .numpy() never hands out the buffer


def test_set_weights_keeps_earlier_reads():
    model = lamina.Sequential([lamina.Input((3,)), layers.Dense(2)])
    kernel = model.layers[0].kernel
    before = kernel.numpy()
    views = [ops.convert_to_tensor(kernel), ops.reshape(kernel, (6,)), kernel[0]]
    model.set_weights([np.zeros((3, 2), "float32"), np.ones(2, "float32")])
    np.testing.assert_array_equal(kernel.numpy(), 0.0)
    np.testing.assert_array_equal(views[0].numpy(), before)
    np.testing.assert_array_equal(views[1].numpy(), before.reshape(6))
    np.testing.assert_array_equal(views[2].numpy(), before[0])


def test_a_read_shares_the_buffer_until_the_next_write():
    # copy-on-write: a snapshot costs no copy while the variable is not written
    v = lamina.Variable(START, name="v")
    t = ops.convert_to_tensor(v)
    r = ops.reshape(v, (6,))
    assert t.data is v.data and r.data.base is v.data
    v.assign_add(np.ones((2, 3), "float32"))
    assert t.data is not v.data and r.data.base is not v.data


def test_gradients_flow_through_a_converted_variable():
    v = lamina.Variable(START, name="v")
    with lamina.GradientTape() as tape:
        y = ops.sum(ops.square(ops.convert_to_tensor(v))) + ops.sum(ops.reshape(v, (6,)))
    np.testing.assert_allclose(ops.convert_to_numpy(tape.gradient(y, v)), 2 * START + 1)


def test_the_tape_still_refuses_a_variable_changed_before_the_gradient():
    v = lamina.Variable(START, name="v")
    with lamina.GradientTape() as tape:
        y = ops.sum(ops.square(ops.reshape(v, (6,))))
    v.assign_add(np.ones((2, 3), "float32"))
    with pytest.raises(lamina.errors.GradientError,
                       match="variable 'v' was read by op .* changed in place"):
        tape.gradient(y, v)


def test_eager_training_with_views_matches_a_copying_reference():
    # An eager step whose layer reads its kernel through a view (DepthwiseConv reshapes
    # its kernel) trains as before: the optimizer writes, the views keep the old value.
    lamina.utils.set_random_seed(0)
    model = lamina.Sequential([lamina.Input((5, 5, 2)), layers.DepthwiseConv2D(3),
                               layers.Flatten(), layers.Dense(1)])
    model.compile(optimizer="adam", loss="mse", run_eagerly=True)
    x = np.random.default_rng(0).normal(size=(4, 5, 5, 2)).astype("float32")
    y = np.ones((4, 1), "float32")
    losses = [model.train_on_batch(x, y) for _ in range(3)]
    assert losses[2] < losses[0]


def _count_copies(monkeypatch, watched):
    """How many times a snapshot of a ``watched`` variable had to copy a buffer, and how
    many views of them were recorded."""
    counts = {"copies": 0, "views": 0}
    from lamina.core import variable as variable_module
    note = variable_module.note_views

    def counting_note(owner, outputs):
        before = len(owner._views)
        note(owner, outputs)
        if any(owner is w for w in watched):
            counts["views"] += len(owner._views) - before
    monkeypatch.setattr(variable_module, "note_views", counting_note)
    monkeypatch.setattr(eager, "note_views", counting_note)
    release = variable_module.Variable._release_views

    def counting_release(self):
        counts["copies"] += any(self is w for w in watched) * sum(1 for ref in self._views
                                if ref() is not None and ref()._owner is self)
        release(self)
    monkeypatch.setattr(variable_module.Variable, "_release_views", counting_release)
    return counts


def test_plain_reads_neither_copy_nor_record_views(monkeypatch):
    lamina.utils.set_random_seed(0)
    dense = layers.Dense(4)
    x = ops.convert_to_tensor(np.ones((2, 3), "float32"))
    dense.build((2, 3))
    counts = _count_copies(monkeypatch, dense.trainable_weights)
    optimizer = optimizers.Adam(0.1)
    for _ in range(3):
        with lamina.GradientTape() as tape:
            loss = ops.sum(ops.square(dense(x)))
        grads = tape.gradient(loss, dense.trainable_weights)
        optimizer.apply_gradients(zip(grads, dense.trainable_weights))
    assert counts == {"copies": 0, "views": 0}
    # ... while a view that is alive at the next write is recorded and copied once
    view = ops.reshape(dense.kernel, (12,))
    before = view.numpy()
    dense.kernel.assign_add(np.ones((3, 4), "float32"))
    assert counts == {"copies": 1, "views": 1}
    np.testing.assert_array_equal(view.numpy(), before)


def test_views_of_a_variable_read_often_do_not_pile_up():
    v = lamina.Variable(START, name="v")
    for _ in range(1000):
        ops.reshape(v, (6,))
    assert len(v._views) < 100
