"""int8 Dense, EinsumDense and Embedding (lamina/layers/core/int8_*.py): Keras 3.15.1's
variables, policy, config and outputs to the bit; graph == eager; the inputs' gradient;
Layer.quantize's errors as Keras raises them."""
import numpy as np
import pytest

import lamina
from lamina import GradientTape, layers, ops, quantizers
from lamina.dtype_policies import QuantizedDTypePolicy
from lamina.dtype_policies.dtype_policy import reset_dtype_policy
from tests.quantizers.fixtures import KERAS, array


def _quantized(layer, case, build_shape):
    layer.build(build_shape)
    layer.set_weights([array(w) for w in case["float_weights"]])
    layer.quantize("int8")
    return layer


def _check_like_keras(layer, case, atol=0.0):
    assert layer.dtype_policy.name == case["policy"] == "int8_from_float32"
    assert layer.quantization_mode == "int8"
    for variable, want in zip(layer.weights, case["weights"]):
        assert (variable.path, variable.dtype, list(variable.shape)) == (
            want["path"], want["dtype"], want["shape"])
        np.testing.assert_array_equal(variable.numpy(), array(want))
    assert not any(v.trainable for v in layer.weights if v.dtype == "int8")
    x = array(case["x"])
    eager = layer(x).numpy()
    np.testing.assert_allclose(eager, array(case["output"]), rtol=0, atol=atol)
    np.testing.assert_array_equal(lamina.jit(lambda t: layer(t))(x).numpy(), eager)
    config = layer.get_config()
    assert config["dtype"] == case["config"]["dtype"]
    assert config["quantization_config"] == case["config"]["quantization_config"]


def test_dense_matches_keras_exactly(backend):
    case = KERAS["dense"]
    layer = _quantized(layers.Dense(6, activation="relu", name="dense"), case, (None, 12))
    _check_like_keras(layer, case)
    assert [v.path for v in layer._saved_variables()] == [
        "dense/kernel", "dense/bias", "dense/kernel_scale"]


@pytest.mark.parametrize("spec", KERAS["einsum_cases"], ids=lambda s: s["equation"])
def test_einsum_dense_matches_keras_exactly(spec, backend):
    case = KERAS[spec["name"]]
    layer = layers.EinsumDense(spec["equation"], output_shape=tuple(spec["output_shape"]),
                               bias_axes=spec["bias_axes"], name=spec["name"])
    _check_like_keras(_quantized(layer, case, array(case["x"]).shape), case)


def test_einsum_dense_with_ellipsis():
    # Keras 3.15.1 cannot quantize '...' equations (a TypeError); Lamina spells the
    # ellipsis out and quantizes over the contracted axis.
    assert KERAS["einsum_4_error"] == "object of type 'int' has no len()"
    rng = np.random.default_rng(3)
    x = rng.normal(size=(2, 3, 8)).astype("float32")
    layer = layers.EinsumDense("...b,bc->...c", output_shape=6, bias_axes="c")
    layer.build(x.shape)
    kernel = layer.kernel.numpy()
    layer.quantize("int8")
    # The layout of 'abc,bd->abd' (Keras's for the spelled-out equation).
    assert layer.kernel_scale.shape == (1, 1, 6)
    scale = 127 / (np.abs(kernel).max(axis=0, keepdims=True) + np.float32(1e-7))[None]
    np.testing.assert_array_equal(layer.kernel_scale.numpy(), scale)
    xs = 127 / (np.abs(x).max(axis=-1, keepdims=True) + np.float32(1e-7))
    xq = np.clip(np.round(x * xs), -127, 127)
    want = (xq @ layer.kernel.numpy().astype(np.float32)) / (xs * scale)
    np.testing.assert_allclose(layer(x).numpy(), want, rtol=1e-6)


def test_embedding_matches_keras(backend):
    case = KERAS["embedding"]
    layer = layers.Embedding(9, 5, name="embedding")
    layer.build()
    layer.set_weights([array(w) for w in case["float_weights"]])
    layer.quantize("int8")
    # Keras's formula is rows / scale; under JAX, XLA turns the division by a broadcast
    # scale into a multiplication by its reciprocal, 1 ulp away (Keras's numpy backend
    # divides, and gives Lamina's numbers exactly).
    _check_like_keras(layer, case, atol=2.5e-7)
    ids = array(case["x"])
    table, scale = (array(w) for w in case["weights"])
    np.testing.assert_array_equal(layer(ids).numpy(),
                                  table[ids].astype(np.float32) / scale[ids][..., None])


