"""keras.quantizers (lamina/quantizers/): the functions against Keras 3.15.1's numbers,
the quantizer and config classes, serialization, and the errors."""
import numpy as np
import pytest

from lamina import quantizers
from lamina.quantizers.quantization_config import layer_quantization_config
from tests.quantizers.fixtures import KERAS, array

X = array(KERAS["abs_max"]["x"])


def test_abs_max_quantize_matches_keras(backend):
    q, scale = quantizers.abs_max_quantize(X, axis=-1)
    assert q.dtype == "int8" and scale.dtype == "float32"
    np.testing.assert_array_equal(q.numpy(), array(KERAS["abs_max"]["q"]))
    np.testing.assert_array_equal(scale.numpy(), array(KERAS["abs_max"]["scale"]))
    # Row 1 is all zeros: the epsilon keeps the scale finite and the values 0.
    assert (q.numpy()[1] == 0).all() and scale.numpy()[1, 0] == np.float32(127 / 1e-7)


def test_abs_max_quantize_on_host_and_quantizer(backend):
    q, scale = quantizers.abs_max_quantize(X, axis=0, to_numpy=True)
    np.testing.assert_array_equal(q.numpy(), array(KERAS["abs_max_axis0_numpy"]["q"]))
    np.testing.assert_array_equal(scale.numpy(), array(KERAS["abs_max_axis0_numpy"]["scale"]))
    q2, _ = quantizers.AbsMaxQuantizer(axis=0)(X)
    np.testing.assert_array_equal(q2.numpy(), q.numpy())
    q3, s3 = quantizers.AbsMaxQuantizer()(X)                 # default axis -1
    np.testing.assert_array_equal(s3.numpy(), array(KERAS["abs_max"]["scale"]))


def test_grouped_with_zero_point_matches_keras(backend):
    g = KERAS["grouped"]
    q, scale, zero = quantizers.abs_max_quantize_grouped_with_zero_point(array(g["x"]), 4)
    assert scale.shape == (3, 3) and zero.dtype == "int8"
    np.testing.assert_array_equal(q.numpy(), array(g["q"]))
    np.testing.assert_array_equal(scale.numpy(), array(g["scale"]))
    np.testing.assert_array_equal(zero.numpy(), array(g["zero"]))


def test_fake_quant_matches_keras(backend):
    got = quantizers.fake_quant_with_min_max_vars(X, -1.0, 1.5, num_bits=8)
    np.testing.assert_array_equal(got.numpy(), array(KERAS["fake_quant"]))
    low = np.linspace(-1, -0.2, 7).astype("float32")
    high = np.linspace(0.5, 2, 7).astype("float32")
    got = quantizers.fake_quant_with_min_max_vars(X, low, high, num_bits=4, narrow_range=True,
                                                  axis=-1)
    # XLA folds the division by the per-channel scale into a multiplication: 1 ulp apart.
    np.testing.assert_allclose(got.numpy(), array(KERAS["fake_quant_axis"]), rtol=0,
                               atol=2.5e-7)


def test_fake_quant_gradients(backend):
    from lamina import GradientTape, ops
    x = ops.convert_to_tensor(np.array([-2.0, -0.5, 0.25, 3.0], np.float32))
    low = ops.convert_to_tensor(np.float32(-1.0))
    high = ops.convert_to_tensor(np.float32(1.0))
    with GradientTape() as tape:
        tape.watch([x, low, high])
        y = ops.sum(quantizers.fake_quant_with_min_max_vars(x, low, high))
    gx, glow, ghigh = tape.gradient(y, [x, low, high])
    assert gx.numpy().tolist() == [0.0, 1.0, 1.0, 0.0]
    assert float(glow.numpy()) == 1.0 and float(ghigh.numpy()) == 1.0


def test_float8_helpers_match_keras(backend):
    got = quantizers.quantize_and_dequantize(X, np.float32(0.05), "float8_e4m3fn", "float32")
    np.testing.assert_array_equal(got.numpy(), array(KERAS["qdq"]))
    with np.errstate(divide="ignore"):
        scale = quantizers.compute_float8_scale(np.array([2.0, 0.0, np.inf], "float32"),
                                                np.array([0.5, 0.25, 2.0], "float32"), 448.0, 1)
    np.testing.assert_array_equal(scale.numpy(), array(KERAS["float8_scale"]))
    history = quantizers.compute_float8_amax_history(X, np.array([1.0, 2, 3, 4], "float32"))
    np.testing.assert_array_equal(history.numpy(), array(KERAS["amax_history"]))


def test_float8_grid_is_the_cast():
    ml_dtypes = pytest.importorskip("ml_dtypes")
    values = np.concatenate([np.linspace(-500, 500, 2001), np.geomspace(1e-4, 448, 500),
                             [0.0, 2 ** -9, 3 * 2 ** -10, 1.0625, 1.1875]]).astype(np.float32)
    for name in ("float8_e4m3fn", "float8_e5m2"):
        got = quantizers.quantize_and_dequantize(values, np.float32(1.0), name, "float32")
        largest = float(ml_dtypes.finfo(name).max)
        want = np.clip(values, -largest, largest).astype(name).astype(np.float32)
        np.testing.assert_array_equal(got.numpy(), want)


