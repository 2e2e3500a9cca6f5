"""The int4 and float8 policies and configs (lamina/dtype_policies/quantized.py,
lamina/quantizers/quantization_config.py) as Keras 3.15.1 has them: names, dtypes,
serialized forms, equality, what assigning or constructing with such a policy builds
(tests/fixtures/make_quantize_checks.py evaluated the same expressions in Keras)."""
import json
import os

import pytest

import lamina
from lamina import dtype_policies, quantizers

with open(os.path.join(os.path.dirname(__file__), "..", "fixtures",
                       "quantize_checks.json")) as _f:
    KERAS = json.load(_f)


def _plain(value):
    """What the value looks like after Keras's JSON round trip (tuples become lists)."""
    return json.loads(json.dumps(value, default=lambda o: repr(o)))


# Where Lamina deliberately differs, and what it gives instead.
DIFFERENT = {
    # Built from its policy (a file's layer), a GPTQ layer has no float kernel: Lamina
    # counts it calibrated; Keras's flag stays False until its variables are loaded (and the
    # layer cannot compute before).
    "gptq built from policy flag": True,
}


@pytest.mark.parametrize("label", sorted(KERAS["facts"]))
def test_same_as_keras(label):
    fact = KERAS["facts"][label]
    namespace = {"keras": lamina}
    exec(KERAS["setup"], namespace)
    want = DIFFERENT.get(label, fact["value"])
    assert _plain(eval(fact["expression"], namespace)) == want


def test_int4_policy_without_source_takes_the_global_policys_name():
    # Keras 3.15.1 names it "int4/128_from_None" while computing in the global dtypes.
    policy = dtype_policies.Int4DTypePolicy("int4/128")
    assert policy.name == "int4/128_from_float32"
    assert policy.get_config() == {"mode": "int4/128", "source_name": "float32"}


def test_int4_config_with_a_custom_quantizer_survives_its_json_round_trip():
    # Keras 3.15.1 compares value_range with the tuple (-8, 7) and so refuses the list its
    # own JSON gives back; Lamina takes the list.
    config = quantizers.Int4QuantizationConfig(
        weight_quantizer=quantizers.AbsMaxQuantizer(axis=0, value_range=(-8, 7)),
        block_size=None)
    again = quantizers.deserialize(json.loads(json.dumps(quantizers.serialize(config))))
    assert list(again.weight_quantizer.value_range) == [-8, 7]
    assert again.block_size is None


@pytest.mark.parametrize("value", [1.5, "64", True])
def test_int4_block_size_must_be_an_int(value):
    with pytest.raises(ValueError, match="block_size must be None, -1, or a positive "
                                         "integer. Received: block_size="):
        quantizers.Int4QuantizationConfig(block_size=value)


def test_float8_history_length_must_be_positive():
    with pytest.raises(ValueError, match="'amax_history_length' must be a positive int; "
                                         "received 0"):
        dtype_policies.QuantizedFloat8DTypePolicy("float8", "float32", 0)


def test_get_makes_configs_by_name():
    assert isinstance(quantizers.get("Int4QuantizationConfig", block_size=32),
                      quantizers.Int4QuantizationConfig)
    assert quantizers.get("int4_quantization_config", block_size=32).block_size == 32
    assert quantizers.get("float8_quantization_config").mode == "float8"


def test_global_int4_policy_builds_int4_layers():
    lamina.config.set_dtype_policy("int4/2_from_float32")
    try:
        layer = lamina.layers.Dense(3)
        layer.build((None, 4))
    finally:
        lamina.config.set_dtype_policy("float32")
    assert [v.name for v in layer.weights] == ["bias", "kernel", "kernel_scale",
                                               "kernel_zero", "g_idx"]
    assert layer.kernel_scale.shape == (2, 3)
