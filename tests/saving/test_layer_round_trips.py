"""Every layer in the registry survives ``.keras`` save -> ``load_model`` exactly.

The cases are the layer harness's own (every ``CASES`` under tests/layers, walked as
``tests/layers/test_registry.py`` does), so a layer added there is round-tripped here too.
Each case becomes a functional model Input(s) -> layer -> output(s) whose weights are set to
random values, saved, loaded and compared: predictions bit for bit, the model's config and
every layer's config equal, what every layer stores identical (its weights; a LoRA layer's
merged kernel).
"""
import json

import numpy as np
import pytest

import lamina
from lamina import ops
from lamina.saving.object_graph import saveables
from tests.layers.harness import case_id, make_inputs
from tests.layers.recurrent.helpers import fresh
from tests.layers.test_registry import _all_cases

CASES = _all_cases()
# Lambda layers hold Python functions: they come back only through the names given here.
FUNCTIONS = {"double_plus", "first_half"}


def _custom_objects():
    from tests.layers.core import test_lambda
    return {name: getattr(test_lambda, name) for name in FUNCTIONS}


def _symbolic_inputs(data):
    leaves = lamina.tree.flatten(data)
    symbols = [lamina.Input(batch_shape=(None, *np.shape(a)[1:]), dtype=str(np.asarray(a).dtype))
               for a in leaves]
    return lamina.tree.pack_sequence_as(data, symbols)


def _randomize(model, rng):
    """Random, positive weights (a variance must stay positive), so that a weight left at
    its initial value by the loader shows up in the predictions."""
    for w in model.weights:
        if "float" in str(w.dtype):
            w.assign(rng.uniform(0.1, 1.0, tuple(w.shape)).astype(str(w.dtype)))


def build(case):
    case = fresh(case)
    data = make_inputs(case)
    inputs = _symbolic_inputs(data)
    outputs = case.cls(**case.kwargs)(inputs, **case.call_kwargs)
    model = lamina.Model(inputs, outputs, name="round_trip")
    _randomize(model, np.random.default_rng(3))
    return model, data


def _stored(obj):
    store = {}
    obj.save_own_variables(store)
    return {k: np.asarray(v.numpy() if hasattr(v, "numpy") else v).tobytes()
            for k, v in store.items()}


def _as_json(config):
    return json.loads(json.dumps(config))


def _structure(x):
    """The nesting of a model's outputs, tuples and lists alike: ``[0, [0]]``."""
    if isinstance(x, (list, tuple)):
        return [_structure(v) for v in x]
    if isinstance(x, dict):
        return {k: _structure(v) for k, v in x.items()}
    return 0


def _predictions(model, data):
    outputs = model.predict(data, verbose=0)
    return _structure(outputs), [np.asarray(y) for y in lamina.tree.flatten(outputs)]




def _load(case, path):
    if case.cls is lamina.layers.Lambda:
        return lamina.models.load_model(path, safe_mode=False,
                                        custom_objects=_custom_objects())
    return lamina.models.load_model(path)


@pytest.mark.parametrize("case", CASES, ids=case_id)
def test_layer_round_trips_through_a_keras_file(case, tmp_path, backend):
    model, data = build(case)
    structure, before = _predictions(model, data)
    model.save(tmp_path / "model.keras")
    loaded = _load(case, tmp_path / "model.keras")

    loaded_structure, after = _predictions(loaded, data)
    assert len(after) == len(before)
    for a, b in zip(before, after):
        assert a.dtype == b.dtype and a.shape == b.shape
        assert np.max(np.abs(a.astype("float64") - b.astype("float64")), initial=0.0) == 0.0
    assert [type(layer) for layer in loaded.layers] == [type(layer) for layer in model.layers]
    for original, restored in zip(model.layers, loaded.layers):
        assert restored.get_config() == original.get_config(), original.name
    assert [w.path for w in loaded.weights] == [w.path for w in model.weights]
    # Every object stores the same arrays (its save_own_variables): its weights, or for a
    # LoRA layer the merged kernel, whose factors are not saved.
    for original, restored in zip(saveables(model), saveables(loaded)):
        assert _stored(restored.obj) == _stored(original.obj), original.path

    assert loaded_structure == structure
    # Compared as the file stores them (JSON has lists, no tuples): a layer's call that
    # returns a tuple of outputs comes back as a list, as it does in Keras.
    assert _as_json(loaded.get_config()) == _as_json(model.get_config())


def test_a_python_lambda_round_trips_with_the_function_passed_by_name(tmp_path):
    function = lambda x: ops.add(ops.multiply(x, 3.0), 1.0)  # noqa: E731
    inputs = lamina.Input((4,))
    model = lamina.Model(inputs, lamina.layers.Lambda(function, name="lam")(inputs))
    model.save(tmp_path / "lambda.keras")
    loaded = lamina.models.load_model(tmp_path / "lambda.keras", safe_mode=False,
                                      custom_objects={"lam": function})
    x = np.random.default_rng(0).standard_normal((3, 4)).astype("float32")
    assert np.array_equal(loaded.predict(x, verbose=0), model.predict(x, verbose=0))
    np.testing.assert_allclose(loaded.predict(x, verbose=0), x * 3.0 + 1.0, rtol=1e-6)
    assert loaded.get_config() == model.get_config()


def test_the_walk_covers_every_exported_layer():
    covered = {case.cls for case in CASES}
    exported = {getattr(lamina.layers, name) for name in lamina.layers.__all__}
    layers = {cls for cls in exported if isinstance(cls, type) and
              issubclass(cls, lamina.layers.Layer)}
    # The host-data layers (strings/ints outside the graph) cannot sit in a functional
    # model; their config and .keras round trips are in tests/layers/preprocessing.
    host_data = {"StringLookup", "IntegerLookup", "Hashing", "HashedCrossing",
                 "TextVectorization"}
    assert {cls.__name__ for cls in layers - covered} - host_data == {"Layer", "InputLayer",
                                                                      "Wrapper"}  # abstract
    assert len(CASES) >= 170
