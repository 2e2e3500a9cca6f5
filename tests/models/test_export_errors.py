"""Model.export with a format Lamina does not write: Keras 3's error types and words."""
import pytest

import lamina


def _model():
    inputs = lamina.Input((2,))
    return lamina.Model(inputs, lamina.layers.Dense(1)(inputs), name="m")


def test_unknown_format(tmp_path):
    with pytest.raises(ValueError, match=r"m\.export: Unrecognized format='bad_format': "
                                         r"argument 'format' must be 'lamina' or 'onnx'"):
        _model().export(tmp_path / "out", format="bad_format")
    assert not list(tmp_path.iterdir())


def test_tf_saved_model_is_not_implemented_here(tmp_path):
    with pytest.raises(NotImplementedError, match=r"`export_saved_model` only currently "
                                                  r"supports the tensorflow, jax and torch "
                                                  r"backends"):
        _model().export(tmp_path / "out", format="tf_saved_model")
