"""A VGG-style network on the embedded handwritten digits: build, fit, evaluate, save, restore.

    python examples/vgg_digits.py             # up to 20 epochs, 98% test accuracy
    python examples/vgg_digits.py --smoke     # 2 epochs on a subset, for CI

The network is stacked from ``vgg_block(filters, convs)`` bricks: a few 3x3 convolutions
and a 2x2 max-pool, like Lego. Training uses ``fit`` with a progress bar, EarlyStopping and
ModelCheckpoint; the trained model is saved as a ``.keras`` file, loaded back with
``lamina.models.load_model`` and checked to predict exactly what it predicted before.
The training curves (loss and accuracy, train vs validation) go to ``history.png`` with
``lamina.utils.plot_history`` when matplotlib is installed (``pip install lamina[plots]``).
"""
import argparse
import os
import tempfile

import numpy as np

import lamina as keras          # the point: a Keras script with Lamina underneath
from lamina import layers


def vgg_block(filters: int, convs: int) -> list:
    """``convs`` 3x3 'same' ReLU convolutions with ``filters`` channels, then a 2x2 max-pool."""
    block = [layers.Conv2D(filters, 3, padding="same", activation="relu")
             for _ in range(convs)]
    return block + [layers.MaxPooling2D(2)]


def build_model() -> keras.Sequential:
    return keras.Sequential([
        keras.Input((8, 8, 1)),
        *vgg_block(32, 2),               # 8x8 -> 4x4
        *vgg_block(64, 2),               # 4x4 -> 2x2
        layers.Flatten(),
        layers.Dense(128, activation="relu"),
        layers.Dropout(0.3),
        layers.Dense(10, activation="softmax"),
    ], name="vgg_digits")


def load_digits(smoke: bool):
    (x_train, y_train), (x_test, y_test) = keras.datasets.digits.load_data()
    x_train = x_train[..., None].astype("float32") / 16.0
    x_test = x_test[..., None].astype("float32") / 16.0
    if smoke:
        x_train, y_train = x_train[:480], y_train[:480]
    return (x_train, y_train), (x_test, y_test)


def plot_training(history, path: str) -> None:
    """The loss and accuracy curves as a PNG; without matplotlib, say how to get them."""
    try:
        keras.utils.plot_history(history, to_file=path, title="VGG on the digits")
    except ImportError as error:
        print(f"no training plot: {error}")
        return
    print(f"training curves written to {path}")


def main(argv=None) -> float:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--epochs", type=int, default=20)
    parser.add_argument("--batch-size", type=int, default=16)
    parser.add_argument("--out", default=None, help="folder for the checkpoint and model")
    parser.add_argument("--backend", default=None, help="numpy or cupy")
    parser.add_argument("--smoke", action="store_true", help="a quick run for CI")
    args = parser.parse_args(argv)
    if args.backend:
        keras.backend.set_backend(args.backend)
    keras.utils.set_random_seed(1)
    epochs = 2 if args.smoke else args.epochs
    out = args.out or tempfile.mkdtemp(prefix="vgg_digits_")
    os.makedirs(out, exist_ok=True)

    (x_train, y_train), (x_test, y_test) = load_digits(args.smoke)
    model = build_model()
    model.summary()
    model.compile(optimizer="adam", loss="sparse_categorical_crossentropy",
                  metrics=["accuracy"])
    checkpoint = os.path.join(out, "best.keras")
    history = model.fit(x_train, y_train, batch_size=args.batch_size, epochs=epochs,
                        validation_split=0.1, verbose=2 if args.smoke else "auto",
                        callbacks=[keras.callbacks.EarlyStopping(patience=6,
                                                                 restore_best_weights=True),
                                   keras.callbacks.ModelCheckpoint(checkpoint,
                                                                   save_best_only=True)])
    plot_training(history, os.path.join(out, "history.png"))
    loss, accuracy = model.evaluate(x_test, y_test, verbose=0)
    print(f"test accuracy {accuracy:.4f} (loss {loss:.4f})")

    path = os.path.join(out, "vgg_digits.keras")
    model.save(path)
    restored = keras.models.load_model(path)
    same = np.array_equal(restored.predict(x_test, verbose=0), model.predict(x_test, verbose=0))
    print(f"saved to {path}; the restored model predicts the same: {same}")
    if not same:
        raise SystemExit("the restored model's predictions differ")
    return accuracy


if __name__ == "__main__":
    main()
