"""``model.export(path, format="onnx")``: optimized graph (BatchNorm folded, Dense fused),
dynamic batch, Keras's input/output names, arguments and errors."""
import sys

import numpy as np
import pytest

from tests.export.onnx_helpers import onnx, run, session
import lamina
from lamina import layers, ops
from lamina.export import OnnxExportError, register_onnx_converter
from lamina.export.registry import CONVERTERS


def _mlp():
    model = lamina.Sequential([layers.Input((8,), name="pixels"),
                               layers.Dense(16, activation="relu"), layers.BatchNormalization(),
                               layers.Dense(5, activation="softmax")], name="mlp")
    rng = np.random.default_rng(0)
    bn = model.layers[1]
    bn.set_weights([rng.uniform(0.5, 2, 16).astype("float32"),
                    rng.normal(size=16).astype("float32"),
                    rng.normal(size=16).astype("float32"),
                    rng.uniform(0.5, 2, 16).astype("float32")])
    return model


def _ops(path) -> list:
    return [n.op_type for n in onnx.load(str(path)).graph.node]


def test_mlp_one_file_runs_batches_1_7_128_with_batchnorm_folded(tmp_path):
    model = _mlp()
    path = tmp_path / "mlp.onnx"
    model.export(path, format="onnx")
    onnx.checker.check_model(str(path))
    proto = onnx.load(str(path))
    dims = proto.graph.input[0].type.tensor_type.shape.dim
    assert dims[0].dim_param == "batch" and dims[1].dim_value == 8
    assert proto.graph.input[0].name == "pixels"
    # Dense+bias+relu as one Gemm, BatchNormalization folded into one Mul and one Add of
    # constants: no node reads the moving statistics.
    assert _ops(path) == ["Gemm", "Relu", "Mul", "Add", "Gemm", "Softmax", "Identity"]
    assert len(proto.graph.initializer) == 6
    rng = np.random.default_rng(1)
    for batch in (1, 7, 128):
        x = rng.normal(size=(batch, 8)).astype("float32")
        got, = run(path, x)
        np.testing.assert_allclose(got, model.predict(x, verbose=0), rtol=1e-5, atol=1e-6)


def test_cnn_with_conv_pool_batchnorm_flatten(tmp_path):
    model = lamina.Sequential([
        layers.Input((9, 9, 3)), layers.Conv2D(4, 3, padding="same", activation="relu"),
        layers.BatchNormalization(), layers.MaxPooling2D(2),
        layers.Conv2D(6, 2, strides=2), layers.AveragePooling2D(2, padding="same"),
        layers.Flatten(), layers.Dense(3)])
    path = tmp_path / "cnn.onnx"
    model.export(path, format="onnx")
    assert "Conv" in _ops(path) and "BatchNormalization" not in _ops(path)
    for batch in (1, 7):
        x = np.random.default_rng(batch).normal(size=(batch, 9, 9, 3)).astype("float32")
        got, = run(path, x)
        np.testing.assert_allclose(got, model.predict(x, verbose=0), rtol=1e-5, atol=1e-5)


def test_multi_input_multi_output_keep_keras_names(tmp_path):
    a = layers.Input((4,), name="image_features")
    b = layers.Input((3,), name="meta")
    h = layers.Concatenate()([layers.Dense(5, activation="tanh")(a), b])
    score = layers.Dense(1, activation="sigmoid", name="score")(h)
    aux = layers.Dense(2, name="aux")(layers.Add()([h, h]))
    model = lamina.Model([a, b], [score, aux])
    path = tmp_path / "two.onnx"
    model.export(path, format="onnx")
    s = session(path)
    assert [i.name for i in s.get_inputs()] == ["image_features", "meta"]
    assert [o.name for o in s.get_outputs()] == ["score", "aux"]
    rng = np.random.default_rng(2)
    xa, xb = rng.normal(size=(7, 4)).astype("float32"), rng.normal(size=(7, 3)).astype("float32")
    got = run(path, names={"meta": xb, "image_features": xa})
    want = model.predict([xa, xb], verbose=0)
    for g, w in zip(got, want):
        np.testing.assert_allclose(g, w, rtol=1e-5, atol=1e-6)


