"""``ops.shape`` of a symbolic tensor follows Keras 3.15.1: an unknown size is None on a
functional-API tensor outside any layer's call (``ops.shape(keras.Input((2, 3)))`` is
``(None, 2, 3)`` there), and a size that is not None in code that runs later — a layer's
call during functional building (JAX gives its symbolic ``dynamic_dimension``), a compiled
fit step, a custom ``train_step``, a subclassed model's ``build`` — so user code's
``if shape[0] is None:`` takes Keras's branch in every mode, and one batch-polymorphic
trace still computes with the batch size."""
import numpy as np
import pytest

import lamina
from lamina import layers, ops
from lamina.errors import ShapeError

X = np.arange(5 * 2 * 3, dtype="float32").reshape(5, 2, 3) / 10.0
Y = np.linspace(-1.0, 1.0, 5 * 4, dtype="float32").reshape(5, 4)


def test_unknown_sizes_are_none_on_functional_tensors():
    inp = lamina.Input((2, 3))
    shape = ops.shape(inp)
    assert shape == (None, 2, 3) and shape[0] is None and type(shape) is tuple
    hidden = layers.Dense(4)(inp)                  # a layer's output
    assert ops.shape(hidden) == (None, 2, 4) and ops.shape(hidden)[0] is None
    assert ops.shape(ops.add(inp, 1.0))[0] is None  # an op's output between layers
    assert ops.shape(lamina.Input(batch_shape=(7, 3))) == (7, 3)
    assert ops.shape(ops.ones((2, 5))) == (2, 5)


class FlattenUnlessUnknown(layers.Layer):
    """User code written for Keras: a None batch size would take the other branch."""

    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        self.branches = []

    def call(self, x):
        shape = ops.shape(x)
        if shape[0] is None:
            self.branches.append("none")
            return ops.zeros((1, shape[1] * shape[2]))
        self.branches.append("known")
        return ops.reshape(x, (shape[0], -1))


def _model():
    lamina.utils.set_random_seed(4)
    inp = lamina.Input((2, 3))
    flat = FlattenUnlessUnknown(name="flat")(inp)
    return lamina.Model(inp, layers.Dense(4)(flat))


def test_branch_in_a_layer_during_functional_build_is_kerass():
    model = _model()
    assert model.get_layer("flat").branches == ["known"]
    assert model.output.shape == (None, 4)
    assert model.get_layer("flat").compute_output_shape((None, 2, 3)) == (None, 6)


@pytest.mark.parametrize("steps", [1, 3])
def test_branch_in_fit_graph_mode_equals_eager(steps):
    results = []
    for eager in (True, False):
        model = _model()
        model.compile(optimizer="adam", loss="mse", run_eagerly=eager)
        history = model.fit(X, Y, batch_size=2, epochs=steps, shuffle=False, verbose=0)
        pred = model.predict(X, batch_size=2, verbose=0)          # 2 + 2 + 1
        assert set(model.get_layer("flat").branches) == {"known"}
        if not eager:
            function = model.train_function.function
            assert function.polymorphic_error is None and function.trace_count == 1
        results.append((history.history["loss"], pred, model.get_weights()))
    (loss_e, pred_e, w_e), (loss_g, pred_g, w_g) = results
    assert pred_g.shape == (5, 4)
    np.testing.assert_allclose(loss_g, loss_e, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(pred_g, pred_e, rtol=1e-4, atol=1e-5)
    for a, b in zip(w_g, w_e):
        np.testing.assert_allclose(a, b, rtol=1e-4, atol=1e-5)
    # the reshape really flattened each sample: Dense(4) of X's rows
    model = _model()
    kernel, bias = model.get_layer(index=2).get_weights()
    np.testing.assert_allclose(model.predict(X, verbose=0), X.reshape(5, 6) @ kernel + bias,
                               rtol=1e-5, atol=1e-6)


class CountingModel(lamina.Model):
    """A custom train_step reading the batch size, as the keras-io guides do."""

    def __init__(self):
        super().__init__()
        self.dense = layers.Dense(4)
        self.seen = []

    def call(self, x):
        return self.dense(ops.reshape(x, (ops.shape(x)[0], -1)))

    def train_step(self, data):
        x, y = data
        self.seen.append(ops.shape(x)[0] is None)
        with lamina.GradientTape() as tape:
            loss = ops.mean(ops.square(self(x, training=True) - y))
        grads = tape.gradient(loss, self.trainable_weights)
        self.optimizer.apply_gradients(zip(grads, self.trainable_weights))
        return {"loss": loss}


def test_custom_train_step_sees_a_batch_size_in_both_modes():
    losses = []
    for eager in (True, False):
        lamina.utils.set_random_seed(1)
        model = CountingModel()
        model.compile(optimizer="sgd", run_eagerly=eager)
        losses.append(model.fit(X, Y, batch_size=2, epochs=2, shuffle=False,
                                verbose=0).history["loss"])
        assert model.seen and not any(model.seen)
    np.testing.assert_allclose(losses[1], losses[0], rtol=1e-5, atol=1e-6)


class NoisyModel(lamina.Model):
    def __init__(self):
        super().__init__()
        self.dense = layers.Dense(2)

    def call(self, x):
        noise = lamina.random.normal((ops.shape(x)[0], 2), seed=3)
        return self.dense(x) + 0.0 * noise


def test_subclassed_build_traces_with_a_batch_size():
    model = NoisyModel()
    model.build((None, 3))
    assert model.built and len(model.weights) == 2
    assert model.predict(np.ones((3, 3), "float32"), verbose=0).shape == (3, 2)


def test_none_sizes_in_creation_shapes_are_refused_with_a_hint():
    batch = ops.shape(lamina.Input((3,)))[0]
    for make, name in ((lambda: ops.ones((batch, 1)), "ones"),
                       (lambda: ops.zeros((batch, 1)), "zeros"),
                       (lambda: ops.full((batch, 1), 2.0), "full"),
                       (lambda: lamina.random.normal((batch, 1), seed=1), "random_normal")):
        with pytest.raises(ShapeError, match=rf"{name}: argument 'shape' holds None .*"
                                             r"inside a layer's call"):
            make()
