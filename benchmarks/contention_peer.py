"""The timed side of ``contention.py``: one framework, driven over stdin/stdout.

    <python> contention_peer.py {lamina,keras} digits --data DIGITS.npz [--epochs 2]
    <python> contention_peer.py {lamina,keras} cnn [--samples 1024]

``digits``: builds the small VGG-style model of ``examples/vgg_digits.py`` (8x8x1 input,
two blocks of two 3x3 convolutions (32, 64 filters) and a max-pool, Dense 128, Dropout 0.3,
Dense 10 softmax; Adam, sparse categorical crossentropy, batch 32), warms up with one
``fit`` epoch (45 batches), prints ``{"ready": true}``, then for each line ``measure`` on
stdin runs a timed ``fit`` of ``--epochs`` epochs and prints ``{"samples_per_s", "seconds"}``;
``quit`` (or the end of stdin) ends it. The caller starts and stops the competing load
between measurements.

``cnn``: one figure and exit: the VGG-style CNN training throughput of ``train_cnn.py`` and
``vs_peers.py`` (32x32x3, batch 64, Adam) after 10 warm-up batches, as
``{"samples_per_s", "ms_per_step"}`` (``contention.py --fresh`` runs it in fresh processes).

``lamina`` imports this repository's Lamina (``import lamina as keras``); ``keras`` imports
Keras 3 (the caller sets ``KERAS_BACKEND=jax``). Only numpy and the framework are needed.
"""
import argparse
import json
import os
import sys
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))


def framework(name):
    if name == "lamina":
        sys.path.insert(0, os.path.dirname(HERE))
        import lamina as keras
    else:
        import keras
    return keras


def say(**fields):
    print(json.dumps(fields), flush=True)


def vgg_digits(keras):
    layers = keras.layers

    def block(filters):
        return [layers.Conv2D(filters, 3, padding="same", activation="relu"),
                layers.Conv2D(filters, 3, padding="same", activation="relu"),
                layers.MaxPooling2D(2)]
    return keras.Sequential([keras.Input((8, 8, 1)), *block(32), *block(64),
                             layers.Flatten(), layers.Dense(128, activation="relu"),
                             layers.Dropout(0.3), layers.Dense(10, activation="softmax")])


def vgg_cnn(keras):
    """common.cnn, repeated here so that a peer's Python needs no Lamina files."""
    layers = keras.layers
    return keras.Sequential([
        keras.Input((32, 32, 3)),
        layers.Conv2D(32, 3, padding="same", activation="relu"),
        layers.Conv2D(32, 3, padding="same", activation="relu"), layers.MaxPooling2D(),
        layers.Conv2D(64, 3, padding="same", activation="relu"),
        layers.Conv2D(64, 3, padding="same", activation="relu"), layers.MaxPooling2D(),
        layers.Flatten(), layers.Dense(256, activation="relu"), layers.Dropout(0.5),
        layers.Dense(10)])


def timed_fit(model, x, y, batch, epochs):
    start = time.perf_counter()
    model.fit(x, y, batch_size=batch, epochs=epochs, verbose=0)
    seconds = time.perf_counter() - start
    return (len(x) // batch) * batch * epochs / seconds, seconds


def serve_digits(keras, data, epochs, batch=32):
    with np.load(data) as arrays:
        x, y = arrays["x"], arrays["y"]
    keras.utils.set_random_seed(0)
    model = vgg_digits(keras)
    model.compile(optimizer=keras.optimizers.Adam(1e-3),
                  loss=keras.losses.SparseCategoricalCrossentropy())
    model.fit(x, y, batch_size=batch, epochs=1, verbose=0)          # warm-up / trace
    say(ready=True, samples=len(x), batch=batch, epochs=epochs)
    for line in sys.stdin:
        command = line.strip()
        if command == "measure":
            rate, seconds = timed_fit(model, x, y, batch, epochs)
            say(samples_per_s=rate, seconds=seconds)
        elif command == "quit":
            break


def cnn_throughput(keras, samples, batch=64, warmup=10):
    rng = np.random.default_rng(0)
    x = rng.standard_normal((max(samples, warmup * batch), 32, 32, 3)).astype("float32")
    y = rng.integers(0, 10, len(x))
    keras.utils.set_random_seed(0)
    model = vgg_cnn(keras)
    model.compile(optimizer=keras.optimizers.Adam(1e-3),
                  loss=keras.losses.SparseCategoricalCrossentropy(from_logits=True))
    model.fit(x[:warmup * batch], y[:warmup * batch], batch_size=batch, epochs=1, verbose=0)
    rate, _ = timed_fit(model, x[:samples], y[:samples], batch, 1)
    say(samples_per_s=rate, ms_per_step=batch / rate * 1e3, pid=os.getpid())


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("framework", choices=("lamina", "keras"))
    parser.add_argument("mode", choices=("digits", "cnn"))
    parser.add_argument("--data", help="npz with x (n, 8, 8, 1) float32 and y (n,)")
    parser.add_argument("--epochs", type=int, default=2)
    parser.add_argument("--samples", type=int, default=1024)
    args = parser.parse_args()
    keras = framework(args.framework)
    if args.mode == "digits":
        serve_digits(keras, args.data, args.epochs)
    else:
        cnn_throughput(keras, args.samples)


if __name__ == "__main__":
    main()
