"""AWQ (lamina/quantizers/awq.py, calibration.py, lamina/layers/core/calibrated_weights.py)
against Keras 3.15.1 (tests/fixtures/make_awq_references.py): the grid search of the
per-channel scales, the quantized matrix, one Dense layer's activation maxima and
variables, a small language model calibrated block by block, its file (which Keras reads
back), graph == eager, and the errors."""
import os
import subprocess

import numpy as np
import pytest

import lamina
from lamina import layers
from lamina.dtype_policies import AWQDTypePolicy
from lamina.quantizers import AWQConfig
from lamina.quantizers.awq import AWQ, awq_quantize_matrix, awq_search_optimal_scales
from tests.quantizers.fixtures import KERAS_AWQ as KERAS, array
from tests.quantizers.language_model import calibrated

KERAS_PYTHON = "/work/kerasenv/bin/python"


@pytest.mark.parametrize("index", range(len(KERAS["matrix"])))
def test_scale_search_and_quantized_matrix_are_keras(index):
    case = KERAS["matrix"][index]
    weights = array(KERAS["matrix_inputs"]["weights"])
    magnitudes = array(KERAS["matrix_inputs"]["magnitudes"])
    kwargs = dict(num_grid_points=case["num_grid_points"], group_size=case["group_size"])
    scales = awq_search_optimal_scales(weights, magnitudes, **kwargs)
    np.testing.assert_allclose(scales.numpy(), array(case["search"]), rtol=1e-6, atol=0)
    quantized, scale, zero, awq_scales, g_idx = awq_quantize_matrix(weights, magnitudes,
                                                                    **kwargs)
    np.testing.assert_array_equal(quantized.numpy(), array(case["quantized"]))
    np.testing.assert_array_equal(zero.numpy(), array(case["zero"]))
    np.testing.assert_allclose(scale.numpy(), array(case["scale"]), rtol=1e-5, atol=0)
    np.testing.assert_allclose(awq_scales.numpy(), array(case["awq_scales"]), rtol=1e-6)
    np.testing.assert_array_equal(g_idx.numpy(), array(case["g_idx"]))


def test_one_dense_layer_is_keras():
    case = KERAS["dense"]
    layer = layers.Dense(6, name="dense")
    layer.build((None, 10))
    layer.set_weights([array(w) for w in case["float_weights"]])
    config = AWQConfig(None, None, group_size=4, num_grid_points=10)
    layer.quantize("awq", config=config)
    awq = AWQ(layer, config)
    for batch in case["batches"]:
        awq.update_activation_magnitudes(array(batch))
    np.testing.assert_array_equal(awq.activation_magnitudes.numpy(), array(case["magnitudes"]))
    awq.quantize_layer()
    assert layer.dtype_policy.name == case["policy"] == "awq/4/4_from_float32"
    assert [(v.path, v.dtype, list(v.shape)) for v in layer.weights] == [
        (w["path"], w["dtype"], w["shape"]) for w in case["weights"]]
    for variable, want in zip(layer.weights, case["weights"]):
        if variable.dtype == "uint8" or variable.name == "g_idx":
            np.testing.assert_array_equal(variable.numpy(), array(want))
        else:
            np.testing.assert_allclose(variable.numpy(), array(want), rtol=1e-6, atol=0)
    np.testing.assert_array_equal(np.asarray(layer.kernel), array(case["kernel"]))
    np.testing.assert_allclose(layer(array(case["x"])).numpy(), array(case["output"]),
                               rtol=1e-5, atol=1e-5)
    config_dict = layer.get_config()
    assert config_dict["dtype"] == case["config"]["dtype"]
    assert config_dict["quantization_config"] == case["config"]["quantization_config"]


def _calibrated_model():
    tokens = array(KERAS["model"]["tokens"])
    return calibrated(KERAS["model_float_weights"], "awq_lm", lambda structure: AWQConfig(
        dataset=[tokens], tokenizer=object(), num_samples=1, sequence_length=16,
        group_size=4, num_grid_points=8, quantization_layer_structure=structure))


