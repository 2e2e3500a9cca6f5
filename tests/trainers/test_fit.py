"""compile / fit / evaluate / predict behave as Keras 3's."""
import numpy as np
import pytest

import lamina
from lamina import layers


def setup_function():
    lamina.backend.clear_session(free_memory=False)
    lamina.utils.set_random_seed(0)


def linear_data(n=64, seed=0):
    rng = np.random.default_rng(seed)
    x = rng.standard_normal((n, 3)).astype("float32")
    y = (x @ np.array([[1.0], [-2.0], [0.5]], "float32") + 0.3).astype("float32")
    return x, y


def regression_model(**compile_kwargs):
    model = lamina.Sequential([lamina.Input((3,)), layers.Dense(1)])
    model.compile(**{"optimizer": lamina.optimizers.SGD(0.1), "loss": "mse", **compile_kwargs})
    return model


def test_fit_reduces_the_loss_and_returns_history(backend):
    x, y = linear_data()
    model = regression_model()
    history = model.fit(x, y, epochs=5, batch_size=16, verbose=0, validation_split=0.25)
    assert sorted(history.history) == ["loss", "val_loss"]
    assert history.epoch == [0, 1, 2, 3, 4]
    assert history.params == {"verbose": 0, "epochs": 5, "steps": 3}
    assert history.history["loss"][-1] < history.history["loss"][0] / 5
    assert model.history is history


def test_epochs_is_the_final_epoch_index():
    x, y = linear_data()
    history = regression_model().fit(x, y, epochs=4, initial_epoch=2, verbose=0)
    assert history.epoch == [2, 3]


def test_validation_split_takes_the_last_samples_before_shuffling():
    x, y = linear_data(50)
    model = regression_model(optimizer=lamina.optimizers.SGD(0.0))
    history = model.fit(x, y, epochs=1, validation_split=0.2, verbose=0)
    tail_loss = model.evaluate(x[40:], y[40:], verbose=0)
    head_loss = model.evaluate(x[:40], y[:40], verbose=0)
    np.testing.assert_allclose(history.history["val_loss"][0], tail_loss, rtol=1e-5)
    np.testing.assert_allclose(history.history["loss"][0], head_loss, rtol=1e-5)


def test_evaluate_return_forms():
    x, y = linear_data()
    model = regression_model(metrics=["mae"])
    loss, mae = model.evaluate(x, y, verbose=0)
    logs = model.evaluate(x, y, verbose=0, return_dict=True)
    assert sorted(logs) == ["loss", "mae"]
    pred = model.predict(x, verbose=0)
    np.testing.assert_allclose(loss, np.mean((pred - y) ** 2), rtol=1e-5)
    np.testing.assert_allclose(mae, np.mean(np.abs(pred - y)), rtol=1e-5)
    assert isinstance(regression_model().evaluate(x, y, verbose=0), float)


def test_predict_matches_calling_the_model_and_keeps_the_last_partial_batch():
    x, _ = linear_data(37)
    model = regression_model()
    pred = model.predict(x, batch_size=8, verbose=0)
    assert pred.shape == (37, 1) and isinstance(pred, np.ndarray)
    np.testing.assert_allclose(pred, model(x).numpy(), rtol=1e-6)


def test_sample_weight_and_class_weight_weight_the_loss():
    x = np.array([[1.0], [2.0], [3.0]], "float32")
    y = np.array([0, 1, 1])
    model = lamina.Sequential([lamina.Input((1,)), layers.Dense(2, kernel_initializer="zeros")])
    model.compile(optimizer=lamina.optimizers.SGD(0.0),
                  loss=lamina.losses.SparseCategoricalCrossentropy(from_logits=True))
    # zero weights: every sample's loss is log(2)
    logs = model.fit(x, y, epochs=1, batch_size=3, verbose=0,
                     sample_weight=np.array([1.0, 0.0, 2.0], "float32")).history
    np.testing.assert_allclose(logs["loss"][0], np.log(2) * 3.0 / 3.0, rtol=1e-5)
    logs = model.fit(x, y, epochs=1, batch_size=3, verbose=0,
                     class_weight={0: 3.0, 1: 0.0}).history
    np.testing.assert_allclose(logs["loss"][0], np.log(2) * 3.0 / 3.0, rtol=1e-5)


