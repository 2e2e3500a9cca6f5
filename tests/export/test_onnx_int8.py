"""int8 models in ONNX (lamina/export/converters/quantized.py): ``model.quantize("int8")``
exports with ``MatMulInteger`` (int8 kernels, uint8-shifted rows, int32 sums), and
onnxruntime's outputs are Lamina's predict to the bit, at any batch size."""
import warnings

import numpy as np

from tests.export.onnx_helpers import onnx, run
import lamina
from lamina import layers
from tests.quantizers.fixtures import KERAS, array, path as fixture_path


def _quantized(model, seed=0):
    rng = np.random.default_rng(seed)
    for v in model.weights:
        v.assign(rng.normal(size=v.shape, scale=0.5).astype("float32"))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        model.quantize("int8")
    return model


def _export(model, tmp_path):
    target = tmp_path / "int8.onnx"
    model.export(target, format="onnx")
    onnx.checker.check_model(str(target))
    return target


def _op_types(target):
    return [n.op_type for n in onnx.load(str(target)).graph.node]


def test_quantized_mlp_runs_in_int8_and_equals_predict(tmp_path):
    model = _quantized(lamina.Sequential([layers.Input((20,)),
                                          layers.Dense(16, activation="relu"),
                                          layers.Dense(3)]))
    target = _export(model, tmp_path)
    assert _op_types(target).count("MatMulInteger") == 2
    assert "MatMul" not in _op_types(target) and "Gemm" not in _op_types(target)
    kernels = [i for i in onnx.load(str(target)).graph.initializer if i.data_type == 3]
    assert len(kernels) == 2                       # the int8 kernels stay int8 in the file
    rng = np.random.default_rng(1)
    for batch in (1, 7, 128):
        x = rng.normal(size=(batch, 20)).astype("float32")
        np.testing.assert_array_equal(run(target, x)[0], model.predict(x, verbose=0))


def test_quantized_einsum_and_embedding_equal_predict(tmp_path):
    ids = layers.Input((5,), dtype="int32")
    h = layers.Embedding(11, 4)(ids)
    h = layers.EinsumDense("abc,cde->abde", output_shape=(5, 2, 3), bias_axes="de",
                           activation="tanh")(h)
    h = layers.Reshape((5, 6))(h)
    h = layers.EinsumDense("abc,cd->abd", output_shape=(5, 2), bias_axes="d")(h)
    model = _quantized(lamina.Model(ids, h))
    target = _export(model, tmp_path)
    assert _op_types(target).count("MatMulInteger") == 2
    feed = np.random.default_rng(2).integers(0, 11, size=(3, 5)).astype("int32")
    np.testing.assert_allclose(run(target, feed)[0], model.predict(feed, verbose=0),
                               rtol=1e-6, atol=1e-7)   # tanh: onnxruntime's, 1 ulp apart


def test_keras_int8_file_exports(tmp_path):
    model = lamina.saving.load_model(fixture_path("int8_mixed.keras"))
    target = _export(model, tmp_path)
    inputs = [array(KERAS["model_inputs"]["ids"]), array(KERAS["model_inputs"]["feats"])]
    got = run(target, *inputs)[0]
    # gelu's erf in onnxruntime is not numpy's: a few ulps, as between Keras's backends.
    np.testing.assert_allclose(got, np.array(KERAS["model_pred_numpy"], "float32"),
                               rtol=1e-5, atol=1e-6)



def test_quantized_attention_exports_without_duplicate_kernels(tmp_path):
    query, value = layers.Input((5, 6), name="q"), layers.Input((4, 6), name="v")
    model = _quantized(lamina.Model([query, value],
                                    layers.MultiHeadAttention(2, 3)(query, value)))
    target = _export(model, tmp_path)
    assert _op_types(target).count("MatMulInteger") == 4
    proto = onnx.load(str(target))
    used = {name for n in proto.graph.node for name in n.input}
    assert all(i.name in used for i in proto.graph.initializer)     # nothing written twice
    rng = np.random.default_rng(3)
    q = rng.normal(size=(2, 5, 6)).astype("float32")
    v = rng.normal(size=(2, 4, 6)).astype("float32")
    # softmax in onnxruntime: a few ulps from numpy's
    np.testing.assert_allclose(run(target, names={"q": q, "v": v})[0],
                               model.predict([q, v], verbose=0), rtol=1e-5, atol=1e-6)