def test_dict_inputs_and_a_layer_with_two_outputs_get_distinct_names(tmp_path):
    x = layers.Input((6,), name="x")
    seq, h, c = layers.LSTM(3, return_sequences=True, return_state=True, name="enc")(
        layers.Reshape((2, 3))(x))
    model = lamina.Model({"x": x}, [seq, h, c])
    path = tmp_path / "d.onnx"
    model.export(path, format="onnx")
    assert [o.name for o in session(path).get_outputs()] == ["enc", "enc_1", "enc_2"]
    data = np.random.default_rng(3).normal(size=(4, 6)).astype("float32")
    for g, w in zip(run(path, data), model.predict({"x": data}, verbose=0)):
        np.testing.assert_allclose(g, w, rtol=1e-5, atol=1e-6)


def test_input_signature_for_a_subclassed_model(tmp_path):
    class Net(lamina.Model):
        def __init__(self):
            super().__init__()
            self.dense = layers.Dense(3)

        def call(self, x):
            return ops.relu(self.dense(x))

    net = Net()
    with pytest.raises(ValueError, match="the model is not built"):
        net.export(tmp_path / "n.onnx", format="onnx",
                   input_signature=[lamina.InputSpec(shape=(None, 4), dtype="float32")])
    x = np.random.default_rng(4).normal(size=(5, 4)).astype("float32")
    net(x)
    with pytest.raises(ValueError, match="pass 'input_signature'"):
        net.export(tmp_path / "n.onnx", format="onnx")
    net.export(tmp_path / "n.onnx", format="onnx",
               input_signature=[lamina.InputSpec(shape=(None, 4), dtype="float32")])
    assert [i.name for i in session(tmp_path / "n.onnx").get_inputs()] == ["input_0"]
    np.testing.assert_allclose(run(tmp_path / "n.onnx", x)[0], net.predict(x, verbose=0),
                               rtol=1e-5, atol=1e-6)
    with pytest.raises(TypeError, match="must have a shape and a dtype"):
        net.export(tmp_path / "m.onnx", format="onnx", input_signature=[4])


def test_opset_version_and_verbose(tmp_path, capsys):
    model = _mlp()
    model.export(tmp_path / "o.onnx", format="onnx", opset_version=14)   # Keras: verbose
    assert onnx.load(str(tmp_path / "o.onnx")).opset_import[0].version == 14
    assert "Saved ONNX model" in capsys.readouterr().out
    model.export(tmp_path / "q.onnx", format="onnx", verbose=False)
    assert capsys.readouterr().out == ""
    x = np.ones((2, 8), "float32")
    np.testing.assert_allclose(run(tmp_path / "o.onnx", x)[0], model.predict(x, verbose=0),
                               rtol=1e-5, atol=1e-6)
    for bad in (13, "17", 10 ** 3):
        with pytest.raises(ValueError, match="'opset_version' must be an int from 14"):
            model.export(tmp_path / "p.onnx", format="onnx", opset_version=bad)


def test_format_and_keyword_errors(tmp_path):
    model = _mlp()
    with pytest.raises(ValueError, match=r"cannot write format='tf_saved_model' \(it needs "
                                         r"TensorFlow\)\. Use format='lamina' or 'onnx'"):
        model.export(tmp_path / "m", format="tf_saved_model")
    with pytest.raises(TypeError, match=r"format='onnx'\): unexpected argument\(s\) \['x'\]"):
        model.export(tmp_path / "m.onnx", format="onnx", x=np.ones((1, 8)))
    with pytest.raises(TypeError, match=r"format='lamina'\): unexpected argument\(s\) "
                                        r"\['opset_version'\]"):
        model.export(tmp_path / "m.h5", opset_version=17)
    with pytest.raises(TypeError, match=r"\['input_signature'\]"):
        model.export(tmp_path / "m.h5", input_signature=[np.ones((1, 8))])


def test_lamina_format_is_still_the_default(tmp_path, capsys):
    model = _mlp()
    model.export(tmp_path / "m.h5", verbose=True)
    assert "Saved the inference graph" in capsys.readouterr().out
    x = np.ones((3, 8), "float32")
    np.testing.assert_allclose(lamina.graph.load_exported(tmp_path / "m.h5")(x),
                               model.predict(x, verbose=0), rtol=1e-6)