def test_inputs_gradient_goes_through_the_dequantized_kernel(backend):
    case = KERAS["dense"]
    layer = _quantized(layers.Dense(6, name="dense"), case, (None, 12))
    x = ops.convert_to_tensor(array(case["x"]))
    with GradientTape() as tape:
        tape.watch(x)
        y = ops.sum(ops.multiply(layer(x), np.arange(6, dtype=np.float32)))
    grad = tape.gradient(y, x).numpy()
    kernel = layer.kernel.numpy().astype(np.float32) / layer.kernel_scale.numpy()
    want = np.tile(np.arange(6, dtype=np.float32), (5, 1)) @ kernel.T
    np.testing.assert_allclose(grad, want, rtol=1e-6)


def test_weight_only_config_dequantizes_the_kernel(backend):
    case = KERAS["dense"]
    layer = layers.Dense(6, name="dense")
    layer.build((None, 12))
    layer.set_weights([array(w) for w in case["float_weights"]])
    layer.quantize(config=quantizers.Int8QuantizationConfig(activation_quantizer=None))
    x = array(case["x"])
    kernel = layer.kernel.numpy().astype(np.float32)
    want = (x @ kernel) / layer.kernel_scale.numpy() + layer.bias.numpy()
    np.testing.assert_allclose(layer(x).numpy(), want, rtol=1e-6)


def test_built_from_a_quantized_policy():
    layer = layers.Dense(3, dtype="int8_from_float32")
    layer.build((None, 4))
    assert [(v.name, v.dtype, v.shape) for v in layer.weights] == [
        ("bias", "float32", (3,)), ("kernel", "int8", (4, 3)),
        ("kernel_scale", "float32", (3,))]
    assert isinstance(layer.dtype_policy, QuantizedDTypePolicy)
    clone = layers.Dense.from_config(layer.get_config())
    assert clone.dtype_policy == layer.dtype_policy


@pytest.mark.parametrize("label", ["unbuilt", "bad_mode", "twice", "conv", "no_mode"])
def test_errors_as_keras(label):
    kind, message = KERAS["errors"][label]

    def built_dense():
        d = layers.Dense(3, name="dense_2")
        d.build((None, 4))
        return d
    actions = {
        "unbuilt": lambda: layers.Dense(3, name="dense").quantize("int8"),
        "bad_mode": lambda: built_dense().quantize("int7"),
        "twice": lambda: [d.quantize("int8") for d in [built_dense()] * 2],
        "conv": lambda: _built(layers.Conv2D(2, 3), (None, 5, 5, 1)).quantize("int8"),
        "no_mode": lambda: built_dense().quantize(),
    }
    error = {"ValueError": ValueError, "NotImplementedError": NotImplementedError}[kind]
    with pytest.raises(error) as info:
        actions[label]()
    assert str(info.value) == message


def _built(layer, shape):
    layer.build(shape)
    return layer


def test_policy_errors_as_keras():
    for label in ("policy_bad", "policy_f16"):
        kind, message = KERAS["errors"][label]
        with pytest.raises(ValueError) as info:
            QuantizedDTypePolicy(*{"policy_bad": ("int7", "float32"),
                                   "policy_f16": ("int8", "float16")}[label])
        assert str(info.value) == message


def test_lamina_errors():
    dense = _built(layers.Dense(3), (None, 4))
    with pytest.raises(ValueError, match="For AWQ, you must pass an `AWQConfig` object"):
        dense.quantize("awq")
    with pytest.raises(ValueError, match="Contradictory arguments: mode='int4' but "
                                         "config.mode='int8'"):
        dense.quantize("int4", config=quantizers.Int8QuantizationConfig())
    with pytest.raises(ValueError, match="Argument `config` must be an instance of "
                                         "`QuantizationConfig`"):
        dense.quantize(config=3)
    with pytest.raises(ValueError, match="Cannot convert `policy` into a valid pair"):
        lamina.dtype_policies.get("int8_float32")
    half = _built(layers.Dense(3, dtype="float16"), (None, 4))
    with pytest.raises(ValueError, match="Quantization mode='int8' doesn't work well with "
                                         "compute_dtype='float16'. Consider"):
        half.quantize("int8")


