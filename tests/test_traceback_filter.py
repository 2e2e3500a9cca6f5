"""Issue 24 item 3: errors raised to the user through Lamina's entry points show the user's
frames, not Lamina's (Keras's traceback filtering), unless filtering is disabled."""
import traceback

import numpy as np
import pytest

import lamina
from lamina import layers, ops
from lamina.traceback_filter import PACKAGE_DIR


@pytest.fixture
def filtering():
    yield
    lamina.config.enable_traceback_filtering()


def _frames(exc):
    return [f.filename for f in traceback.extract_tb(exc.__traceback__)]


def _lamina_frames(exc):
    return [f for f in _frames(exc) if f.startswith(PACKAGE_DIR)]


def _raised(fn):
    with pytest.raises(Exception) as info:
        fn()
    return info.value


def _wrong_input():
    model = lamina.Sequential([lamina.Input((20,)), layers.Dense(4)])
    return lambda: model(np.zeros((32, 28), "float32"))


class Explodes(layers.Layer):
    def call(self, x):
        return helper_of_the_user(x)


def helper_of_the_user(x):
    raise ValueError("the user's own bug")


def test_a_layer_call_error_shows_one_lamina_frame_at_most(filtering):
    exc = _raised(_wrong_input())
    assert isinstance(exc, lamina.errors.ShapeError)
    assert _frames(exc)[0] == __file__
    # the entry point the error left through, as Keras shows its error_handler
    assert [f.rsplit("/", 1)[1] for f in _lamina_frames(exc)] == ["traceback_filter.py"]
    assert exc.__suppress_context__


def test_an_op_error_shows_no_lamina_internals(filtering):
    exc = _raised(lambda: ops.matmul(np.ones((2, 3)), np.ones((4, 5))))
    # keras.ops.matmul's own line and the op call it left through (Keras shows the same)
    assert [f.rsplit("/", 2)[1:] for f in _lamina_frames(exc)] == \
        [["ops", "linalg.py"], ["core", "op.py"]]
    assert "matmul" in str(exc)


def test_the_users_frames_inside_a_layer_are_kept(filtering):
    layer = Explodes()
    exc = _raised(lambda: layer(np.ones((2, 2), "float32")))
    names = [f.name for f in traceback.extract_tb(exc.__traceback__)]
    assert names[-2:] == ["call", "helper_of_the_user"]
    assert len(_lamina_frames(exc)) <= 1


def test_disabling_filtering_gives_the_whole_traceback(filtering):
    lamina.config.disable_traceback_filtering()
    exc = _raised(_wrong_input())
    assert len(_lamina_frames(exc)) > 5
    lamina.config.enable_traceback_filtering()
    assert lamina.config.is_traceback_filtering_enabled()
    assert len(_lamina_frames(_raised(_wrong_input()))) == 1


class ExplodesWithACause(layers.Layer):
    def call(self, x):
        try:
            helper_of_the_user(x)
        except ValueError as exc:
            raise RuntimeError("wrapped by the user") from exc


def test_an_explicit_cause_is_kept_and_filtered_too(filtering):
    layer = ExplodesWithACause()
    exc = _raised(lambda: layer(np.ones((2, 2), "float32")))
    assert isinstance(exc.__cause__, ValueError)
    assert [f.name for f in traceback.extract_tb(exc.__cause__.__traceback__)] == \
        ["call", "helper_of_the_user"]
    assert len(_lamina_frames(exc)) <= 1


def test_fit_predict_and_load_model_errors_are_filtered(filtering, tmp_path):
    model = lamina.Sequential([lamina.Input((28, 28)), layers.Flatten(), layers.Dense(10)])
    model.compile("sgd", "mse")
    x = np.zeros((5, 28, 28), "float32")
    for call in (lambda: model.predict(x[0], verbose=0),
                 lambda: model.fit(x[:, 0], np.zeros((5, 10)), verbose=0),
                 lambda: lamina.saving.load_model(tmp_path / "missing.keras")):
        exc = _raised(call)
        assert _frames(exc)[0] == __file__
        assert [f.rsplit("/", 1)[1] for f in _lamina_frames(exc)] == ["traceback_filter.py"]


class WarnedOnce(lamina.Sequential):
    """A class of its own: each (class, argument) warning is given once per process."""


def test_warnings_from_inside_entry_points_point_at_the_user_s_line():
    model = WarnedOnce([lamina.Input((3,)), layers.Dense(2)])
    with pytest.warns(UserWarning, match="jit_compile") as record:
        model.compile("sgd", "mse", jit_compile="definitely")
    assert record[0].filename == __file__
