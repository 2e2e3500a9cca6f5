"""VGG16 "like Lego": stack it from its blocks, check it is Keras's VGG16, then reuse its
first bricks on the embedded 8x8 digits and fine-tune a new top. About 15 s on a CPU.

    python examples/vgg16_lego.py                         # random VGG16 weights
    python examples/vgg16_lego.py --weights imagenet      # Keras's ImageNet file, from
                                                          # ~/.lamina/models (never downloaded)

1. VGG16's convolutional base is five ``vgg_block(filters, convs)`` bricks, (64, 2),
   (128, 2), (256, 3), (512, 3), (512, 3); stacked by hand they give exactly
   ``lamina.applications.VGG16(include_top=False)``: same layer names (so the same weight
   files load), same 14,714,688 parameters.
2. The first three bricks, with their weights, are called on a new input (the digits, 8x8,
   grey repeated to RGB): 8x8 -> 4x4 -> 2x2 -> 1x1 x 256 features. They stay frozen, as a
   pretrained base would; their features are computed once.
3. A new top (Dense 128 ReLU, dropout, Dense 10 softmax) is trained on those features, then
   base and top are joined into one model that maps an image to its digit.
"""
import argparse

import numpy as np

import lamina as keras
from lamina import layers
from lamina.applications import vgg16

VGG16_BRICKS = [(64, 2), (128, 2), (256, 3), (512, 3), (512, 3)]


def stack_vgg16_base(input_shape=(32, 32, 3)) -> keras.Model:
    """VGG16's convolutional base, brick by brick (Keras's layer names)."""
    inputs = keras.Input(input_shape)
    x = inputs
    for block, (filters, convs) in enumerate(VGG16_BRICKS, start=1):
        x = vgg16.vgg_block(x, filters, convs, block)
    return keras.Model(inputs, x, name="vgg16_lego")


def first_bricks(vgg: keras.Model, input_shape, last: str = "block3_pool") -> keras.Model:
    """``vgg``'s layers up to ``last``, called on a new input: same layers, same weights."""
    inputs = keras.Input(input_shape, name="digit")
    x = inputs
    for layer in vgg.layers[1:]:
        x = layer(x)
        if layer.name == last:
            break
    return keras.Model(inputs, x, name="vgg16_bricks")


def load_digits():
    (x_train, y_train), (x_test, y_test) = keras.datasets.digits.load_data()

    def rgb(x):  # 0..16 grey -> 0..255 RGB, VGG16's preprocessing (caffe mode)
        images = np.repeat(x[..., None].astype("float32") * (255.0 / 16.0), 3, axis=-1)
        return vgg16.preprocess_input(images)
    return (rgb(x_train), y_train), (rgb(x_test), y_test)


def main(argv=None) -> float:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--weights", default=None,
                        help="None (random), 'imagenet' or a VGG16 weights file")
    parser.add_argument("--epochs", type=int, default=30)
    args = parser.parse_args(argv)
    keras.utils.set_random_seed(1)

    lego = stack_vgg16_base()
    vgg = vgg16.VGG16(include_top=False, weights=args.weights, input_shape=(32, 32, 3))
    same_names = [l.name for l in lego.layers[1:]] == [l.name for l in vgg.layers[1:]]
    print(f"stacked from bricks: {lego.count_params():,} parameters, VGG16 base: "
          f"{vgg.count_params():,}; same layer names: {same_names}")

    base = first_bricks(vgg, (8, 8, 3))
    base.trainable = False
    (x_train, y_train), (x_test, y_test) = load_digits()
    features_train = base.predict(x_train, batch_size=256, verbose=0).reshape(len(x_train), -1)
    features_test = base.predict(x_test, batch_size=256, verbose=0).reshape(len(x_test), -1)
    scale = float(features_train.std()) or 1.0

    top = keras.Sequential([keras.Input((features_train.shape[1],)),
                            layers.Rescaling(1.0 / scale),
                            layers.Dense(128, activation="relu"),
                            layers.Dropout(0.3),
                            layers.Dense(10, activation="softmax")], name="new_top")
    top.compile(optimizer=keras.optimizers.Adam(3e-3), loss="sparse_categorical_crossentropy",
                metrics=["accuracy"])
    top.fit(features_train, y_train, batch_size=64, epochs=args.epochs, verbose=0,
            validation_split=0.1)
    loss, accuracy = top.evaluate(features_test, y_test, verbose=0)
    print(f"test accuracy {accuracy:.4f} (loss {loss:.4f})")

    digits = keras.Input((8, 8, 3))
    model = keras.Model(digits, top(layers.Flatten()(base(digits))), name="vgg16_digits")
    whole = model.predict(x_test[:32], verbose=0)
    print(f"joined model agrees with base + top: "
          f"{np.allclose(whole, top.predict(features_test[:32], verbose=0), atol=1e-5)}")
    return accuracy


if __name__ == "__main__":
    main()
