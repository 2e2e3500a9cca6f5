"""Every exported layer that takes initializers, regularizers or constraints keeps
non-default ones through serialize/deserialize, get_config/from_config and a .keras file.

The layers and their other arguments come from the layer harness cases (tests/layers)."""
import json
import inspect

import numpy as np
import pytest

import lamina
from lamina import saving
from tests.layers.test_registry import _all_cases

SUFFIXES = ("_initializer", "_regularizer", "_constraint")


def _options(cls) -> list[str]:
    params = inspect.signature(cls.__init__).parameters
    return [name for name in params if name.endswith(SUFFIXES)]


def _value(name: str):
    if name == "moving_variance_initializer":       # must stay positive (a square root)
        return lamina.initializers.Constant(1.5)
    if name.endswith("_initializer"):
        return lamina.initializers.RandomNormal(mean=0.01, stddev=0.03, seed=11)
    if name.endswith("_regularizer"):
        return lamina.regularizers.L1L2(l1=0.001, l2=0.002)
    return lamina.constraints.MaxNorm(max_value=5.0, axis=0)


def _cases():
    first = {}
    for case in _all_cases():
        if case.cls not in first and _options(case.cls):
            first[case.cls] = case
    return [first[cls] for cls in sorted(first, key=lambda c: c.__name__)]


CASES = _cases()


def _layer(case):
    kwargs = dict(case.kwargs)
    for name in _options(case.cls):
        if name in kwargs and not (isinstance(kwargs[name], str) or kwargs[name] is None):
            continue               # the case already sets a specific object there
        kwargs[name] = _value(name)
    return case.cls(**kwargs)


def _option_configs(layer) -> dict:
    config = layer.get_config()
    return {name: config[name] for name in _options(type(layer)) if name in config}


def test_the_walk_covers_the_layers_with_weight_options():
    names = {case.cls.__name__ for case in CASES}
    assert {"Dense", "Conv2D", "Embedding", "LSTM", "BatchNormalization"} <= names


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.cls.__name__)
def test_serialize_deserialize_keeps_the_options(case):
    layer = _layer(case)
    config = json.loads(json.dumps(saving.serialize_keras_object(layer)))
    options = _option_configs(layer)
    assert options, f"{case.cls.__name__} writes none of {_options(case.cls)}"
    for name, written in options.items():
        expected = saving.serialize_keras_object(_value(name))
        assert written == expected, name
    rebuilt = lamina.layers.deserialize(config)
    assert type(rebuilt) is case.cls
    assert _option_configs(rebuilt) == options
    assert json.dumps(saving.serialize_keras_object(rebuilt), sort_keys=True) == \
        json.dumps(config, sort_keys=True)


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.cls.__name__)
def test_get_config_from_config_keeps_the_options(case):
    layer = _layer(case)
    rebuilt = case.cls.from_config(layer.get_config())
    assert rebuilt.get_config() == layer.get_config()
    for name in _options(case.cls):
        attr = getattr(rebuilt, name, None)
        if attr is not None and hasattr(attr, "get_config"):
            assert type(attr) is type(_value(name)), name


def _input(case, rng):
    if case.make_input is not None:
        return case.make_input(rng, case.input_shape)
    return rng.standard_normal(case.input_shape).astype(case.input_dtype)


@pytest.mark.parametrize("case", [c for c in CASES if not isinstance(c.input_shape, list)
                                  and not c.call_kwargs], ids=lambda c: c.cls.__name__)
def test_keras_file_keeps_the_options_and_the_outputs(case, tmp_path):
    rng = np.random.default_rng(0)
    x = _input(case, rng)
    inputs = lamina.Input(batch_shape=tuple(np.shape(x))[:1] + tuple(np.shape(x))[1:],
                          dtype=case.input_dtype)
    layer = _layer(case)
    model = lamina.Model(inputs, layer(inputs))
    expected = np.asarray(lamina.tree.flatten(model.predict(x, verbose=0))[0])
    path = tmp_path / "m.keras"
    model.save(path)
    loaded = saving.load_model(path)
    got = np.asarray(lamina.tree.flatten(loaded.predict(x, verbose=0))[0])
    assert np.all(np.isfinite(expected))
    np.testing.assert_allclose(got, expected, rtol=1e-6, atol=1e-6)
    loaded_layer = loaded.get_layer(layer.name)
    assert _option_configs(loaded_layer) == _option_configs(layer)
