"""The small language model the GPTQ and AWQ fixtures calibrate (an embedding, two blocks,
a head), built in Lamina with the fixture's float weights."""
import warnings

import lamina
from lamina import layers
from tests.quantizers.fixtures import array

BLOCK_LAYERS = ["up", "down", "heads", "mix"]


def language_model(float_weights, name):
    inputs = layers.Input((16,), dtype="int32", name="ids")
    emb = layers.Embedding(32, 8, name="emb")
    block1 = lamina.Sequential([layers.Input((16, 8)),
                                layers.Dense(12, activation="relu", name="up"),
                                layers.Dense(8, name="down")], name="block1")
    block2 = lamina.Sequential([layers.Input((16, 8)),
                                layers.EinsumDense("abc,cde->abde", (16, 2, 4),
                                                   bias_axes="de", name="heads"),
                                layers.Reshape((16, 8)),
                                layers.EinsumDense("abc,cd->abd", (16, 8), bias_axes="d",
                                                   name="mix")], name="block2")
    model = lamina.Model(inputs, layers.Dense(32, name="head")(block2(block1(emb(inputs)))),
                         name=name)
    for variable, want in zip(model.weights, float_weights):
        variable.assign(array(want))
    return model, {"pre_block_layers": [emb], "sequential_blocks": [block1, block2]}


def calibrated(float_weights, name, make_config):
    """The model quantized with ``make_config(structure)`` on its block layers."""
    model, structure = language_model(float_weights, name)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        model.quantize(config=make_config(structure), filters=BLOCK_LAYERS)
    return model
