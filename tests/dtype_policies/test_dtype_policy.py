"""keras.dtype_policies / keras.mixed_precision / keras.config.dtype_policy: names, dtypes,
the global policy, per-layer policies and configs exactly as Keras 3.15.1 writes them."""
from __future__ import annotations

import json

import pytest

import lamina
from lamina.dtype_policies import reset_dtype_policy
from lamina import dtype_policies, layers, mixed_precision
from lamina.dtype_policies import DTypePolicy, DTypePolicyMap, FloatDTypePolicy


@pytest.fixture(autouse=True)
def _float32_policy():
    yield
    reset_dtype_policy()


@pytest.mark.parametrize("name,compute,variable", [
    ("float32", "float32", "float32"), ("float16", "float16", "float16"),
    ("bfloat16", "bfloat16", "bfloat16"), ("float64", "float64", "float64"),
    ("mixed_float16", "float16", "float32"), ("mixed_bfloat16", "bfloat16", "float32"),
    ("int32", "int32", "int32")])
def test_policy_dtypes(name, compute, variable):
    policy = DTypePolicy(name)
    assert (policy.name, policy.compute_dtype, policy.variable_dtype) == (name, compute,
                                                                          variable)
    assert policy.quantization_mode is None
    assert repr(policy) == f'<DTypePolicy "{name}">'
    assert repr(FloatDTypePolicy(name)) == f'<DTypePolicy "{name}">'


def test_equality_and_aliases():
    assert DTypePolicy("mixed_float16") == FloatDTypePolicy("mixed_float16")
    assert DTypePolicy("mixed_float16") != DTypePolicy("float16")
    assert DTypePolicy("float32") != "float32"
    assert mixed_precision.Policy is DTypePolicy and mixed_precision.DTypePolicy is DTypePolicy
    assert lamina.DTypePolicy is DTypePolicy and lamina.FloatDTypePolicy is FloatDTypePolicy
    assert mixed_precision.global_policy is lamina.config.dtype_policy
    assert mixed_precision.set_global_policy is lamina.config.set_dtype_policy
    assert mixed_precision.LossScaleOptimizer is lamina.optimizers.LossScaleOptimizer


def test_policy_errors():
    with pytest.raises(TypeError, match=r"DTypePolicy: argument 'name' must be a string, "
                       r"such as 'mixed_float16'; received 3 \(of type int\)"):
        DTypePolicy(3)
    with pytest.raises(ValueError, match=r"DTypePolicy: cannot convert 'foo' to a dtype "
                       r"policy; valid policies are 'mixed_float16', 'mixed_bfloat16'"):
        DTypePolicy("foo")
    with pytest.raises(ValueError, match=r"set_dtype_policy: argument 'policy' must be the "
                       r"name of a policy \(such as 'mixed_float16'\) or a DTypePolicy; "
                       r"received 3 \(of type int\)"):
        lamina.config.set_dtype_policy(3)
    with pytest.raises(ValueError, match=r"dtype_policies.get: cannot interpret 3.5 as a "
                       r"dtype policy"):
        dtype_policies.get(3.5)


def test_global_policy_applies_to_new_layers():
    assert lamina.config.dtype_policy() == DTypePolicy("float32")
    mixed_precision.set_global_policy("mixed_float16")
    assert mixed_precision.global_policy().name == "mixed_float16"
    assert DTypePolicy().name == "mixed_float16"          # name=None: the global policy
    dense = layers.Dense(2)
    assert dense.dtype_policy == DTypePolicy("mixed_float16")
    assert (dense.dtype, dense.compute_dtype, dense.variable_dtype) == (
        "float32", "float16", "float32")
    override = layers.Dense(2, dtype="float32")              # per-layer override
    assert override.compute_dtype == "float32"
    lamina.config.set_dtype_policy(DTypePolicy("mixed_bfloat16"))
    assert layers.Dense(2).compute_dtype == "bfloat16"
    assert dense.compute_dtype == "float16"                  # existing layers keep theirs
    lamina.backend.clear_session()                           # Keras resets it too
    assert lamina.config.dtype_policy().name == "float32"


def test_layer_policy_assignment_and_outputs():
    dense = layers.Dense(3, dtype=DTypePolicy("mixed_bfloat16"))
    y = dense(lamina.ops.ones((2, 4)))
    assert y.dtype == "bfloat16"
    assert [w.dtype for w in dense.weights] == ["float32", "float32"]
    dense.dtype_policy = "float32"
    assert dense.dtype_policy.name == "float32"


# Keras 3.15.1: json.dumps(dtype_policies.serialize(...)) and Dense(...).get_config()["dtype"]
KERAS_MIXED_BF16 = ('{"module": "keras", "class_name": "DTypePolicy", "config": {"name": '
                    '"mixed_bfloat16"}, "registered_name": null}')
