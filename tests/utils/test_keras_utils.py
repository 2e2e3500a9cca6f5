"""keras.utils names: Config, Progbar, batch packing, symbolic tensors, dtypes, logging,
clear_session (expected values printed by Keras 3.15.1 for the same calls)."""
import re
import sys

import numpy as np
import pytest

import lamina
from lamina import utils


def test_config_is_a_freezable_attribute_dict():
    config = utils.Config(learning_rate=0.1)
    config.momentum = 0.9
    config["seed"] = 3
    assert config.learning_rate == 0.1 and config["momentum"] == 0.9 and config.seed == 3
    assert list(config) == ["learning_rate", "momentum", "seed"] and len(config) == 3
    assert "seed" in config and config.get("nope", 5) == 5
    assert config.as_dict() == {"learning_rate": 0.1, "momentum": 0.9, "seed": 3}
    assert config.to_json() == '{"learning_rate": 0.1, "momentum": 0.9, "seed": 3}'
    with pytest.raises(AttributeError, match=r"Unknown attribute: 'momentun'. Did you mean "
                                             r"'momentum'\?"):
        config.momentun
    config.freeze()
    assert config.frozen
    for mutate in (lambda: setattr(config, "x", 1), lambda: config.update(x=1),
                   lambda: config.pop("seed"), lambda: config.__setitem__("x", 1),
                   lambda: config.__delitem__("seed")):
        with pytest.raises(ValueError, match="the config is frozen"):
            mutate()
    config.unfreeze()
    del config["seed"]
    assert config.as_dict() == {"learning_rate": 0.1, "momentum": 0.9}


def test_config_methods_cannot_be_overwritten():
    with pytest.raises(AttributeError, match="'keys' is a method or property of Config"):
        utils.Config().keys = 1


def test_progbar_verbose_2_line_matches_keras(capsys):
    bar = utils.Progbar(3, verbose=2)
    bar.update(1, [("loss", 1.0), ("acc", 0.5)])
    bar.update(2, [("loss", 3.0), ("acc", 0.7)])
    assert bar._values == {"loss": [4.0, 2], "acc": [1.2, 2]}    # Keras's running sums
    assert capsys.readouterr().out == ""
    bar.update(3, [("loss", 5.0), ("acc", 0.0001)])
    out = capsys.readouterr().out
    assert re.fullmatch(r"3/3 - 0s - \d+(us|ms)/step - loss: 5\.0000 - acc: 1\.0000e-04\n", out), out


def test_progbar_averages_stateless_and_keeps_stateful():
    bar = utils.Progbar(4, verbose=0, stateful_metrics=["acc"])
    bar.update(1, [("loss", 2.0), ("acc", 0.5)])
    bar.update(3, [("loss", 4.0), ("acc", 0.9)])
    assert bar._values == {"loss": [10.0, 3], "acc": [0.9, 1]}    # Keras: same values
    bar.add(1, [("loss", 1.0)])
    assert bar._seen_so_far == 4


def test_progbar_verbose_1_draws_the_bar(capsys, monkeypatch):
    monkeypatch.setattr(sys.stdout, "isatty", lambda: True)   # redrawn on a terminal
    bar = utils.Progbar(4, width=8, verbose=1, interval=0)
    bar.update(2, [("loss", 0.5)])
    out = capsys.readouterr().out
    assert out.startswith("\r\x1b[1m2/4\x1b[0m \x1b[32m━━━━\x1b[0m\x1b[37m━━━━\x1b[0m")
    assert "loss: 0.5000" in out
    bar.update(4, [("loss", 0.25)])
    assert "\x1b[32m━━━━━━━━\x1b[0m" in capsys.readouterr().out


def test_progbar_verbose_1_piped_writes_the_final_line_only(capsys):
    bar = utils.Progbar(4, width=8, verbose=1, interval=0)
    bar.update(2, [("loss", 0.5)])
    assert capsys.readouterr().out == ""
    bar.update(4, [("loss", 0.25)])
    assert re.fullmatch(r"4/4 ━━━━━━━━ 0s \d+(us|ms)/step - loss: 0\.2500\n",
                        capsys.readouterr().out)


def test_progbar_is_silent_with_interactive_logging_disabled(capsys):
    utils.disable_interactive_logging()
    try:
        assert not utils.is_interactive_logging_enabled()
        utils.Progbar(1, verbose=2).update(1, [("loss", 1.0)])
    finally:
        utils.enable_interactive_logging()
    assert utils.is_interactive_logging_enabled()
    assert capsys.readouterr().out == ""


def test_progbar_argument_errors():
    with pytest.raises(ValueError, match="pass only one of `stateful_metrics`"):
        utils.Progbar(2, stateful_metrics=["a"], stateless_metrics=["b"])
    with pytest.raises(ValueError, match="argument 'verbose' must be 0, 1 or 2; received 3"):
        utils.Progbar(2, verbose=3)


def test_pack_and_unpack_follow_keras():
    pack, unpack = utils.pack_x_y_sample_weight, utils.unpack_x_y_sample_weight
    assert [pack(1), pack(1, 2), pack(1, 2, 3), pack((1, 2)), pack([1, 2])] == \
        [1, (1, 2), (1, 2, 3), ((1, 2),), ([1, 2],)]
    assert [unpack(1), unpack((1,)), unpack((1, 2)), unpack((1, 2, 3)), unpack([1, 2])] == \
        [(1, None, None), (1, None, None), (1, 2, None), (1, 2, 3), (1, 2, None)]
    with pytest.raises(ValueError, match=r"found: \(1, 2, 3, 4\)"):
        unpack((1, 2, 3, 4))


def test_standardize_dtype_follows_keras():
    got = [utils.standardize_dtype(d) for d in
           (None, float, int, bool, "int", "float64", np.float16, np.dtype("int8"), "uint8")]
    assert got == ["float32", "float32", "int32", "bool", "int32", "float64", "float16",
                   "int8", "uint8"]
    with pytest.raises(ValueError, match="Invalid dtype: float"):
        utils.standardize_dtype("float")


def test_keras_tensors_and_their_source_inputs():
    a = lamina.Input((3,), name="a")
    b = lamina.Input((3,), name="b")
    dense = lamina.layers.Dense(2)
    out = lamina.layers.Add()([dense(a), dense(b)])
    out2 = lamina.ops.add(out, lamina.ops.sum(a, axis=-1, keepdims=True))   # ops between layers
    assert utils.is_keras_tensor(a) and utils.is_keras_tensor(out)
    assert not utils.is_keras_tensor(lamina.ops.ones((2,)))
    sources = utils.get_source_inputs(out2)
    assert len(sources) == 2 and sources[0] is a and sources[1] is b
    assert utils.get_source_inputs(a) == [a]
    concrete = lamina.ops.ones((2,))
    assert utils.get_source_inputs(concrete) is concrete


def test_clear_session_resets_auto_names():
    lamina.layers.Dense(1)
    utils.clear_session()
    assert lamina.layers.Dense(1).name == "dense"
    utils.clear_session(free_memory=False)
    assert lamina.layers.Dense(1).name == "dense"
