"""Graph mode gives eager's numbers for every optimizer, schedule, clipping option, loss
and metric a compile() call can name."""
import numpy as np
import pytest

import lamina
from lamina import layers

OPTIMIZERS = {
    "sgd_momentum": lambda: lamina.optimizers.SGD(0.05, momentum=0.9, nesterov=True),
    "rmsprop_centered": lambda: lamina.optimizers.RMSprop(0.01, momentum=0.5, centered=True),
    "adagrad": lambda: lamina.optimizers.Adagrad(0.05),
    "adadelta": lambda: lamina.optimizers.Adadelta(1.0),
    "adamax": lambda: lamina.optimizers.Adamax(0.01),
    "nadam": lambda: lamina.optimizers.Nadam(0.01),
    "lion": lambda: lamina.optimizers.Lion(0.001),
    "adamw_clipnorm": lambda: lamina.optimizers.AdamW(0.01, clipnorm=0.5),
    "adam_global_clipnorm": lambda: lamina.optimizers.Adam(0.01, global_clipnorm=0.3),
    "adam_amsgrad_schedule": lambda: lamina.optimizers.Adam(
        lamina.optimizers.schedules.ExponentialDecay(0.01, 3, 0.5), amsgrad=True),
    "sgd_cosine_warmup": lambda: lamina.optimizers.SGD(
        lamina.optimizers.schedules.CosineDecay(0.0, 10, warmup_target=0.1, warmup_steps=3)),
    "adafactor": lambda: lamina.optimizers.Adafactor(0.05, weight_decay=0.01),
    "ftrl": lambda: lamina.optimizers.Ftrl(0.1, l1_regularization_strength=0.001, beta=0.1),
    "lamb_clipnorm": lambda: lamina.optimizers.Lamb(0.01, clipnorm=0.5),
    "muon": lambda: lamina.optimizers.Muon(0.01),
    "schedule_free_adamw": lambda: lamina.optimizers.ScheduleFreeAdamW(0.01, warmup_steps=2),
    "multi_optimizer": lambda: lamina.optimizers.MultiOptimizer(lamina.optimizers.OptimizerMap(
        lamina.optimizers.SGD(0.05, momentum=0.9), {".*kernel": lamina.optimizers.Lamb(0.01)})),
}

def classification_metrics():
    return ["accuracy", "top_k_categorical_accuracy", lamina.metrics.AUC(name="auc"),
            lamina.metrics.Precision(name="precision"), lamina.metrics.Recall(name="recall")]


def _fit(build, compile_kwargs, x, y, eager, **fit_kwargs):
    lamina.utils.set_random_seed(5)
    model = build()
    model.compile(run_eagerly=eager, **compile_kwargs())
    history = model.fit(x, y, batch_size=8, epochs=3, verbose=0, shuffle=False, **fit_kwargs)
    return history.history, model.get_weights()


def _compare(build, compile_kwargs, x, y, rtol=1e-4, atol=1e-5, **fit_kwargs):
    (h_e, w_e), (h_g, w_g) = (_fit(build, compile_kwargs, x, y, eager, **fit_kwargs)
                              for eager in (True, False))
    assert h_e.keys() == h_g.keys()
    for key in h_e:
        np.testing.assert_allclose(h_g[key], h_e[key], rtol=rtol, atol=atol, err_msg=key)
    for a, b in zip(w_g, w_e):
        np.testing.assert_allclose(a, b, rtol=rtol, atol=atol)


def _regression():
    rng = np.random.default_rng(1)
    x = rng.standard_normal((32, 4)).astype("float32")
    return x, (x @ rng.standard_normal((4, 1)) + 0.1).astype("float32")


def _mlp(units=1, activation=None):
    return lambda: lamina.Sequential([lamina.Input((4,)), layers.Dense(6, activation="tanh"),
                                      layers.Dense(units, activation=activation)])


@pytest.mark.parametrize("name", sorted(OPTIMIZERS))
def test_every_optimizer_in_graph_mode(name):
    x, y = _regression()
    _compare(_mlp(), lambda: dict(optimizer=OPTIMIZERS[name](), loss="mse",
                                  metrics=["mae", "mse"]), x, y)


@pytest.mark.parametrize("loss", ["mae", "mape", "msle", "huber", "log_cosh",
                                  "cosine_similarity", "poisson"])
def test_regression_losses_in_graph_mode(loss):
    x, y = _regression()
    y = np.abs(y) + 0.5
    _compare(_mlp(activation="softplus"), lambda: dict(optimizer="adam", loss=loss), x, y)


def test_classification_losses_and_metrics_in_graph_mode():
    rng = np.random.default_rng(2)
    x = rng.standard_normal((32, 4)).astype("float32")
    labels = rng.integers(0, 3, 32)
    onehot = np.eye(3, dtype="float32")[labels]
    for loss in ("categorical_crossentropy", "kl_divergence", "categorical_hinge",
                 lamina.losses.CategoricalCrossentropy(label_smoothing=0.1)):
        _compare(_mlp(3, "softmax"), lambda: dict(optimizer="adam", loss=loss,
                                                  metrics=classification_metrics()),
                 x, onehot)


def test_binary_classification_with_class_weight_in_graph_mode():
    rng = np.random.default_rng(3)
    x = rng.standard_normal((32, 4)).astype("float32")
    y = (x[:, 0] > 0).astype("float32")
    _compare(_mlp(1, "sigmoid"),
             lambda: dict(optimizer="adam", loss="binary_crossentropy",
                          metrics=["accuracy", lamina.metrics.AUC(name="auc")]),
             x, y, class_weight={0: 1.0, 1: 3.0})


def test_learning_rate_callbacks_act_on_compiled_steps():
    x, y = _regression()
    seen = {}
    for eager in (True, False):
        lamina.utils.set_random_seed(5)
        model = _mlp()()
        model.compile(optimizer=lamina.optimizers.SGD(0.1), loss="mse", run_eagerly=eager)
        schedule = lamina.callbacks.LearningRateScheduler(lambda epoch, lr: lr * 0.5)
        history = model.fit(x, y, batch_size=8, epochs=3, verbose=0, shuffle=False,
                            callbacks=[schedule])
        seen[eager] = (history.history["loss"], history.history["learning_rate"])
    np.testing.assert_allclose(seen[False][0], seen[True][0], rtol=1e-5)
    assert seen[False][1] == seen[True][1]
    np.testing.assert_allclose(seen[False][1], [0.05, 0.025, 0.0125], rtol=1e-7)