KERAS_FLOAT16 = ('{"module": "keras", "class_name": "FloatDTypePolicy", "config": {"name": '
                 '"float16"}, "registered_name": null}')
KERAS_MAP = ('{"module": "keras.dtype_policies", "class_name": "DTypePolicyMap", "config": '
             '{"default_policy": "mixed_float16", "policy_map": {"dense/kernel": {"module": '
             '"keras", "class_name": "DTypePolicy", "config": {"name": "bfloat16"}, '
             '"registered_name": null}}}, "registered_name": null}')


def test_serialize_as_keras_writes():
    assert json.dumps(dtype_policies.serialize(DTypePolicy("mixed_bfloat16"))) == \
        KERAS_MIXED_BF16
    assert json.dumps(dtype_policies.serialize(FloatDTypePolicy("float16"))) == KERAS_FLOAT16
    policy_map = DTypePolicyMap(default_policy="mixed_float16")
    policy_map["dense/kernel"] = "bfloat16"
    assert json.dumps(dtype_policies.serialize(policy_map)) == KERAS_MAP
    config = layers.Dense(2, dtype="mixed_bfloat16").get_config()
    assert json.dumps(config["dtype"]) == KERAS_MIXED_BF16


def test_deserialize_and_get():
    restored = dtype_policies.deserialize(json.loads(KERAS_MIXED_BF16))
    assert type(restored) is DTypePolicy and restored.compute_dtype == "bfloat16"
    assert type(dtype_policies.get(json.loads(KERAS_FLOAT16))) is FloatDTypePolicy
    policy_map = dtype_policies.deserialize(json.loads(KERAS_MAP))
    assert isinstance(policy_map, DTypePolicyMap)
    assert policy_map["dense/kernel"] == DTypePolicy("bfloat16")
    assert policy_map.name == "map_mixed_float16"
    assert policy_map.compute_dtype == "float16"
    policy = DTypePolicy("float16")
    assert dtype_policies.get(policy) is policy
    assert dtype_policies.get(None) == DTypePolicy("float32")
    assert dtype_policies.get("mixed_float16") == DTypePolicy("mixed_float16")


def test_layer_config_round_trip_keeps_the_policy():
    dense = layers.Dense(2, dtype="mixed_float16")
    clone = layers.Dense.from_config(json.loads(json.dumps(dense.get_config())))
    assert clone.dtype_policy == DTypePolicy("mixed_float16")
    model = lamina.Sequential([layers.Input((3,)), layers.Dense(2, dtype="mixed_bfloat16")])
    restored = lamina.Sequential.from_config(model.get_config())
    assert restored.layers[0].compute_dtype == "bfloat16"
    keras2 = {"class_name": "Policy", "config": {"name": "mixed_float16"}}
    assert layers.Dense(2, dtype=keras2).compute_dtype == "float16"


def test_policy_map_lookup_and_errors():
    policy_map = DTypePolicyMap(default_policy="float32",
                                policy_map={"encoder/layer_0/dense": "bfloat16"})
    policy_map["encoder/.*"] = "float16"
    policy_map["decoder"] = DTypePolicy("bfloat16")
    assert policy_map["encoder/layer_0/dense"].name == "bfloat16"
    assert policy_map["encoder/attention/query"].name == "float16"
    assert policy_map["decoder/attention"].name == "float32"       # no full match
    assert len(policy_map) == 3 and "decoder" in policy_map
    policy_map["encoder/attention/.*"] = "bfloat16"
    with pytest.raises(ValueError, match=r"DTypePolicyMap: path 'encoder/attention/query' "
                       r"matches several keys"):
        policy_map["encoder/attention/query"]
    with pytest.raises(ValueError, match=r"DTypePolicyMap: key 'decoder' is already set"):
        policy_map["decoder"] = "float32"
    with pytest.raises(ValueError, match=r"DTypePolicyMap: the value for key 'x' must be a "
                       r"dtype policy or its name; received 'nope'"):
        policy_map["x"] = "nope"
    del policy_map["decoder"]
    assert "decoder" not in policy_map
    with pytest.raises(ValueError, match=r"DTypePolicyMap: argument 'default_policy' cannot "
                       r"be a DTypePolicyMap"):
        DTypePolicyMap(DTypePolicyMap())
    with pytest.raises(TypeError, match=r"DTypePolicyMap: argument 'policy_map' must be a "
                       r"dict; received 3 \(of type int\)"):
        DTypePolicyMap(policy_map=3)


def test_unset_global_policy_follows_floatx():
    reset_dtype_policy()
    lamina.config.set_floatx("float64")
    try:
        assert lamina.config.dtype_policy().name == "float64"
        assert layers.Dense(2).variable_dtype == "float64"
        lamina.config.set_dtype_policy("mixed_float16")      # an explicit policy wins
        assert layers.Dense(2).compute_dtype == "float16"
    finally:
        lamina.config.set_floatx("float32")
