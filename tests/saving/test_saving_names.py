"""saving.save_weights(**kwargs) and models.save_model, with Keras's signatures."""
import h5py
import numpy as np
import pytest

import lamina
from lamina import saving


def _model():
    model = lamina.Sequential([lamina.Input((3,)), lamina.layers.Dense(2, name="a"),
                               lamina.layers.Dense(1, name="b")])
    model.layers[0].set_weights([np.full((3, 2), 0.5, "float32"), np.zeros(2, "float32")])
    return model


def _groups(path) -> list:
    names = []
    with h5py.File(path, "r") as f:
        f.visit(names.append)
    return names


def test_save_weights_objects_to_skip_leaves_that_layer_out(tmp_path):
    model = _model()
    full, skipped = tmp_path / "full.weights.h5", tmp_path / "skip.weights.h5"
    saving.save_weights(model, full)
    saving.save_weights(model, skipped, objects_to_skip=[model.layers[1]])
    assert "layers/dense_1/vars/0" in _groups(full)
    assert [g for g in _groups(skipped) if g.startswith("layers/")] == [
        "layers/dense", "layers/dense/vars", "layers/dense/vars/0", "layers/dense/vars/1"]


def test_save_weights_refuses_unknown_keywords(tmp_path):
    with pytest.raises(TypeError, match=r"save_weights: unexpected keyword arguments "
                                        r"\['by_name'\]"):
        saving.save_weights(_model(), tmp_path / "m.weights.h5", by_name=True)


def test_models_save_model_writes_a_loadable_keras_file(tmp_path):
    model = _model()
    x = np.array([[1.0, 2.0, 3.0]], "float32")
    lamina.models.save_model(model, tmp_path / "m.keras")
    loaded = lamina.models.load_model(tmp_path / "m.keras")
    np.testing.assert_allclose(loaded.predict(x, verbose=0), model.predict(x, verbose=0))
    with pytest.raises(saving.SavedFileExistsError):
        lamina.models.save_model(model, tmp_path / "m.keras", overwrite=False)


def test_load_weights_objects_to_skip_on_a_weights_h5_file(tmp_path):
    # '.weights.h5' also ends in '.h5': it is not a legacy file, objects_to_skip applies
    model = _model()
    saving.save_weights(model, tmp_path / "w.weights.h5")
    other = _model()
    other.layers[0].set_weights([np.full((3, 2), -1.0, "float32"), np.ones(2, "float32")])
    other.layers[1].set_weights([np.full((2, 1), 7.0, "float32"), np.ones(1, "float32")])
    other.load_weights(tmp_path / "w.weights.h5", objects_to_skip=[other.layers[0]])
    np.testing.assert_array_equal(other.layers[0].get_weights()[0], np.full((3, 2), -1.0))
    np.testing.assert_array_equal(other.layers[1].get_weights()[0],
                                  model.layers[1].get_weights()[0])