def test_a_language_model_calibrates_as_keras_means_to():
    # The fixture patched Keras's hooks onto quantized_call: Keras 3.15.1 itself hooks
    # `call`, which its quantized layers never run, and finds every channel silent.
    model = _calibrated_model()
    assert [(v.dtype, list(v.shape)) for v in model.weights] == [
        (w["dtype"], w["shape"]) for w in KERAS["model"]["weights"]]
    for variable, want in zip(model.weights, KERAS["model"]["weights"]):
        if variable.dtype == "uint8" or variable.name == "g_idx":
            np.testing.assert_array_equal(variable.numpy(), array(want))
        else:
            np.testing.assert_allclose(variable.numpy(), array(want), rtol=1e-5, atol=1e-7)
    ids = array(KERAS["model"]["ids"])
    predicted = model.predict(ids, verbose=0)
    np.testing.assert_allclose(predicted, array(KERAS["model"]["pred"]), rtol=1e-5,
                               atol=1e-5)
    np.testing.assert_array_equal(model(ids).numpy(), predicted)       # graph == eager
    assert model.get_layer("block2").get_layer("mix").dtype_policy.name == \
        KERAS["model"]["policies"]["mix"]


def test_lamina_awq_file_round_trips_and_keras_reads_it(tmp_path):
    model = _calibrated_model()
    ids = array(KERAS["model"]["ids"])
    target = str(tmp_path / "awq.keras")
    model.save(target)
    again = lamina.saving.load_model(target)
    heads = again.get_layer("block2").get_layer("heads")
    assert isinstance(heads.dtype_policy, AWQDTypePolicy)
    assert [v.name for v in heads.weights] == ["bias", "kernel", "kernel_scale", "zero_point",
                                               "awq_scales", "g_idx"]
    np.testing.assert_array_equal(again.predict(ids, verbose=0), model.predict(ids, verbose=0))
    if not os.path.exists(KERAS_PYTHON):
        pytest.skip(f"needs Keras 3 at {KERAS_PYTHON}")
    feed, out = str(tmp_path / "ids.npy"), str(tmp_path / "pred.npy")
    np.save(feed, ids)
    script = ("import sys, numpy as np, keras\n"
              "m = keras.saving.load_model(sys.argv[1])\n"
              "np.save(sys.argv[3], m.predict(np.load(sys.argv[2]), verbose=0))\n")
    subprocess.run([KERAS_PYTHON, "-c", script, target, feed, out], check=True,
                   env={**os.environ, "KERAS_BACKEND": "numpy"}, capture_output=True)
    np.testing.assert_allclose(np.load(out), model.predict(ids, verbose=0), rtol=1e-5,
                               atol=1e-5)


def test_training_around_calibrated_layers_graph_equals_eager():
    x = array(KERAS["model"]["ids"])
    y = np.random.default_rng(0).normal(size=(3, 16, 32)).astype("float32")
    results = []
    for eager in (True, False):
        model = _calibrated_model()
        model.compile(optimizer="sgd", loss="mse", run_eagerly=eager)
        losses = [float(model.train_on_batch(x, y)) for _ in range(3)]
        results.append((losses, [v.numpy() for v in model.weights]))
    np.testing.assert_allclose(results[1][0], results[0][0], rtol=1e-5)
    for e, g in zip(results[0][1], results[1][1]):
        np.testing.assert_allclose(g, e, rtol=1e-4, atol=1e-5)


def test_errors():
    layer = layers.Dense(3)
    layer.build((None, 4))
    with pytest.raises(ValueError, match="For AWQ, you must pass an `AWQConfig` object"):
        layer.quantize("awq")
    with pytest.raises(ValueError, match="AWQ only supports 4-bit quantization"):
        AWQConfig(None, None, weight_bits=8)
    with pytest.raises(ValueError, match="num_grid_points must be a positive integer"):
        AWQConfig(None, None, num_grid_points=0)
    with pytest.raises(ValueError, match="AWQ only supports 4-bit quantization, but got 3"):
        AWQDTypePolicy("awq/3/128", "float32")
    model = lamina.Sequential([layers.Input((4,)), layers.Dense(3)])
    with pytest.raises(ValueError, match="AWQ quantization requires a dataset and tokenizer"):
        model.quantize("awq", config=AWQConfig(None, None, quantization_layer_structure={
            "pre_block_layers": [], "sequential_blocks": [model.layers[0]]}))
    with pytest.raises(ValueError, match="No sequential blocks found in the structure"):
        lamina.Sequential([layers.Input((4,)), layers.Dense(3)]).quantize(
            "awq", config=AWQConfig([np.arange(4)], object(), num_samples=1,
                                    sequence_length=4, quantization_layer_structure={
                                        "pre_block_layers": [], "sequential_blocks": []}))
    einsum = layers.EinsumDense("ab,bcde->acde", (2, 3, 4))
    einsum.build((None, 5))
    with pytest.raises(ValueError, match="AWQ quantization only supports 2D or 3D kernels"):
        einsum.quantize("awq", config=AWQConfig(None, None))
    with pytest.raises(TypeError, match="Unsupported layer type for AWQ"):
        AWQ(layers.Conv1D(2, 3))