def test_pack_and_unpack_int4_match_keras(backend):
    values = np.array([[-3, 7, 2], [-8, 1, 0], [5, -1, 4]], "int8")
    packed, shape, length = quantizers.pack_int4(values, axis=1)
    assert shape == tuple(KERAS["pack_int4"]["shape"]) and length == KERAS["pack_int4"]["n"]
    np.testing.assert_array_equal(packed.numpy(), array(KERAS["pack_int4"]["packed"]))
    np.testing.assert_array_equal(quantizers.unpack_int4(packed, length, axis=1).numpy(), values)
    packed0, _, n0 = quantizers.pack_int4(values, axis=0)
    np.testing.assert_array_equal(quantizers.unpack_int4(packed0, n0).numpy(), values)
    # Keras's docstring example.
    p, _, _ = quantizers.pack_int4(np.array([[-3, 7], [2, -8], [1, 0]], "int8"))
    assert p.numpy().tolist() == [[45, -121], [1, 0]]


def test_configs_and_serialization():
    config = quantizers.Int8QuantizationConfig()
    assert config.mode == "int8"
    assert isinstance(config.activation_quantizer, quantizers.AbsMaxQuantizer)
    assert quantizers.serialize(config) == KERAS["int8_config"]
    back = quantizers.deserialize(KERAS["int8_config"])
    assert isinstance(back, quantizers.Int8QuantizationConfig)
    assert tuple(back.activation_quantizer.value_range) == (-127, 127)
    assert back.activation_quantizer.epsilon == 1e-07
    assert quantizers.Int8QuantizationConfig(activation_quantizer=None).activation_quantizer \
        is None
    want = KERAS["abs_max_quantizer_config"]
    got = quantizers.AbsMaxQuantizer(axis=0).get_config()
    assert {**got, "value_range": list(got["value_range"]), "axis": list(got["axis"])} == want
    assert isinstance(quantizers.get("AbsMaxQuantizer", axis=1), quantizers.AbsMaxQuantizer)
    assert quantizers.get("abs_max_quantizer").axis is None
    assert quantizers.get(None) is None
    q = quantizers.Quantizer()
    assert q.output_dtype == "int8" and q(3) == 3


def test_errors():
    with pytest.raises(ValueError, match=r"Quantizer with output_dtype='int8' requires "
                                         r"value_range to be within the interval \[-128, 127\]"):
        quantizers.AbsMaxQuantizer(value_range=(-255, 255))
    with pytest.raises(NotImplementedError, match="does not implement get_config"):
        quantizers.Quantizer().get_config()
    with pytest.raises(NotImplementedError, match="Subclasses must implement this property"):
        quantizers.QuantizationConfig().mode
    with pytest.raises(ValueError, match="Int8QuantizationConfig requires a weight_quantizer "
                                         "with output_dtype='int8'. Received: "
                                         "output_dtype=int16"):
        quantizers.Int8QuantizationConfig(
            weight_quantizer=quantizers.AbsMaxQuantizer(output_dtype="int16"))
    with pytest.raises(ValueError, match="Could not interpret quantizer identifier: nope"):
        quantizers.get("nope")
    with pytest.raises(ValueError, match="Expected dtype to be 'int8' or 'uint8', but got "
                                         "'int16'"):
        quantizers.pack_int4(np.zeros((2, 2), "int8"), dtype="int16")
    with pytest.raises(TypeError, match="Expected int8 tensor for packing, got int32"):
        quantizers.pack_int4(np.zeros((2, 2), "int32"))
    with pytest.raises(TypeError, match="Expected int8 or uint8 tensor for unpacking, got "
                                        "float32"):
        quantizers.unpack_int4(np.zeros((2, 2), "float32"), 4)
    with pytest.raises(ValueError, match="quantize_and_dequantize: argument 'quantized_dtype' "
                                         "must be one of"):
        quantizers.quantize_and_dequantize(X, 1.0, "int8", "float32")
    with pytest.raises(ValueError, match=r"argument 'inputs' must be 2-D \(input_dim, "
                                         r"output_dim\); received shape \(3,\)"):
        quantizers.abs_max_quantize_grouped_with_zero_point(np.zeros(3, "float32"), 2)
    with pytest.raises(ValueError, match="argument 'block_size' must be a positive int; "
                                         "received 0"):
        quantizers.abs_max_quantize_grouped_with_zero_point(np.zeros((3, 2), "float32"), 0)
    with pytest.raises(ValueError, match="argument 'quantization_config' must be a "
                                         "QuantizationConfig"):
        layer_quantization_config("dense", "int8")