def test_missing_onnx_names_the_extra(tmp_path, monkeypatch):
    monkeypatch.setitem(sys.modules, "onnx", None)
    with pytest.raises(ImportError, match=r"pip install lamina\[onnx\]"):
        _mlp().export(tmp_path / "m.onnx", format="onnx")


def test_an_op_without_converter_names_op_and_layer(tmp_path):
    x = layers.Input((4,))
    model = lamina.Model(x, layers.Lambda(lambda t: ops.cumprod(t, axis=1), name="running")(x))
    with pytest.raises(OnnxExportError, match="op 'cumprod' in layer '.*running' has no ONNX "
                                              "converter"):
        model.export(tmp_path / "c.onnx", format="onnx")
    assert not (tmp_path / "c.onnx").exists()


def test_registering_a_converter(tmp_path):
    x = layers.Input((4,))
    model = lamina.Model(x, layers.Lambda(lambda t: ops.cumprod(t, axis=1))(x))

    @register_onnx_converter("cumprod")
    def _cumprod(ctx, node):                   # positive inputs: exp(cumsum(log(x)))
        axis = ctx.constant(np.asarray(node.attrs["axis"], "int64"), "axis")
        logs = ctx.add_node("Log", [ctx.name_of(node.inputs[0])])
        return [ctx.add_node("Exp", [ctx.add_node("CumSum", [logs, axis])])]
    try:
        model.export(tmp_path / "c.onnx", format="onnx")
        data = np.arange(1, 9, dtype="float32").reshape(2, 4)
        np.testing.assert_allclose(run(tmp_path / "c.onnx", data)[0],
                                   np.cumprod(data, axis=1), rtol=1e-5)
        with pytest.raises(ValueError, match="op 'cumprod' already has a converter"):
            register_onnx_converter("cumprod")(lambda ctx, node: [])
        register_onnx_converter("cumprod", replace=True)(lambda ctx, node: [])
        with pytest.raises(OnnxExportError, match="the converter of 'cumprod' gave 0 outputs"):
            model.export(tmp_path / "d.onnx", format="onnx")
    finally:
        CONVERTERS.pop("cumprod", None)
    with pytest.raises(TypeError, match="expected one or more op names"):
        register_onnx_converter()


def test_a_stateful_rnn_is_refused(tmp_path):
    model = lamina.Sequential([layers.Input((3, 2), batch_size=2), layers.LSTM(2, stateful=True)])
    with pytest.raises(OnnxExportError, match="layer 'lstm.*' is stateful; ONNX models keep no "
                                              "state"):
        model.export(tmp_path / "s.onnx", format="onnx")


def test_a_converter_that_cannot_express_an_attribute_names_op_and_layer(tmp_path):
    x = layers.Input((4,))
    clipped = layers.Lambda(lambda t: ops.clip(t, ops.min(t), 1.0), name="clipper")(x)
    with pytest.raises(OnnxExportError, match=r"op 'clip' \(layer '.*clipper'\) has no ONNX "
                                              r"form: clip bounds that are not constants"):
        lamina.Model(x, clipped).export(tmp_path / "c.onnx", format="onnx")


def test_a_model_that_needs_a_concrete_batch_while_tracing(tmp_path):
    class Flat(lamina.Model):
        def call(self, x):
            return ops.reshape(x, (int(x.shape[0]) * 4,))

    model = Flat()
    model(np.ones((2, 4), "float32"))
    with pytest.raises(OnnxExportError, match=r"tracing the model for inputs \[\(None, 4\)\] "
                                              r"\(None: dynamic\) failed: TypeError"):
        model.export(tmp_path / "t.onnx", format="onnx",
                     input_signature=[lamina.InputSpec(shape=(None, 4))])


