import numpy as np
import pytest

import lamina
from lamina import layers, ops
from tests.layers.harness import LayerCase, case_id, run_layer_case


def _ids(high, pad=False):
    def make(rng, shape):
        ids = rng.integers(1 if pad else 0, high, size=shape).astype("int32")
        if pad:
            ids[:, -1] = 0
        return ids
    return make


CASES = [
    LayerCase(layers.Embedding, dict(input_dim=10, output_dim=4), (2, 5), (2, 5, 4),
              trainable_weights=1, weight_shapes={"embeddings": (10, 4)}, params=40,
              make_input=_ids(10)),
    LayerCase(layers.Embedding, dict(input_dim=7, output_dim=3, mask_zero=True), (3, 4),
              (3, 4, 3), trainable_weights=1, weight_shapes={"embeddings": (7, 3)}, params=21,
              make_input=_ids(7, pad=True)),
    LayerCase(layers.Embedding, dict(input_dim=5, output_dim=2,
                                     embeddings_regularizer="l2"), (4,), (4, 2),
              trainable_weights=1, params=10, make_input=_ids(5), id="Embedding(rank1,l2)"),
    LayerCase(layers.Embedding, dict(input_dim=6, output_dim=2), (2, 3), (2, 3, 2),
              trainable_weights=1, params=12,
              make_input=lambda rng, s: _ids(6)(rng, s).astype("float32"),
              id="Embedding(float ids)"),
]


@pytest.mark.parametrize("case", CASES, ids=case_id)
def test_embedding_harness(case, backend):
    run_layer_case(case)


def test_embedding_is_a_row_lookup(backend):
    layer = layers.Embedding(6, 3)
    ids = np.array([[0, 5, 2], [2, 2, 1]])
    out = layer(ids)
    assert out.dtype == "float32"
    np.testing.assert_array_equal(out.numpy(), layer.get_weights()[0][ids])


def test_embedding_weights_argument():
    table = np.arange(12, dtype="float32").reshape(4, 3)
    layer = layers.Embedding(4, 3, weights=[table])
    np.testing.assert_array_equal(layer(np.array([3, 1])).numpy(), table[[3, 1]])
    assert layer.weights[0].path.endswith("embeddings")


def test_embedding_input_length_from_keras_2_configs():
    model = lamina.Sequential([layers.Embedding(10, 2, input_length=5)])
    assert model.output_shape == (None, 5, 2)


def test_embedding_mask_reaches_dense_and_a_custom_layer(backend):
    class MaskedMean(layers.Layer):
        def __init__(self, **kwargs):
            super().__init__(**kwargs)
            self.supports_masking = True

        def call(self, inputs, mask=None):
            w = ops.cast(ops.expand_dims(mask, -1), inputs.dtype)
            return ops.sum(inputs * w, axis=1) / ops.sum(w, axis=1)

        def compute_mask(self, inputs, mask=None):
            return None

    inputs = lamina.Input((4,), dtype="int32")
    embedded = layers.Embedding(9, 3, mask_zero=True, name="emb")(inputs)
    dense = layers.Dense(2, name="dense")(embedded)
    model = lamina.Model(inputs, MaskedMean()(dense))
    ids = np.array([[4, 2, 0, 0], [1, 2, 3, 0]])
    table = model.get_layer("emb").get_weights()[0]
    kernel, bias = model.get_layer("dense").get_weights()
    h = table[ids] @ kernel + bias
    keep = (ids != 0)[..., None]
    want = (h * keep).sum(1) / keep.sum(1)
    np.testing.assert_allclose(model(ids).numpy(), want, rtol=1e-5, atol=1e-6)
    eager = layers.Dense(2)(layers.Embedding(9, 3, mask_zero=True)(ids))
    np.testing.assert_array_equal(eager._keras_mask.numpy(), ids != 0)


def test_embedding_no_mask_without_mask_zero():
    assert getattr(layers.Embedding(5, 2)(np.array([[0, 1]])), "_keras_mask", None) is None


def test_embedding_rejects_ids_out_of_range():
    layer = layers.Embedding(5, 2, name="emb_x")
    with pytest.raises(IndexError, match=r"emb_x: input ids must be in \[0, 5\) \(argument "
                                         r"'input_dim' is 5\); received id 5"):
        layer(np.array([[1, 5]]))
    with pytest.raises(IndexError, match=r"received id -1"):
        layer(np.array([[-1, 2]]))


@pytest.mark.parametrize("arg", ["input_dim", "output_dim"])
def test_embedding_rejects_bad_sizes(arg):
    kwargs = dict(input_dim=4, output_dim=2, name="e")
    kwargs[arg] = 0
    with pytest.raises(ValueError, match=rf"e: argument `{arg}` must be a positive "
                                         rf"integer; received 0 \(of type int\)"):
        layers.Embedding(**kwargs)
    kwargs[arg] = 3.7                    # Keras's from_config raises TypeError for it
    with pytest.raises(TypeError, match=rf"`{arg}` must be a positive integer; received 3.7"):
        layers.Embedding.from_config(kwargs)


def test_embedding_rejects_bad_lora_and_quantization_configs():
    with pytest.raises(ValueError, match=r"argument 'lora_rank' must be a positive int or "
                                         r"None; received 0"):
        layers.Embedding(4, 2, lora_rank=0)
    # int8 configs are accepted (tests/quantizers); a dict that is not one is an error.
    with pytest.raises(ValueError, match=r"embedding_q: argument 'quantization_config' must "
                                         r"be a QuantizationConfig .* received \{'mode'"):
        layers.Embedding(4, 2, quantization_config={"mode": "int8"}, name="embedding_q")


def test_embedding_loads_a_keras_3_config():
    config = {"name": "embedding", "trainable": True, "dtype": {
        "module": "keras", "class_name": "DTypePolicy", "config": {"name": "float32"},
        "registered_name": None}, "input_dim": 5, "output_dim": 3,
        "embeddings_initializer": {"module": "keras.initializers", "class_name": "RandomUniform",
                                   "config": {"seed": None, "minval": -0.05, "maxval": 0.05},
                                   "registered_name": None},
        "embeddings_regularizer": None, "activity_regularizer": None,
        "embeddings_constraint": None, "mask_zero": False, "quantization_config": None}
    layer = layers.Embedding.from_config(config)
    assert layer(np.array([[1, 4]])).shape == (1, 2, 3)
