"""``save_model`` / ``load_model`` with an open binary file (``io.BytesIO``), as Keras 3's
saving_lib takes it."""
import io
import zipfile

import numpy as np
import pytest

import lamina
from lamina import layers


def setup_function():
    lamina.backend.clear_session(free_memory=False)


def _model():
    model = lamina.Sequential([lamina.Input((1,)), layers.Dense(1), layers.Dense(1)])
    model.compile(optimizer="adam", loss="mse")
    return model


def test_a_model_saved_to_bytes_loads_back_with_its_state():
    model = _model()
    model.fit(np.array([[1.0], [2.0]]), np.array([[1.0], [2.0]]), verbose=0)
    out = io.BytesIO()
    lamina.saving.save_model(model, out)
    assert zipfile.ZipFile(io.BytesIO(out.getvalue())).namelist()[:3] == [
        "metadata.json", "config.json", "model.weights.h5"]
    out.seek(0)
    loaded = lamina.saving.load_model(out)
    x = np.array([[1.0], [2.0]], "float32")
    np.testing.assert_array_equal(loaded.predict(x, verbose=0), model.predict(x, verbose=0))
    assert int(loaded.optimizer.iterations.numpy()) == 1


def test_a_file_object_takes_no_folder_and_no_unknown_argument():
    with pytest.raises(ValueError, match=r"zipped=False writes a folder, which needs a path"):
        lamina.saving.save_model(_model(), io.BytesIO(), zipped=False)
    with pytest.raises(ValueError, match=r"not supported when saving to a file object: "
                                         r"\['save_traces'\]"):
        lamina.saving.save_model(_model(), io.BytesIO(), save_traces=True)


def test_bytes_that_are_not_a_model_are_refused():
    with pytest.raises(ValueError, match=r"is not a .keras model: it is not a zip file"):
        lamina.saving.load_model(io.BytesIO(b"not a zip"))