def test_an_inference_call_that_writes_variables_is_refused(tmp_path):
    class Counter(layers.Layer):
        def build(self, input_shape):
            self.calls = self.add_weight(shape=(), initializer="zeros", trainable=False,
                                         name="calls")

        def call(self, x):
            self.calls.assign_add(1.0)
            return x

    x = layers.Input((3,))
    model = lamina.Model(x, Counter()(x))
    with pytest.raises(OnnxExportError, match=r"the inference call writes variables "
                                              r"\(.*calls\); only stateless models"):
        model.export(tmp_path / "w.onnx", format="onnx")


def test_an_input_returned_as_an_output_gets_a_distinct_name(tmp_path):
    x = layers.Input((4,), name="x")
    model = lamina.Model(x, [x, layers.Dense(3, name="head")(x)])
    model.export(tmp_path / "i.onnx", format="onnx")
    s = session(tmp_path / "i.onnx")
    assert [i.name for i in s.get_inputs()] == ["x"]
    names = [o.name for o in s.get_outputs()]
    assert names[1] == "head" and names[0] != "x" and names[0].startswith("x")
    data = np.arange(8, dtype="float32").reshape(2, 4)
    np.testing.assert_array_equal(run(tmp_path / "i.onnx", data)[0], data)


def test_a_batch_size_fixed_in_input_signature_is_kept(tmp_path):
    model = _mlp()
    model.export(tmp_path / "f.onnx", format="onnx",
                 input_signature=[lamina.InputSpec(shape=(4, 8), dtype="float32")])
    assert session(tmp_path / "f.onnx").get_inputs()[0].shape == [4, 8]
    model.export(tmp_path / "g.onnx", format="onnx",
                 input_signature=[lamina.InputSpec(shape=(None, 8), dtype="float32",
                                                   name="features")])
    s = session(tmp_path / "g.onnx")
    assert s.get_inputs()[0].shape == ["batch", 8] and s.get_inputs()[0].name == "features"


@pytest.mark.parametrize("opset", [14, 18, 21])
def test_reductions_and_softmax_across_opsets(opset, tmp_path):
    """ReduceMax/Mean take their axes as an attribute before opset 18, an input after."""
    x = layers.Input((5, 6))
    y = layers.LayerNormalization()(layers.MultiHeadAttention(2, 3)(x, x))
    y = layers.Concatenate()([layers.GlobalMaxPooling1D()(y), layers.GlobalAveragePooling1D()(y)])
    y = layers.Reshape((3, 4))(y)
    model = lamina.Model(x, layers.Softmax(axis=(1, 2))(y))
    path = tmp_path / "r.onnx"
    model.export(path, format="onnx", opset_version=opset)
    onnx.checker.check_model(str(path))
    assert onnx.load(str(path)).opset_import[0].version == opset
    data = np.random.default_rng(opset).normal(size=(3, 5, 6)).astype("float32")
    np.testing.assert_allclose(run(path, data)[0], model.predict(data, verbose=0),
                               rtol=1e-5, atol=1e-6)


def test_a_converter_writing_an_invalid_graph_is_reported(tmp_path):
    x = layers.Input((4,))
    model = lamina.Model(x, layers.Lambda(lambda t: ops.cumprod(t, axis=1))(x))
    register_onnx_converter("cumprod")(
        lambda ctx, node: [ctx.add_node("NoSuchOnnxOp", [ctx.name_of(node.inputs[0])])])
    try:
        with pytest.raises(OnnxExportError, match="does not pass onnx.checker.*NoSuchOnnxOp"):
            model.export(tmp_path / "bad.onnx", format="onnx")
    finally:
        CONVERTERS.pop("cumprod", None)
    assert not (tmp_path / "bad.onnx").exists()


def test_a_failure_while_folding_constants_names_the_op(tmp_path, monkeypatch):
    from lamina.ops.math import Rsqrt
    model = _mlp()                           # built first: building runs rsqrt eagerly

    def broken(self, backend, *arrays, **attrs):
        raise FloatingPointError("overflow")
    monkeypatch.setattr(Rsqrt, "forward", broken)
    with pytest.raises(OnnxExportError, match=r"op 'rsqrt' \(layer '.*batch_normalization"
                                              r"[_0-9]*'\) has no ONNX form: evaluating it on "
                                              r"constants failed \(FloatingPointError: "
                                              r"overflow\)"):
        model.export(tmp_path / "f.onnx", format="onnx")
