"""int4 Dense, EinsumDense, Embedding and ReversibleEmbedding (lamina/layers/core/int4_*.py)
against Keras 3.15.1 (tests/fixtures/make_int4_references.py): the packed variables, their
paths and saved order, the policy and config, the unpacked ``layer.kernel``, the outputs
(Keras's numpy backend's to the bit, JAX's to float32 rounding), the inputs' gradient, and
graph == eager."""
import numpy as np
import pytest

import lamina
from lamina import layers, quantizers
from lamina.layers.core import int4_einsum
from tests.quantizers.fixtures import KERAS_INT4 as KERAS, array

DENSE = ["dense_None", "dense_-1", "dense_4", "dense_128", "dense_custom"]
EINSUM = [spec["name"] for spec in KERAS["einsum_cases"]] + ["einsum_custom"]
EMBEDDING = ["embedding_None", "embedding_4"]
REVERSIBLE = [f"reversible_{tie}_{block}" for tie in ("tied", "untied")
              for block in ("None", "4")]


def _config(case):
    if case["custom"]:
        return quantizers.Int4QuantizationConfig(
            weight_quantizer=quantizers.AbsMaxQuantizer(axis=0, value_range=(-8, 7)),
            activation_quantizer=quantizers.AbsMaxQuantizer(axis=-1), block_size=None)
    return quantizers.Int4QuantizationConfig(block_size=case["block_size"])


def _make(name):
    if name.startswith("dense"):
        return layers.Dense(7, activation="relu", name="dense")
    if name.startswith("einsum"):
        spec = next((s for s in KERAS["einsum_cases"] if s["name"] == name),
                    {"equation": "abc,cd->abd", "output_shape": [3, 5], "bias_axes": "d"})
        return layers.EinsumDense(spec["equation"], output_shape=tuple(spec["output_shape"]),
                                  bias_axes=spec["bias_axes"], name="einsum")
    if name.startswith("embedding"):
        return layers.Embedding(9, 7, name="embedding")
    return layers.ReversibleEmbedding(9, 7, tie_weights="untied" not in name, name="rev")


def _quantized(name):
    case = KERAS[name]
    layer = _make(name)
    layer.build(array(case["x"]).shape)
    layer.set_weights([array(w) for w in case["float_weights"]])
    if "custom" in name and name.startswith("einsum"):
        int4_einsum._warned.clear()          # the warning comes once per process
        with pytest.warns(UserWarning, match="weight_quantizer is not used by EinsumDense"):
            layer.quantize("int4", config=_config(case))
    else:
        layer.quantize("int4", config=_config(case))
    return layer, case


@pytest.mark.parametrize("name", DENSE + EINSUM + EMBEDDING + REVERSIBLE)
def test_variables_policy_and_config_are_keras(name):
    layer, case = _quantized(name)
    assert layer.dtype_policy.name == case["policy"]
    assert layer.quantization_mode == "int4"
    got = [(v.path, v.dtype, list(v.shape)) for v in layer.weights]
    assert got == [(w["path"], w["dtype"], w["shape"]) for w in case["weights"]]
    for variable, want in zip(layer.weights, case["weights"]):
        np.testing.assert_array_equal(variable.numpy(), array(want), err_msg=variable.path)
    store = {}
    layer.save_own_variables(store)
    assert len(store) == len(case["saved"])
    for i, want in enumerate(case["saved"]):
        np.testing.assert_array_equal(np.asarray(store[str(i)]), array(want))
    unpacked = layer.embeddings if "embedding" in name or "rev" in name else layer.kernel
    np.testing.assert_array_equal(np.asarray(unpacked), array(case["kernel"]))
    config = layer.get_config()
    assert config["dtype"] == case["config"]["dtype"]
    assert config["quantization_config"] == case["config"]["quantization_config"]


def _assert_keras_numpy(name, got, want):
    # Dense and the embeddings multiply as Keras's numpy backend does (the same BLAS
    # products): equal to the bit. Keras's numpy EinsumDense runs np.einsum, which sums in
    # another order than Lamina's matmul-based einsum: a few float32 ulps.
    if name.startswith("einsum"):
        np.testing.assert_allclose(got, want, rtol=1e-5, atol=2e-6)
    else:
        np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("name", DENSE + EINSUM + EMBEDDING + REVERSIBLE)