def test_accuracy_metric_names_and_digits_training():
    (x_train, y_train), (x_test, y_test) = lamina.datasets.digits.load_data()
    x_train = x_train.reshape(-1, 64).astype("float32") / 16
    x_test = x_test.reshape(-1, 64).astype("float32") / 16
    model = lamina.Sequential([lamina.Input((64,)), layers.Dense(32, activation="relu"),
                               layers.Dense(10, activation="softmax")])
    model.compile(optimizer="adam", loss="sparse_categorical_crossentropy",
                  metrics=["accuracy"])
    history = model.fit(x_train, y_train, epochs=15, batch_size=32, verbose=0,
                        validation_data=(x_test, y_test))
    assert sorted(history.history) == ["accuracy", "loss", "val_accuracy", "val_loss"]
    loss, accuracy = model.evaluate(x_test, y_test, verbose=0)
    assert accuracy > 0.9
    predicted = model.predict(x_test, verbose=0).argmax(axis=1)
    np.testing.assert_allclose(np.mean(predicted == y_test), accuracy, atol=1e-6)


def test_multi_output_losses_weights_and_log_names():
    x = lamina.Input((3,), name="x")
    a = layers.Dense(1, name="a")(x)
    b = layers.Dense(2, name="b", activation="softmax")(x)
    model = lamina.Model(x, [a, b])
    model.compile(optimizer="sgd", loss={"a": "mse", "b": "sparse_categorical_crossentropy"},
                  loss_weights={"a": 0.5, "b": 2.0}, metrics={"b": ["accuracy"]})
    rng = np.random.default_rng(0)
    data = rng.standard_normal((20, 3)).astype("float32")
    ya, yb = rng.standard_normal((20, 1)).astype("float32"), rng.integers(0, 2, 20)
    logs = model.evaluate(data, {"a": ya, "b": yb}, verbose=0, return_dict=True)
    assert sorted(logs) == ["a_loss", "b_accuracy", "b_loss", "loss"]
    np.testing.assert_allclose(logs["loss"], 0.5 * logs["a_loss"] + 2.0 * logs["b_loss"],
                               rtol=1e-5)
    history = model.fit(data, [ya, yb], epochs=1, verbose=0)
    assert "b_accuracy" in history.history


def test_custom_train_step_runs_under_fit():
    class Custom(lamina.Model):
        def __init__(self, **kwargs):
            super().__init__(**kwargs)
            self.dense = layers.Dense(1)
            self.loss_tracker = lamina.metrics.Mean(name="loss")
            self.steps = 0

        def call(self, x):
            return self.dense(x)

        def train_step(self, data):
            x, y = data
            with lamina.GradientTape() as tape:
                y_pred = self(x, training=True)
                loss = self.compute_loss(y=y, y_pred=y_pred)
            grads = tape.gradient(loss, self.trainable_variables)
            self.optimizer.apply_gradients(zip(grads, self.trainable_variables))
            self.loss_tracker.update_state(loss)
            self.steps += 1
            return {"loss": self.loss_tracker.result()}
    x, y = linear_data()
    losses = {}
    for eager in (True, False):
        lamina.utils.set_random_seed(3)
        model = Custom()
        model.compile(optimizer=lamina.optimizers.SGD(0.1), loss="mse", run_eagerly=eager)
        history = model.fit(x, y, epochs=3, batch_size=32, verbose=0, shuffle=False)
        losses[eager] = history.history["loss"]
        if eager:
            assert model.steps == 6              # Python runs at every step
        else:
            assert model.steps < 6               # traced: Python runs once per trace
    assert losses[True][-1] < losses[True][0]
    np.testing.assert_allclose(losses[False], losses[True], rtol=1e-5)


def test_generators_and_pydataset():
    x, y = linear_data(40)

    class Batches(lamina.utils.PyDataset):
        def __len__(self):
            return 4

        def __getitem__(self, i):
            return x[i * 10:(i + 1) * 10], y[i * 10:(i + 1) * 10]
    model = regression_model()
    assert model.fit(Batches(), epochs=2, verbose=0).params["steps"] == 4

    def generate():
        while True:
            for i in range(4):
                yield x[i * 10:(i + 1) * 10], y[i * 10:(i + 1) * 10]
    history = model.fit(generate(), steps_per_epoch=4, epochs=2, verbose=0)
    assert len(history.history["loss"]) == 2
    pred = model.predict(((x[i * 10:(i + 1) * 10],) for i in range(4)), verbose=0)
    np.testing.assert_allclose(pred, model.predict(x, verbose=0), rtol=1e-6)


