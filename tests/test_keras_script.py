"""A typical Keras training script runs unchanged with ``import lamina as keras``."""
import numpy as np

import lamina as keras


def test_a_typical_keras_script(tmp_path):
    keras.utils.set_random_seed(42)
    (x_train, y_train), (x_test, y_test) = keras.datasets.digits.load_data()
    x_train = x_train.reshape(-1, 64).astype("float32") / 16.0
    x_test = x_test.reshape(-1, 64).astype("float32") / 16.0
    y_train_1h = keras.utils.to_categorical(y_train, 10)
    y_test_1h = keras.utils.to_categorical(y_test, num_classes=10)

    model = keras.models.Sequential()
    model.add(keras.layers.Dense(64, activation="relu", input_shape=(64,)))
    model.add(keras.layers.Dropout(0.2))
    model.add(keras.layers.Dense(10, activation="softmax"))
    model.summary(print_fn=lambda line: None)
    model.compile(optimizer=keras.optimizers.Adam(learning_rate=0.003),
                  loss="categorical_crossentropy", metrics=["accuracy"])
    history = model.fit(x_train, y_train_1h, batch_size=64, epochs=15, verbose=0,
                        validation_split=0.2,
                        callbacks=[keras.callbacks.EarlyStopping(monitor="val_loss",
                                                                 patience=3),
                                   keras.callbacks.ModelCheckpoint(
                                       str(tmp_path / "best.keras"), save_best_only=True)])
    assert set(history.history) == {"accuracy", "loss", "val_accuracy", "val_loss"}
    score = model.evaluate(x_test, y_test_1h, verbose=0)
    assert score[1] > 0.93
    predictions = model.predict(x_test[:5], verbose=0)
    assert predictions.shape == (5, 10)
    np.testing.assert_allclose(predictions.sum(axis=1), 1.0, rtol=1e-5)
    best = keras.models.load_model(str(tmp_path / "best.keras"))
    assert best.evaluate(x_test, y_test_1h, verbose=0)[1] > 0.9
    keras.backend.clear_session()


def test_a_typical_functional_script():
    keras.utils.set_random_seed(0)
    rng = np.random.default_rng(0)
    image = rng.standard_normal((256, 8, 8, 1)).astype("float32")
    extra = rng.standard_normal((256, 3)).astype("float32")
    label = (image.mean(axis=(1, 2, 3)) + extra[:, 0] > 0).astype("float32")

    image_in = keras.Input(shape=(8, 8, 1), name="image")
    extra_in = keras.Input(shape=(3,), name="extra")
    x = keras.layers.Conv2D(8, 3, activation="relu", padding="same")(image_in)
    x = keras.layers.GlobalAveragePooling2D()(x)
    x = keras.layers.concatenate([x, extra_in])
    out = keras.layers.Dense(1, activation="sigmoid", name="out")(x)
    model = keras.Model(inputs=[image_in, extra_in], outputs=out)
    model.compile(optimizer=keras.optimizers.Adam(0.02), loss="binary_crossentropy",
                  metrics=["accuracy"])
    history = model.fit({"image": image, "extra": extra}, label, epochs=30, batch_size=32,
                        verbose=0)
    assert history.history["accuracy"][-1] > 0.85
    assert model.predict([image, extra], verbose=0).shape == (256, 1)
