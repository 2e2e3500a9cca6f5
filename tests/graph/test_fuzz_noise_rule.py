"""The fuzzer's rounding-noise rule on the first training batch (tests/graph/fuzz/checks.py,
``first_batch_noise``): fuzzer seeds 953, 2675 and 2854 trained apart from a true gradient
of 0 on their first batch, which the whole-data gradients did not show."""
import numpy as np

import lamina
from lamina import layers, optimizers
from tests.graph.fuzz import checks


def _stationary_ns():
    # Seed 953, shrunk: one channel per group, so GroupNormalization's output is its beta;
    # the first batch of 6 holds two samples of each class and the softmax starts uniform,
    # so every bias's true gradient there is 0.
    def build_model():
        return lamina.Sequential([
            lamina.Input((5, 3)), layers.GRU(4, reset_after=False), layers.Dense(3),
            layers.GroupNormalization(groups=3), layers.LayerNormalization(scale=False),
            layers.Dense(3, activation="softmax")])
    return dict(build_model=build_model,
                make_optimizer=lambda: optimizers.AdamW(learning_rate=0.01, weight_decay=0.05),
                LOSS="categorical_crossentropy",
                DATA=dict(input_shape=(5, 3), inputs=1, vocab=0, labels="onehot", units=3,
                          dtype="float64", n=22),
                TRAINING=dict(fit_batch=6, train_batches=[13], predict_batch=20))


def _clipped_ns():
    # Seed 2854, shrunk: Dense(1, hard_sigmoid) twice, then GroupNormalization(groups=1).
    # On the first 4 samples no unit is clipped, so the normalization cancels the shift of
    # the second application's bias exactly: its float32 gradient (about 2e-6 of the
    # largest) is rounding that eager and graph compute identically.
    class Net(lamina.Model):
        def __init__(self):
            super().__init__()
            self.norm = layers.LayerNormalization()
            self.add = layers.Add()
            self.unit = layers.Dense(1, activation="hard_sigmoid")
            self.group = layers.GroupNormalization(groups=1)
            self.pool = layers.GlobalMaxPooling3D()
            self.out = layers.Dense(3)

        def call(self, x):
            h = self.unit(self.unit(self.add([x, self.norm(x)])))
            return self.out(self.pool(self.group(h)))

    return dict(build_model=Net, make_optimizer=lambda: optimizers.Adam(0.01, amsgrad=True),
                LOSS=lamina.losses.CategoricalCrossentropy(from_logits=True,
                                                           label_smoothing=0.1),
                DATA=dict(input_shape=(3, 3, 4, 1), inputs=1, vocab=0, labels="onehot",
                          units=3, dtype="float32", n=16),
                TRAINING=dict(fit_batch=0, train_batches=[4, 1, 6], predict_batch=8))


def _noise(ns):
    x, y = checks.make_data(ns["DATA"])
    eager, graph = checks.twins(ns, x)
    found = checks.first_batch_noise(ns, eager, graph, x, y, ns["TRAINING"],
                                     ns["DATA"]["dtype"])
    return eager, {id(eager.weights[k]) for k in found}


def test_a_stationary_first_batch_freezes_the_biases_it_leaves_to_rounding():
    lamina.config.set_floatx("float64")
    try:
        model, noisy = _noise(_stationary_ns())
        _, _, group, norm, dense = model.layers
        assert {id(group.beta), id(norm.beta), id(dense.bias)} <= noisy
        assert checks.run_checks(_stationary_ns()) == []
    finally:
        lamina.config.set_floatx("float32")


def test_a_float64_reference_finds_noise_that_eager_and_graph_share():
    lamina.config.set_floatx("float32")
    ns = _clipped_ns()
    model, noisy = _noise(ns)
    assert id(model.unit.bias) in noisy and id(model.norm.beta) in noisy
    assert id(model.unit.kernel) not in noisy and id(model.group.gamma) not in noisy
    assert lamina.config.floatx() == "float32"          # the float64 twin restored it
    assert checks.run_checks(ns) == []


def test_the_float64_reference_is_the_float32_gradient_to_rounding():
    lamina.config.set_floatx("float32")
    ns = _clipped_ns()
    x, y = checks.make_data(ns["DATA"])
    eager, _ = checks.twins(ns, x)
    exact = checks._float64_gradients(ns, eager, x[:4], y[:4])
    got = checks.gradient_function(eager, ns["LOSS"])(x[:4], y[:4])[1]
    kernel = [id(v) for v in eager.trainable_weights].index(id(eager.out.kernel))
    np.testing.assert_allclose(got[kernel].numpy(), exact[kernel].numpy(), rtol=1e-5)
    assert exact[kernel].numpy().dtype == np.float64