def test_on_batch_methods_accumulate_metrics():
    x, y = linear_data(16)
    model = regression_model(metrics=["mae"])
    first = model.train_on_batch(x, y)
    assert isinstance(first, list) and len(first) == 2
    logs = model.test_on_batch(x, y, return_dict=True)
    assert sorted(logs) == ["loss", "mae"]
    np.testing.assert_allclose(model.predict_on_batch(x), model(x).numpy(), rtol=1e-6)


def test_keras_arguments_lamina_does_not_use_are_accepted():
    x, y = linear_data()
    model = regression_model(jit_compile=True, auto_scale_loss=False)
    model.fit(x, y, epochs=1, verbose=0, validation_batch_size=8, workers=2)


def test_verbose_output_without_a_terminal_has_no_control_codes(capsys):
    x, y = linear_data()
    regression_model(metrics=["mae"]).fit(x, y, epochs=2, batch_size=16, verbose=1,
                                          validation_split=0.25)
    out = capsys.readouterr().out
    assert "\r" not in out and "\x1b" not in out
    lines = out.strip().splitlines()
    assert lines[0] == "Epoch 1/2" and lines[2] == "Epoch 2/2"
    assert lines[1].startswith("3/3 ━━━━━━━━━━━━━━━━━━━━ ")
    assert " - loss: " in lines[1] and " - val_mae: " in lines[1]


def test_verbose_2_prints_one_line_per_epoch(capsys):
    x, y = linear_data()
    regression_model().fit(x, y, epochs=2, verbose=2)
    lines = capsys.readouterr().out.strip().splitlines()
    assert [line for line in lines if not line.startswith("Epoch")][0].startswith("2/2 - ")


# ------------------------------------------------------------------------- errors
def test_fit_before_compile():
    model = lamina.Sequential([lamina.Input((3,)), layers.Dense(1)])
    with pytest.raises(RuntimeError, match=r"call compile\(\) before fit\(\)"):
        model.fit(np.ones((2, 3)), np.ones((2, 1)))


def test_x_and_y_length_mismatch():
    with pytest.raises(ValueError, match=r"x and y must have the same number of samples; "
                                         r"received x with 10 samples and y with 9"):
        regression_model().fit(np.ones((10, 3)), np.ones((9, 1)), verbose=0)


def test_wrong_number_of_inputs():
    a, b = lamina.Input((2,), name="a"), lamina.Input((2,), name="b")
    model = lamina.Model([a, b], layers.Dense(1)(layers.Concatenate()([a, b])))
    model.compile(optimizer="sgd", loss="mse")
    with pytest.raises(ValueError, match=r"expects 2 input\(s\) \(a, b\); received 1"):
        model.fit(np.ones((4, 2)), np.ones((4, 1)), verbose=0)


def test_unknown_strings_in_compile():
    model = lamina.Sequential([lamina.Input((3,)), layers.Dense(1)])
    with pytest.raises(ValueError, match=r"adamm"):
        model.compile(optimizer="adamm", loss="mse")
    with pytest.raises(ValueError, match=r"msee"):
        model.compile(optimizer="adam", loss="msee")
    model.compile(optimizer="adam", loss="mse", metrics=["acuracy"])
    with pytest.raises(ValueError, match=r"acuracy"):
        model.fit(np.ones((2, 3)), np.ones((2, 1)), verbose=0)


def test_sparse_labels_out_of_range():
    model = lamina.Sequential([lamina.Input((3,)), layers.Dense(4, activation="softmax")])
    model.compile(optimizer="adam", loss="sparse_categorical_crossentropy")
    with pytest.raises(ValueError, match=r"7"):
        model.fit(np.ones((3, 3)), np.array([0, 7, 1]), verbose=0)


def test_validation_split_that_leaves_nothing():
    with pytest.raises(ValueError, match=r"leaves an empty training set for 1 samples"):
        regression_model().fit(np.ones((1, 3)), np.ones((1, 1)), validation_split=0.5,
                               verbose=0)