def test_subclasses_need_type_check_false():
    class MyDense(layers.Dense):
        pass
    layer = _built(MyDense(3), (None, 4))
    with pytest.raises(NotImplementedError, match="Layer MyDense does not have a `quantize` "
                                                  "method implemented."):
        layer.quantize("int8")
    layer.quantize("int8", type_check=False)
    assert layer.kernel.dtype == "int8"


def test_assigning_a_quantized_policy_quantizes(backend):
    case = KERAS["dense"]
    layer = layers.Dense(6, activation="relu", name="dense")
    layer.build((None, 12))
    layer.set_weights([array(w) for w in case["float_weights"]])
    layer.dtype_policy = "int8_from_float32"
    np.testing.assert_array_equal(layer.kernel.numpy(), array(case["weights"][1]))
    np.testing.assert_array_equal(layer(array(case["x"])).numpy(), array(case["output"]))
    with pytest.raises(ValueError, match="Layer 'dense' is already quantized"):
        layer.quantize("int8")


def test_einsum_index_summed_in_one_operand_stays_exact(backend):
    # 'abc,cd->ad' sums b over the inputs alone: those sums leave the int8 range, so the
    # contraction runs in int32; the result is Keras's formula on the quantized values.
    rng = np.random.default_rng(4)
    x = rng.normal(size=(2, 3, 4)).astype("float32")
    layer = layers.EinsumDense("abc,cd->ad", output_shape=(5,))
    layer.build(x.shape)
    layer.quantize("int8")
    xs = 127 / (np.abs(x).max(axis=(1, 2), keepdims=True) + np.float32(1e-7))
    xq = np.clip(np.round(x * xs), -127, 127).astype(np.int64)
    products = np.einsum("abc,cd->ad", xq, layer.kernel.numpy().astype(np.int64))
    want = products.astype(np.float32) / (xs[:, :, 0] * layer.kernel_scale.numpy())
    np.testing.assert_array_equal(layer(x).numpy(), want)


@pytest.mark.parametrize("tie", [True, False], ids=["tied", "untied"])
def test_reversible_embedding_matches_keras(tie, backend):
    case = KERAS["reversible_tied" if tie else "reversible_untied"]
    ids = array(KERAS["reversible_inputs"]["ids"])
    hidden = array(KERAS["reversible_inputs"]["hidden"])
    layer = layers.ReversibleEmbedding(7, 4, tie_weights=tie, name="rev")
    layer.build()
    layer.set_weights([array(w) for w in case["float_weights"]])
    layer.quantize("int8")
    for variable, want in zip(layer.weights, case["weights"]):
        assert (variable.path, variable.dtype, list(variable.shape)) == (
            want["path"], want["dtype"], want["shape"])
        np.testing.assert_array_equal(variable.numpy(), array(want))
    assert [v.name for v in layer._saved_variables()] == [w["path"][4:] for w in case["weights"]]
    logits = layer(hidden, reverse=True).numpy()
    np.testing.assert_array_equal(logits, array(case["logits"]))
    np.testing.assert_allclose(layer(ids).numpy(), array(case["rows"]), rtol=0, atol=2.5e-7)
    np.testing.assert_array_equal(
        lamina.jit(lambda t: layer(t, reverse=True))(hidden).numpy(), logits)
    clone = layers.ReversibleEmbedding.from_config(layer.get_config())
    clone.build()
    clone.set_weights(layer.get_weights())
    np.testing.assert_array_equal(clone(hidden, reverse=True).numpy(), logits)


def test_global_quantized_policy():
    lamina.config.set_dtype_policy("int8_from_float32")
    try:
        assert isinstance(lamina.config.dtype_policy(), QuantizedDTypePolicy)
        layer = _built(layers.Dense(3), (None, 4))
        assert layer.dtype_policy.name == "int8_from_float32" and layer.kernel.dtype == "int8"
    finally:
        reset_dtype_policy()                 # back to following floatx()
    assert lamina.config.dtype_policy().name == "float32"
