"""compile(auto_scale_loss=True) wraps the optimizer of a mixed_float16 model in a
LossScaleOptimizer (Keras 3); fit scales the loss, skips non-finite steps the same way in
graph and eager mode, and the scale's state is saved and restored."""
from __future__ import annotations

import numpy as np
import pytest

import lamina
from lamina.dtype_policies import reset_dtype_policy
from lamina import layers, optimizers
from lamina.optimizers import LossScaleOptimizer

# float16 overflow on the skipped steps makes numpy warn (inf, nan): expected here
pytestmark = pytest.mark.filterwarnings("ignore::RuntimeWarning")

_rng = np.random.default_rng(5)
X = _rng.normal(size=(16, 4)).astype("float32")
Y = (_rng.normal(size=(16, 1)) * 300.0).astype("float32")   # float16 gradients overflow


@pytest.fixture
def mixed_float16():
    lamina.config.set_dtype_policy("mixed_float16")
    yield
    reset_dtype_policy()


def _model():
    lamina.utils.set_random_seed(2)
    return lamina.Sequential([layers.Input((4,)), layers.Dense(8, activation="relu"),
                              layers.Dense(1), layers.Activation("linear", dtype="float32")])


def test_auto_scale_loss_wraps_a_mixed_float16_model(mixed_float16):
    model = _model()
    assert model.dtype_policy.name == "mixed_float16"
    model.compile("adam", "mse")
    assert isinstance(model.optimizer, LossScaleOptimizer)
    assert model.optimizer.name == "loss_scale_optimizer"
    assert isinstance(model.optimizer.inner_optimizer, optimizers.Adam)
    model.compile("adam", "mse", auto_scale_loss=False)
    assert isinstance(model.optimizer, optimizers.Adam)
    own = LossScaleOptimizer(optimizers.SGD(), initial_scale=4.0)
    model.compile(own, "mse")
    assert model.optimizer is own                         # never wrapped twice


def test_float32_and_mixed_bfloat16_models_are_not_wrapped():
    _model().compile("adam", "mse")
    model = _model()
    model.compile("adam", "mse")
    assert isinstance(model.optimizer, optimizers.Adam)
    lamina.config.set_dtype_policy("mixed_bfloat16")
    try:
        model = _model()
        model.compile("adam", "mse")
    finally:
        reset_dtype_policy()
    assert isinstance(model.optimizer, optimizers.Adam)


def _fit(eager: bool):
    model = _model()
    model.compile(optimizers.SGD(1e-3), "mse", run_eagerly=eager)
    scales, losses = [], []
    for start in range(0, 16, 4):
        logs = model.train_on_batch(X[start:start + 4], Y[start:start + 4], return_dict=True)
        scales.append(float(model.optimizer.dynamic_scale.numpy()))
        losses.append(logs["loss"])
    return model, scales, losses


def test_fit_skips_non_finite_steps_graph_equals_eager(mixed_float16):
    (eager, eager_scales, eager_losses), (graph, graph_scales, graph_losses) = \
        _fit(True), _fit(False)
    # the first steps overflow float16: skipped, the scale halved each time
    assert eager_scales[0] == 16384.0
    assert eager_scales == graph_scales
    assert eager_scales[-1] < 16384.0
    assert int(eager.optimizer.iterations.numpy()) < 4      # skipped steps do not count
    assert int(eager.optimizer.iterations.numpy()) == int(graph.optimizer.iterations.numpy())
    np.testing.assert_allclose(graph_losses, eager_losses, rtol=1e-4)
    for a, b in zip(graph.get_weights(), eager.get_weights()):
        np.testing.assert_allclose(a, b, rtol=1e-4, atol=1e-5)
    assert all(np.isfinite(w).all() for w in eager.get_weights())


def test_finite_steps_scale_the_gradients_back(mixed_float16):
    """With a loss that cannot overflow, mixed_float16 + loss scaling trains as float32
    does (the scale cancels), to float16 precision."""
    y = Y / 1000.0
    trained = {}
    for policy in ("mixed_float16", "float32"):
        lamina.config.set_dtype_policy(policy)
        model = _model()
        sgd = optimizers.SGD(0.05)
        model.compile(LossScaleOptimizer(sgd, initial_scale=256.0) if policy != "float32"
                      else sgd, "mse")
        model.fit(X, y, batch_size=4, epochs=2, shuffle=False, verbose=0)
        trained[policy] = model
    mixed = trained["mixed_float16"]
    assert float(mixed.optimizer.dynamic_scale.numpy()) == 256.0
    assert int(mixed.optimizer.iterations.numpy()) == 8
    for a, b in zip(mixed.get_weights(), trained["float32"].get_weights()):
        np.testing.assert_allclose(a, b, rtol=2e-2, atol=2e-3)


@pytest.mark.parametrize("suffix", [".keras", ".weights.h5"])
def test_scale_state_saved_and_restored(mixed_float16, tmp_path, suffix):
    model, scales, _ = _fit(False)
    counter = int(model.optimizer.step_counter.numpy())
    path = str(tmp_path / f"model{suffix}")
    if suffix == ".keras":
        model.save(path)
        restored = lamina.saving.load_model(path)
    else:
        model.save_weights(path)
        restored = _model()
        restored.compile(optimizers.SGD(1e-3), "mse")
        restored.optimizer.build(restored.trainable_variables)
        restored.load_weights(path)
    assert isinstance(restored.optimizer, LossScaleOptimizer)
    assert float(restored.optimizer.dynamic_scale.numpy()) == scales[-1]
    assert int(restored.optimizer.step_counter.numpy()) == counter
    assert int(restored.optimizer.iterations.numpy()) == \
        int(model.optimizer.iterations.numpy())
    for a, b in zip(restored.get_weights(), model.get_weights()):
        np.testing.assert_array_equal(a, b)
    # training goes on from the same state: the next steps match
    for m in (model, restored):
        m.train_on_batch(X[:4], Y[:4] / 1000.0)
    for a, b in zip(restored.get_weights(), model.get_weights()):
        np.testing.assert_allclose(a, b, rtol=1e-6)
    assert float(restored.optimizer.dynamic_scale.numpy()) == \
        float(model.optimizer.dynamic_scale.numpy())


def test_checkpoint_during_fit_keeps_the_scale(mixed_float16, tmp_path):
    model = _model()
    model.compile(optimizers.SGD(1e-3), "mse")
    path = str(tmp_path / "ckpt.keras")
    model.fit(X, Y, batch_size=4, epochs=1, shuffle=False, verbose=0,
              callbacks=[lamina.callbacks.ModelCheckpoint(path)])
    restored = lamina.saving.load_model(path)
    assert float(model.optimizer.dynamic_scale.numpy()) < 32768.0     # it moved
    assert float(restored.optimizer.dynamic_scale.numpy()) == \
        float(model.optimizer.dynamic_scale.numpy())
    assert int(restored.optimizer.step_counter.numpy()) == \
        int(model.optimizer.step_counter.numpy())