def test_outputs_are_keras(name):
    layer, case = _quantized(name)
    x = array(case["x"])
    eager = layer(x).numpy()
    _assert_keras_numpy(name, eager, array(case["output_numpy"]))
    np.testing.assert_allclose(eager, array(case["output"]), rtol=2e-6, atol=2e-6)
    np.testing.assert_array_equal(lamina.jit(lambda t: layer(t))(x).numpy(), eager)
    if "reverse_x" in case:
        hidden = array(case["reverse_x"])
        reverse = layer(hidden, reverse=True).numpy()
        np.testing.assert_array_equal(reverse, array(case["reverse_output_numpy"]))
        np.testing.assert_allclose(reverse, array(case["reverse_output"]), rtol=2e-6,
                                   atol=2e-6)
        graph = lamina.jit(lambda t: layer(t, reverse=True))(hidden).numpy()
        np.testing.assert_array_equal(graph, reverse)


@pytest.mark.parametrize("name", DENSE + EINSUM)
def test_inputs_gradient_is_keras(name):
    # The custom gradient goes through the dequantized kernel (Keras's grad_fn).
    layer, case = _quantized(name)
    x = lamina.ops.convert_to_tensor(array(case["x"]))
    upstream = array(case["upstream"])
    with lamina.GradientTape() as tape:
        tape.watch(x)
        loss = lamina.ops.sum(lamina.ops.multiply(layer(x), upstream))
    grad = tape.gradient(loss, x).numpy()
    np.testing.assert_allclose(grad, array(case["inputs_gradient"]), rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("name", DENSE + EINSUM + EMBEDDING + REVERSIBLE)
def test_rebuilt_from_keras_config_loads_keras_variables(name):
    # A layer made from Keras's config (its Int4DTypePolicy and Int4QuantizationConfig)
    # builds the int4 variables directly and loads Keras's saved arrays.
    case = KERAS[name]
    cls = type(_make(name))
    layer = cls.from_config(case["config"])
    x = array(case["x"])
    layer.build(x.shape)
    assert layer.dtype_policy.name == case["policy"]
    layer.load_own_variables({str(i): array(a) for i, a in enumerate(case["saved"])})
    _assert_keras_numpy(name, layer(x).numpy(), array(case["output_numpy"]))


def test_block_size_128_over_10_rows_is_one_padded_group():
    layer, case = _quantized("dense_128")
    assert layer.kernel_scale.shape == (1, 7)
    np.testing.assert_array_equal(layer.g_idx.numpy(), np.zeros(10, "float32"))


def test_trainable_weights_are_the_float_ones():
    layer, _ = _quantized("dense_4")
    assert [v.name for v in layer.trainable_weights] == ["bias"]
    assert [v.name for v in layer.non_trainable_weights] == [
        "kernel", "kernel_scale", "kernel_zero", "g_idx"]


@pytest.mark.parametrize("name", ["dense_None", "dense_4", "dense_custom", "einsum_2_3",
                                  "embedding_4", "reversible_untied_4"])
def test_each_backend_computes_keras_outputs(name, backend):
    # On the GPU the float products sum in cuBLAS's order: Keras's JAX outputs within
    # float32 rounding, graph equal to eager.
    layer, case = _quantized(name)
    x = array(case["x"])
    eager = lamina.ops.convert_to_numpy(layer(x))
    np.testing.assert_allclose(eager, array(case["output"]), rtol=2e-6, atol=2e-6)
    graph = lamina.ops.convert_to_numpy(lamina.jit(lambda t: layer(t))(x))
    np.testing.assert_array_equal(graph, eager)


@pytest.mark.parametrize("name", REVERSIBLE)
def test_reversible_embedding_made_from_the_policy_quantizes_its_reverse_inputs(name):
    # Without a config (a policy alone), Keras's int4 ReversibleEmbedding quantizes the
    # hidden vectors of the reverse call per row to int8 (per channel the product is then
    # exact in int32; in groups the table is dequantized first).
    case = KERAS[name]
    layer = layers.ReversibleEmbedding(9, 7, tie_weights="untied" not in name, name="rev",
                                       dtype=case["policy"])
    layer.build()
    assert layer.quantization_config is None
    assert isinstance(layer.inputs_quantizer, quantizers.AbsMaxQuantizer)
    layer.load_own_variables({str(i): array(a) for i, a in enumerate(case["saved"])})
    hidden = array(case["reverse_x"])
    reverse = layer(hidden, reverse=True).numpy()
    np.testing.assert_array_equal(reverse, array(case["policy_reverse_output_numpy"]))
    np.testing.assert_allclose(reverse, array(case["policy_reverse_output"]), rtol=2e-6,
                               atol=2e-6)
    np.testing.assert_array_equal(layer(array(case["x"])).numpy(),
                                  array(case["policy_rows_numpy"]))
    graph = lamina.jit(lambda t: layer(t, reverse=True))(hidden).numpy()
    np.testing.assert_array_equal(graph, reverse)
