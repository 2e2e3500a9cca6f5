"""LoRA on int8 / int4 quantized Dense, EinsumDense and Embedding, against Keras 3.15.1.

``tests/fixtures/lora/lora_quantized_keras.json`` was written by Keras (JAX backend): for
each layer, mode (int8; int4 per channel and in groups of 4) and order (``enable_lora(2,
lora_alpha=3.0)`` then ``quantize``, or the other way round), the layer's weights after
both steps, an input, the call's output and what ``save_own_variables`` stored (the LoRA
update merged into the weight and quantized again).
"""
import json
import os
import pathlib
import tempfile

import numpy as np
import pytest

from lamina import layers, models, saving
from lamina.quantizers import Int4QuantizationConfig

FIXTURE = pathlib.Path(__file__).resolve().parents[2] / "fixtures/lora/lora_quantized_keras.json"
KERAS = json.loads(FIXTURE.read_text())

MAKERS = {
    "dense": (lambda: layers.Dense(5), (None, 6), "kernel"),
    "einsum": (lambda: layers.EinsumDense("ab,bcd->acd", output_shape=(2, 3), bias_axes="d"),
               (None, 6), "kernel"),
    "embedding": (lambda: layers.Embedding(6, 5), None, "embeddings"),
}


def _layer(key):
    name, mode, block, order = key.split("-")
    make, shape, _ = MAKERS[name]
    config = None if block == "none" else Int4QuantizationConfig(
        block_size=None if block == "None" else int(block))
    layer = make()
    layer.build(shape) if shape else layer.build()
    if order == "lora_first":
        layer.enable_lora(2, lora_alpha=3.0)
        layer.quantize(mode, config=config)
    else:
        layer.quantize(mode, config=config)
        layer.enable_lora(2, lora_alpha=3.0)
    for weight in layer.weights:
        weight.assign(np.asarray(KERAS[key]["weights"][weight.name]))
    return layer


@pytest.mark.parametrize("key", sorted(KERAS))
def test_call_and_saved_values_match_keras(key):
    expected = KERAS[key]
    layer = _layer(key)
    assert sorted(w.name for w in layer.trainable_weights) == sorted(expected["trainable"])
    assert sorted(w.name for w in layer.non_trainable_weights) == \
        sorted(expected["non_trainable"])
    np.testing.assert_allclose(layer(np.asarray(expected["x"])), expected["y"], rtol=1e-5,
                               atol=1e-5)
    store = {}
    layer.save_own_variables(store)
    assert sorted(store) == sorted(expected["store"])
    for k, value in expected["store"].items():
        np.testing.assert_allclose(np.asarray(store[k]), value, rtol=1e-5, atol=1e-6,
                                   err_msg=f"{key}: store[{k}]")


@pytest.mark.parametrize("mode", ["int8", "int4"])
def test_fit_moves_the_factors_and_files_round_trip(mode, tmp_path):
    layer = layers.Dense(16)
    layer.build((None, 8))
    layer.enable_lora(4)
    layer.quantize(mode)
    assert len(layer.trainable_weights) == 3
    assert len(layer.non_trainable_weights) == (2 if mode == "int8" else 4)
    a, b = layer.lora_kernel_a.numpy().copy(), layer.lora_kernel_b.numpy().copy()
    rng = np.random.default_rng(0)
    x, y = rng.random((32, 8), "float32"), rng.random((32, 16), "float32")
    model = models.Sequential([layer])
    model.compile(optimizer="sgd", loss="mse")
    model.fit(x, y, epochs=2, verbose=0)
    assert np.abs(layer.lora_kernel_a.numpy() - a).max() > 0
    assert np.abs(layer.lora_kernel_b.numpy() - b).max() > 0
    path = str(tmp_path / "m.keras")
    model.save(path)
    loaded = saving.load_model(path)
    assert loaded.layers[0].lora_enabled
    # the file holds the re-quantized merge (lossy, as in Keras): the loaded layer computes it
    merged = loaded.predict(x, verbose=0)
    np.testing.assert_allclose(merged, model.predict(x, verbose=0), atol=0.05)
    weights = str(tmp_path / "m.weights.h5")
    model.save_weights(weights)
    plain = models.Sequential([layers.Dense(16)])
    plain.build((None, 8))
    plain.quantize(mode)
    plain.load_weights(weights)
    assert not plain.layers[0].lora_enabled
    np.testing.assert_allclose(plain.predict(x, verbose=0), merged, rtol=1e-6)


def test_modes_without_lora_refuse_it():
    gptq_like = layers.Dense(2, name="fl")
    gptq_like.build((None, 3))
    gptq_like.quantize("float8")
    with pytest.raises(NotImplementedError, match="fl: lora on a layer quantized to 'float8' "
                                                  "is not supported by Lamina"):
        gptq_like.enable_lora(2)
    lora = layers.Dense(2, lora_rank=2, name="lq")
    lora.build((None, 3))
    with pytest.raises(NotImplementedError, match="lq: quantizing a layer with lora enabled "
                                                  "to 'float8' is not supported by Lamina"):
        lora.quantize("float8")
    assert lora.quantization_mode is None
    reversible = layers.ReversibleEmbedding(4, 2, name="rq")
    reversible.build()
    reversible.quantize("int8")
    with pytest.raises(NotImplementedError, match="rq: lora on a layer quantized to 'int8'"):
        reversible.enable_lora(2)
