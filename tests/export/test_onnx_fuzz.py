"""The differential fuzzer's random models (tests/graph/fuzz/models.py), exported to ONNX:
onnxruntime computes what Lamina's predict computes. float64 models are skipped
(onnxruntime has no float64 Conv / pooling / RNN kernels) and models computing in bfloat16
(no bfloat16 MatMul on its CPU), as are models holding a layer
without an ONNX form (lamina.export.NO_ONNX_FORM, tested in test_onnx_layers.py)."""
import warnings

import numpy as np
import pytest

from tests.export.onnx_helpers import run
import lamina
from lamina.export.tracing import all_layers
from lamina.export.registry import OnnxExportError
from lamina.export.unsupported import unsupported_reason
from tests.graph.fuzz import checks, models

SEEDS = range(60)


@pytest.mark.parametrize("seed", SEEDS)
def test_fuzz_model_exports_and_matches_predict(seed, tmp_path):
    spec = models.generate(seed, ("sequential", "functional")[seed % 2])
    if spec.dtype != "float32":
        pytest.skip("onnxruntime has no float64 kernels for every op")
    if "bfloat16" in models.render(spec):
        pytest.skip("onnxruntime's CPU kernels have no bfloat16 MatMul")
    namespace = {}
    exec(models.render(spec), namespace)
    try:
        model = namespace["build_model"]()
    finally:
        lamina.config.set_floatx("float32")
    if any(unsupported_reason(layer) for layer in all_layers(model)):
        pytest.skip("holds a layer without an ONNX form")
    x, _ = checks.make_data(namespace["DATA"], seed)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        want = lamina.tree.flatten(model.predict(x, verbose=0))
    path = tmp_path / "fuzz.onnx"
    if any(op in models.render(spec) for op in ("complex", "polar", "ops.conj", "ops.imag",
                                                 "ops.real(")):
        # ONNX has no complex type: the export refuses, naming the op and its layer
        with pytest.raises(OnnxExportError, match=r"op '\w+' in layer '[\w/]+' has no ONNX "
                                                  r"converter"):
            model.export(path, format="onnx")
        return
    model.export(path, format="onnx")
    got = run(path, *(x if isinstance(x, list) else [x]))
    # A model computing partly in 16 bits (a float16/bfloat16 layer or cast, from the
    # mixed-dtype rules) is compared at half precision's tolerance: onnxruntime and numpy
    # accumulate half-precision products differently (numpy rounds each partial sum).
    half = any(name in models.render(spec) for name in ("float16", "bfloat16"))
    rtol, atol = (1e-2, 1e-3) if half else (1e-4, 1e-5)
    for g, w in zip(got, want):
        np.testing.assert_allclose(g, w, rtol=rtol, atol=atol)
