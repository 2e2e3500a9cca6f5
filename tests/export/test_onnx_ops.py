"""Op converters reached through ``keras.ops`` calls in Lambda layers (ops no layer of the
harness uses), against Lamina's predict."""
import numpy as np
import pytest

from tests.export.onnx_helpers import run
import lamina
from lamina import layers, ops
from lamina.export import OnnxExportError

UNARY = {
    "cumsum": lambda t: ops.cumsum(t, axis=1),
    "cumsum_last": lambda t: ops.cumsum(t, axis=-1),
    "exp2": ops.exp2,
    "erfc": ops.erfc,
    "isfinite": lambda t: ops.cast(ops.isfinite(ops.log(t)), "float32"),
    "trunc": ops.trunc,
    "hypot": lambda t: ops.hypot(t, 2.0 * t + 1.0),
    "logaddexp": lambda t: ops.logaddexp(t, 30.0 * t),
    "mod": lambda t: ops.mod(t, 0.7),
    "fmod": lambda t: ops.fmod(t, 0.7),
    "floor_divide": lambda t: ops.floor_divide(t, 0.3),
    "int_mod_and_floor_divide": lambda t: ops.cast(ops.add(
        ops.mod(ops.cast(t * 10, "int32"), 3), ops.floor_divide(ops.cast(t * 10, "int32"), -4)),
        "float32"),
    "take_along_axis": lambda t: ops.take_along_axis(
        t, ops.cast(ops.argmax(t, axis=1, keepdims=True), "int32"), axis=1),
}


@pytest.mark.filterwarnings("ignore:invalid value encountered in log")   # isfinite's NaNs
@pytest.mark.parametrize("name", sorted(UNARY))
def test_op_in_a_lambda_layer(name, tmp_path):
    x = layers.Input((6,))
    model = lamina.Model(x, layers.Lambda(UNARY[name])(x))
    path = tmp_path / "op.onnx"
    model.export(path, format="onnx")
    data = np.random.default_rng(0).normal(size=(5, 6)).astype("float32") * 2
    got, = run(path, data)
    np.testing.assert_allclose(got, model.predict(data, verbose=0), rtol=1e-5, atol=1e-5)


def test_a_broadcast_to_unknown_sizes_is_refused(tmp_path):
    x = layers.Input((6, 3))
    y = layers.Lambda(lambda t: ops.take_along_axis(
        t, ops.cast(ops.argmax(t[:, :, :1], axis=1, keepdims=True), "int32"), axis=1))(x)
    with pytest.raises(OnnxExportError, match=r"op 'broadcast_to' \(layer .*\) has no ONNX "
                                              r"form: broadcast to \(None, 1, 3\) with "
                                              r"unknown sizes"):
        lamina.Model(x, y).export(tmp_path / "t.onnx", format="onnx")
