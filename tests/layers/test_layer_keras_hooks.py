"""Keras 3's Layer helpers and hooks that Keras's own tests use (issue 22): metrics
tracking, ``_flatten_layers``, ``_untrack_variable``, ``rematerialized_call``, the per-mode
quantized-call hooks, DTypePolicyMap policies and the GPTQ-by-policy refusal. Expected
values come from Keras 3.15.1 (JAX backend) running the same code."""
import numpy as np
import pytest

import lamina as keras
from lamina import layers


class _Inner(layers.Layer):
    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        self.a = layers.Dense(2, name="a")
        self.b = layers.Dense(2, name="b")


class _Outer(layers.Layer):
    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        self.inner = _Inner(name="inner")
        self.c = layers.Dense(2, name="c")


def test_flatten_layers_in_keras_order():
    outer = _Outer(name="outer")
    assert [l.name for l in outer._flatten_layers()] == ["outer", "inner", "b", "a", "c"]
    assert [l.name for l in outer._flatten_layers(include_self=False, recursive=False)] == \
        ["inner", "c"]


def test_metrics_assigned_as_attributes_are_tracked_with_sublayers():
    class WithMetric(layers.Layer):
        def __init__(self):
            super().__init__()
            self.dense = layers.Dense(3)
            self.metric = keras.metrics.MeanSquaredError(name="my_metric")

    class Parent(layers.Layer):
        def __init__(self, inner):
            super().__init__()
            self.inner = inner
            self.m = keras.metrics.Mean(name="m2")

    layer = Parent(WithMetric())
    assert [m.name for m in layer.metrics] == ["m2", "my_metric"]
    assert len(layer.metrics_variables) == 4          # total and count of each
    layer.inner.dense.build((1, 3))
    assert len(layer.trainable_variables) == 2        # metric state is not a weight
    assert layer.non_trainable_variables == []


def test_untrack_variable_forgets_the_weight_and_returns_none():
    class Holder(layers.Layer):
        def __init__(self):
            super().__init__()
            self.w = self.add_weight(shape=(2,))
            self.v = self.add_weight(shape=(), trainable=False)

    layer = Holder()
    v = layer.v
    layer.w = layer._untrack_variable(layer.w)
    assert layer.w is None
    assert layer.weights == [v]
    layer.w = layer.add_weight(initializer="zeros", dtype="int8", trainable=False)
    assert layer.w.dtype == "int8" and not layer.w.trainable
    assert len(layer.non_trainable_weights) == 2


def test_rematerialized_call_without_scope_returns_the_call():
    layer = layers.Dense(4)
    assert layer.rematerialized_call(layer.call, np.ones((2, 3))) == layer.call


def test_rematerialized_call_in_scope_wraps_the_given_call():
    with keras.RematScope(mode="full"):
        layer = layers.Dense(2, kernel_initializer="ones")
    layer.build((None, 3))
    seen = []

    def call(x):
        seen.append(x.shape)
        return layer.call(x)

    wrapped = layer.rematerialized_call(call, np.ones((2, 3)))
    assert wrapped is not call
    out = wrapped(keras.ops.ones((2, 3)))
    np.testing.assert_allclose(keras.ops.convert_to_numpy(out), np.full((2, 2), 3.0))
    assert seen == [(2, 3)]


@pytest.mark.parametrize("method", ["_int4_call", "_int8_call", "_float8_call",
                                    "_gptq_call", "_awq_call"])
def test_quantized_call_hooks_of_the_base_class_refuse(method):
    layer = layers.Layer()
    with pytest.raises(NotImplementedError,
                       match=f"Layer Layer does not have a `{method}` method implemented."):
        getattr(layer, method)(None)


def test_quantized_build_takes_keras_base_argument_names():
    with pytest.raises(NotImplementedError,
                       match="does not have a `quantized_build` method implemented."):
        layers.Layer().quantized_build(input_shape=None, mode=None)
    dense = layers.Dense(3, dtype="int8_from_float32")
    dense.quantized_build(input_shape=(4, 3), mode="int8")
    assert dense.kernel.dtype == "int8" and dense.kernel.shape == (4, 3)
    with pytest.raises(TypeError, match="received both"):
        layers.Dense(3).quantized_build((4, 3), "int8", input_shape=(4, 3))


def test_dtype_policy_map_keeps_the_map_and_sets_the_layer_path():
    policy_map = keras.dtype_policies.DTypePolicyMap()
    layer = layers.Dense(2, dtype=policy_map)
    layer.build([None, 1])
    layer.dtype_policy = "mixed_bfloat16"
    assert isinstance(layer._dtype_policy, keras.dtype_policies.DTypePolicyMap)
    assert layer._dtype_policy[layer.path] == keras.dtype_policies.DTypePolicy("mixed_bfloat16")
    assert (layer.compute_dtype, layer.variable_dtype) == ("bfloat16", "float32")


def test_dtype_policy_map_policy_applies_by_path():
    policy_map = keras.dtype_policies.DTypePolicyMap()
    policy_map["quantized"] = keras.dtype_policies.QuantizedDTypePolicy("int8", "float32")
    layer = layers.Dense(3, dtype=policy_map, name="quantized")
    layer.build((None, 4))
    assert layer.quantization_mode == "int8"
    assert layer.kernel.dtype == "int8"
    plain = layers.Dense(3, dtype=policy_map, name="plain")
    plain.build((None, 4))
    assert plain.quantization_mode is None and plain.kernel.dtype == "float32"


def test_gptq_policy_on_a_built_layer_is_refused_and_leaves_it_unchanged():
    layer = layers.Dense(3)
    layer.build((2, 4))
    with pytest.raises(ValueError, match="Implicitly enabling GPTQ quantization.*is not "
                                         "supported"):
        layer.dtype_policy = "gptq/4/-1_from_float32"
    assert layer.dtype_policy.name == "float32"
    assert layer.quantization_mode is None


def test_attention_projections_expose_kernel_as_keras_private_name():
    layer = layers.MultiHeadAttention(num_heads=3, key_dim=8, use_bias=False)
    query = np.array([[[1.0, 0.0], [0.0, 1.0]]])
    layer.build(query.shape, query.shape)
    assert layer._query_dense._kernel is layer._query_dense.kernel
    for sublayer in layer._flatten_layers():
        if sublayer is not layer:
            sublayer.quantize("int8")
    assert layer._query_dense._kernel.dtype == "int8"
    assert layer._output_dense._kernel.dtype == "int8"
