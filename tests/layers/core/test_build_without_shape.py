"""A layer built by ``build()`` with no shape (Embedding's usual way) writes Keras's empty
``{"shapes_dict": {}}`` build config, so ``load_model`` builds it before loading its
weights, as Keras 3.15.1 does: a quantized Embedding in a Sequential without an input shape
round-trips through a ``.keras`` file."""
import numpy as np
import pytest

from lamina import layers, models, saving


def test_build_config_of_a_shapeless_build():
    layer = layers.Embedding(10, 4)
    assert layer.get_build_config() is None
    layer.build()
    assert layer.get_build_config() == {"shapes_dict": {}}
    dense = layers.Dense(2)
    dense.build((None, 3))
    assert dense.get_build_config() == {"input_shape": [None, 3]}


@pytest.mark.parametrize("mode", [None, "int8", "int4"])
@pytest.mark.parametrize("cls", [layers.Embedding, layers.ReversibleEmbedding])
def test_quantized_embedding_round_trips(cls, mode, tmp_path):
    layer = cls(10, 16)
    layer.build()
    if mode:
        layer.quantize(mode)
    model = models.Sequential([layer])
    ids = np.random.default_rng(0).integers(0, 9, size=(8, 3))
    path = str(tmp_path / "m.keras")
    model.save(path)
    loaded = saving.load_model(path)
    assert loaded.layers[0].built
    np.testing.assert_array_equal(loaded.predict(ids, verbose=0), model.predict(ids, verbose=0))
