"""int4 and float8 models in ONNX: the Keras-written int4 model (Embedding, EinsumDense,
Dense, per channel and in groups) and the Keras-trained float8 model export, and
onnxruntime's outputs equal Lamina's predict (the int4 tables unpack in the exported
graph's constant folding, so the file holds plain float products)."""
import numpy as np

from tests.export.onnx_helpers import onnx, run
import lamina
from tests.quantizers.fixtures import (KERAS_FLOAT8, KERAS_INT4, array, float8_path,
                                       int4_path)


def _export(model, tmp_path, name):
    target = tmp_path / name
    model.export(target, format="onnx", verbose=False)
    onnx.checker.check_model(str(target))
    return target


def test_keras_int4_model_in_onnx(tmp_path):
    model = lamina.saving.load_model(int4_path("int4_mixed.keras"))
    inputs = KERAS_INT4["model_inputs"]
    feed = [array(inputs["ids"]), array(inputs["feats"])]
    target = _export(model, tmp_path, "int4.onnx")
    np.testing.assert_allclose(run(target, *feed)[0], model.predict(feed, verbose=0),
                               rtol=1e-6, atol=1e-6)


def test_keras_float8_model_in_onnx(tmp_path):
    model = lamina.saving.load_model(float8_path("float8_dense.keras"))
    x = array(KERAS_FLOAT8["dense_policy"]["x"])
    target = _export(model, tmp_path, "float8.onnx")
    np.testing.assert_allclose(run(target, x)[0], model.predict(x, verbose=0), rtol=1e-6,
                               atol=1e-6)
