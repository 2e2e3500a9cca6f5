import numpy as np
import pytest

import lamina


def test_pad_sequences_keras_defaults_pad_and_truncate_at_the_start():
    out = lamina.utils.pad_sequences([[1, 2, 3], [4], [5, 6, 7, 8]], maxlen=3)
    np.testing.assert_array_equal(out, [[1, 2, 3], [0, 0, 4], [6, 7, 8]])
    assert out.dtype == np.int32


def test_pad_sequences_post_and_value_and_longest():
    out = lamina.utils.pad_sequences([[1, 2], [3]], padding="post", truncating="post",
                                     value=-1, dtype="float32")
    np.testing.assert_array_equal(out, [[1, 2], [3, -1]])
    assert out.dtype == np.float32
    np.testing.assert_array_equal(lamina.utils.pad_sequences([[1, 2, 3]], maxlen=2,
                                                             truncating="post"), [[1, 2]])


def test_pad_sequences_errors():
    with pytest.raises(ValueError, match=r"argument 'padding' must be 'pre' or 'post'; "
                                         r"received 'middle'"):
        lamina.utils.pad_sequences([[1]], padding="middle")
    with pytest.raises(ValueError, match=r"sequence 1 is 5"):
        lamina.utils.pad_sequences([[1], 5])


def test_normalize_and_keras_names():
    np.testing.assert_allclose(lamina.utils.normalize([[3.0, 4.0], [0.0, 0.0]]),
                               [[0.6, 0.8], [0.0, 0.0]])
    assert lamina.utils.register_keras_serializable is \
        lamina.saving.register_keras_serializable
    assert lamina.KerasTensor is lamina.graph.SymbolicTensor
    assert lamina.version() == lamina.__version__


def test_config_names_and_interactive_logging(capsys):
    assert lamina.config.floatx() == "float32" and lamina.config.backend() == "numpy"
    model = lamina.Sequential([lamina.Input((2,)), lamina.layers.Dense(1)])
    model.compile(optimizer="sgd", loss="mse")
    lamina.config.disable_interactive_logging()
    try:
        model.fit(np.ones((4, 2)), np.ones((4, 1)), epochs=1, verbose=1)
        assert capsys.readouterr().out == ""
    finally:
        lamina.config.enable_interactive_logging()
