"""keras.io's "Transfer learning & fine-tuning" guide (guides/transfer_learning.py, the Keras 3
version), adapted to the digits dataset so that it runs in seconds. It is written against
``keras`` only: the same file runs with Keras (``KERAS_BACKEND=jax python
transfer_learning_digits.py keras``) and with Lamina (``python transfer_learning_digits.py
lamina``, or ``run(lamina)`` from a test).

The guide's steps, with the digits standing in for its data:
- the "pre-trained" base (Xception on ImageNet there): a small convolutional net with
  BatchNormalization, trained to tell the 10 digits apart on half of the training images;
- the new task (cats vs. dogs there): telling digits 5-9 apart, on the other half;
- ``augmentation_layers`` (RandomFlip + RandomRotation) called on each training image, once
  (the guide maps them over its unbatched dataset, which it then caches);
- ``base_model.trainable = False``; ``inputs = keras.Input``, ``x = scale_layer(inputs)``,
  ``x = base_model(x, training=False)``, GlobalAveragePooling2D, Dropout(0.2), Dense;
  compile with Adam (0.01 here: the guide's 1e-3 leaves this small head unconverged in 20
  epochs of 6 batches), a from-logits cross-entropy and an accuracy; fit the head;
- fine-tuning: ``base_model.trainable = True``, recompile with a low learning rate, fit
  again, evaluate on the test images.

In Keras 3 the ``training=False`` recorded by ``base_model(x, training=False)`` does not hold
under ``fit``: fit's ``training=True`` replaces it (keras-team/keras#20285), so once the base
is unfrozen its BatchNormalization layers train and move their statistics, whatever the
guide's comments say. ``run`` reports whether they moved.
"""
import importlib.util
import os
import sys

import numpy as np

_DIGITS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "lamina",
                       "datasets", "digits.py")


def load_digits():
    """Lamina's digits split, read by its loader file alone (no lamina import, so Keras's
    interpreter can run it too)."""
    spec = importlib.util.spec_from_file_location("_digits_loader", _DIGITS)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.load_data()


def run(keras, seed=1337, epochs=(12, 20, 5), head_lr=1e-2, tune_lr=1e-5):
    """The guide's script; returns the test accuracies after training the head and after
    fine-tuning (floats), and whether fine-tuning moved the base's first BatchNormalization
    statistics (bool)."""
    layers = keras.layers
    keras.utils.set_random_seed(seed)
    (x_train, y_train), (x_test, y_test) = load_digits()
    x_train = x_train[..., None].astype("float32")        # pixel values 0..16
    x_test = x_test[..., None].astype("float32")
    half = len(x_train) // 2
    x_old, y_old = x_train[:half], y_train[:half].astype("int32")
    keep = y_train[half:] >= 5                          # the new task: digits 5-9
    x_new, y_new = x_train[half:][keep], y_train[half:][keep].astype("int32") - 5
    keep = y_test >= 5
    x_test, y_test = x_test[keep], y_test[keep].astype("int32") - 5

    # The "pre-trained" base (it takes images scaled to [-1, 1], as Xception does)
    base_model = keras.Sequential([
        keras.Input((8, 8, 1)),
        layers.Conv2D(16, 3, padding="same", use_bias=False),
        layers.BatchNormalization(),
        layers.ReLU(),
        layers.Conv2D(32, 3, padding="same", use_bias=False),
        layers.BatchNormalization(),
        layers.ReLU(),
        layers.MaxPooling2D(2),
        layers.Conv2D(64, 3, padding="same", use_bias=False),
        layers.BatchNormalization(),
        layers.ReLU(),
    ], name="base")
    pretrain = keras.Sequential([base_model, layers.GlobalAveragePooling2D(),
                                 layers.Dense(10)])
    pretrain.compile(optimizer=keras.optimizers.Adam(0.01),
                     loss=keras.losses.SparseCategoricalCrossentropy(from_logits=True))
    pretrain.fit(x_old / 8.0 - 1.0, y_old, batch_size=32, epochs=epochs[0], verbose=0)

    # Random augmentation, called on each training image once
    augmentation_layers = [layers.RandomFlip("horizontal"), layers.RandomRotation(0.1)]

    def data_augmentation(x):
        for layer in augmentation_layers:
            x = layer(x)
        return x

    x_aug = np.stack([np.asarray(data_augmentation(image)) for image in x_new])

    # Freeze the base, put a new head on it
    base_model.trainable = False

    inputs = keras.Input(shape=(8, 8, 1))
    # pixel values 0..16 scaled to [-1, 1] as the base expects
    scale_layer = layers.Rescaling(scale=1 / 8.0, offset=-1)
    x = scale_layer(inputs)
    # the guide passes training=False meaning to keep the base's BatchNormalization in
    # inference mode after unfreezing (under Keras 3's fit it does not: see above)
    x = base_model(x, training=False)
    x = layers.GlobalAveragePooling2D()(x)
    x = layers.Dropout(0.2)(x)
    outputs = layers.Dense(5)(x)
    model = keras.Model(inputs, outputs)

    # Train the head
    model.compile(optimizer=keras.optimizers.Adam(head_lr),
                  loss=keras.losses.SparseCategoricalCrossentropy(from_logits=True),
                  metrics=[keras.metrics.SparseCategoricalAccuracy()])
    model.fit(x_aug, y_new, batch_size=64, epochs=epochs[1], verbose=0)
    head = float(model.evaluate(x_test, y_test, verbose=0)[1])

    # Unfreeze the base and fine-tune everything with a low learning rate
    base_model.trainable = True
    model.compile(optimizer=keras.optimizers.Adam(tune_lr),
                  loss=keras.losses.SparseCategoricalCrossentropy(from_logits=True),
                  metrics=[keras.metrics.SparseCategoricalAccuracy()])
    moving_mean = np.array(base_model.layers[1].moving_mean)
    model.fit(x_aug, y_new, batch_size=64, epochs=epochs[2], verbose=0)
    tuned = float(model.evaluate(x_test, y_test, verbose=0)[1])
    moved = not np.allclose(moving_mean, np.array(base_model.layers[1].moving_mean))
    return head, tuned, moved


if __name__ == "__main__":
    import time
    start = time.time()
    if sys.argv[1:2] == ["keras"]:
        import keras as framework
    else:
        sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..",
                                        ".."))
        import lamina as framework
    seeds = [int(s) for s in sys.argv[2:]] or [1337]
    for seed in seeds:
        print(seed, run(framework, seed=seed), f"{time.time() - start:.1f} s", flush=True)
