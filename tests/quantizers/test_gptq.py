"""GPTQ (lamina/quantizers/gptq*.py, lamina/layers/core/gptq_weights.py) against Keras
3.15.1 (tests/fixtures/make_gptq_references.py): the quantization parameters, the
error-correcting column loop, one Dense layer's Hessian and quantized kernel, a small
language model calibrated block by block, the dataloader, the variables and their saved
layout (which Keras reads back), graph == eager, and the errors."""
import os
import subprocess
import warnings

import numpy as np
import pytest

import lamina
from lamina import layers
from lamina.dtype_policies import GPTQDTypePolicy
from lamina.quantizers import GPTQConfig
from lamina.quantizers.gptq import GPTQ, GPTQQuantizer, gptq_quantize_matrix
from lamina.quantizers.calibration import get_dataloader
from lamina.quantizers.grouped import compute_quantization_parameters
from tests.quantizers.fixtures import KERAS_GPTQ as KERAS, array
from tests.quantizers.language_model import calibrated

KERAS_PYTHON = "/work/kerasenv/bin/python"


@pytest.mark.parametrize("index", range(len(KERAS["params"])))
def test_quantization_parameters_are_keras(index):
    case = KERAS["params"][index]
    scale, zero, maxq = compute_quantization_parameters(array(KERAS["params_x"]),
                                                        **case["kwargs"])
    np.testing.assert_allclose(scale.numpy(), array(case["scale"]), rtol=1e-6, atol=0)
    assert zero.dtype == case["zero"]["dtype"]
    np.testing.assert_array_equal(zero.numpy(), array(case["zero"]))
    assert float(maxq) == case["maxq"]


def _g_idx_close(got, want):
    # Keras's g_idx is i / group_size from XLA, which divides by a constant through its
    # reciprocal (an ulp off here and there); its integer part -- the group -- is exact.
    np.testing.assert_allclose(got, want, rtol=1e-6, atol=0)
    np.testing.assert_array_equal(np.floor(got), np.floor(want))


@pytest.mark.parametrize("index", range(len(KERAS["matrix"])))
def test_error_correcting_column_loop_is_keras(index):
    case = KERAS["matrix"][index]
    inputs = KERAS["matrix_inputs"]
    config = GPTQConfig(None, None, weight_bits=case["bits"], group_size=case["group_size"],
                        activation_order=case["activation_order"])
    quantized, scale, zero, g_idx = gptq_quantize_matrix(
        array(inputs["weights"]), array(inputs["inv_hessian"]), blocksize=case["blocksize"],
        group_size=case["group_size"], activation_order=case["activation_order"],
        order_metric=np.diagonal(array(inputs["hessian"])),
        compute_scale_zero=GPTQQuantizer(config).find_params)
    np.testing.assert_array_equal(quantized.numpy(), array(case["quantized"]))
    np.testing.assert_array_equal(zero.numpy(), array(case["zero"]))
    np.testing.assert_allclose(scale.numpy(), array(case["scale"]), rtol=1e-5, atol=0)
    _g_idx_close(g_idx.numpy(), array(case["g_idx"]))


def _dense_case():
    case = KERAS["dense"]
    layer = layers.Dense(6, name="dense")
    layer.build((None, 10))
    layer.set_weights([array(w) for w in case["float_weights"]])
    config = GPTQConfig(None, None, weight_bits=4, group_size=4, hessian_damping=0.05)
    layer.quantize("gptq", config=config)
    return layer, config, case


def test_one_dense_layer_is_keras():
    layer, config, case = _dense_case()
    x = array(case["x"])
    before = layer(x).numpy()                     # not calibrated: the float kernel
    np.testing.assert_allclose(before, x @ array(case["float_weights"][0])
                               + array(case["float_weights"][1]), rtol=1e-5, atol=1e-6)
    gptq = GPTQ(layer, config)
    for batch in case["batches"]:
        gptq.update_hessian_with_batch(array(batch))
    np.testing.assert_allclose(gptq.hessian.numpy(), array(case["hessian"]), rtol=1e-6,
                               atol=1e-6)
    gptq.quantize_and_correct_layer()
    assert layer.dtype_policy.name == case["policy"] == "gptq/4/4_from_float32"
    assert [(v.path, v.dtype, list(v.shape)) for v in layer.weights] == [
        (w["path"], w["dtype"], w["shape"]) for w in case["weights"]]
    for variable, want in zip(layer.weights, case["weights"]):
        if variable.name == "g_idx":
            _g_idx_close(variable.numpy(), array(want))
        elif variable.dtype == "uint8":
            np.testing.assert_array_equal(variable.numpy(), array(want))
        else:
            np.testing.assert_allclose(variable.numpy(), array(want), rtol=1e-6, atol=0)
    np.testing.assert_array_equal(np.asarray(layer.kernel), array(case["kernel"]))
    np.testing.assert_allclose(layer(x).numpy(), array(case["output"]), rtol=1e-5,
                               atol=1e-5)
    config_dict = layer.get_config()
    assert config_dict["dtype"] == case["config"]["dtype"]
    assert config_dict["quantization_config"] == case["config"]["quantization_config"]
    assert [v.name for v in layer.trainable_weights] == ["bias"]


def _calibrated_model():
    tokens = array(KERAS["model"]["tokens"])
    return calibrated(KERAS["model_float_weights"], "gptq_lm", lambda structure: GPTQConfig(
        dataset=[tokens], tokenizer=object(), num_samples=1, sequence_length=16,
        group_size=4, weight_bits=4, activation_order=True,
        quantization_layer_structure=structure))


def test_a_language_model_calibrates_as_keras_means_to():
    # The fixture patched Keras's hooks onto quantized_call: Keras 3.15.1 itself hooks
    # `call`, which its quantized layers never run, and calibrates on zero Hessians.
    model = _calibrated_model()
    got = [(v.dtype, list(v.shape)) for v in model.weights]
    assert got == [(w["dtype"], w["shape"]) for w in KERAS["model"]["weights"]]
    for variable, want in zip(model.weights, KERAS["model"]["weights"]):
        if variable.name == "g_idx":
            _g_idx_close(variable.numpy(), array(want))
        elif variable.dtype == "uint8":
            np.testing.assert_array_equal(variable.numpy(), array(want))
        else:
            np.testing.assert_allclose(variable.numpy(), array(want), rtol=1e-5, atol=1e-7)
    blocks = model.get_layer("block1").layers + model.get_layer("block2").layers
    for layer in blocks:
        want = KERAS["model"]["policies"].get(layer.name, "float32")    # reshape: auto-named
        assert layer.dtype_policy.name == want, layer.name
    ids = array(KERAS["model"]["ids"])
    predicted = model.predict(ids, verbose=0)
    np.testing.assert_allclose(predicted, array(KERAS["model"]["pred"]), rtol=1e-5,
                               atol=1e-5)
    np.testing.assert_array_equal(model(ids).numpy(), predicted)       # graph == eager


def test_lamina_gptq_file_round_trips_and_keras_reads_it(tmp_path):
    model = _calibrated_model()
    ids = array(KERAS["model"]["ids"])
    target = str(tmp_path / "gptq.keras")
    model.save(target)
    again = lamina.saving.load_model(target)
    up = again.get_layer("block1").get_layer("up")
    assert isinstance(up.dtype_policy, GPTQDTypePolicy)
    assert up.quantization_config.group_size == 4
    np.testing.assert_array_equal(again.predict(ids, verbose=0), model.predict(ids, verbose=0))
    if not os.path.exists(KERAS_PYTHON):
        pytest.skip(f"needs Keras 3 at {KERAS_PYTHON}")
    # Keras 3.15.1 writes its own GPTQ Dense layers without their zero points (4 arrays)
    # and cannot load those files; it loads Lamina's five.
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
        model.compile(optimizer="adam", loss="mse", run_eagerly=eager)
        losses = [float(model.train_on_batch(x, y)) for _ in range(3)]
        results.append((losses, [v.numpy() for v in model.weights]))
    np.testing.assert_allclose(results[1][0], results[0][0], rtol=1e-5)
    for e, g in zip(results[0][1], results[1][1]):
        np.testing.assert_allclose(g, e, rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize("index", range(len(KERAS["dataloader"])))
def test_dataloader(index):
    case = KERAS["dataloader"][index]
    kwargs = dict(case["kwargs"])
    length, count = kwargs.pop("sequence_length"), kwargs.pop("num_samples")
    data = [np.arange(9), np.arange(20, 26)]
    got = get_dataloader(None, length, data, num_samples=count, **kwargs).numpy()
    assert got.shape == tuple(case["value"]["shape"]) and got.dtype == "int32"
    tokens = np.concatenate(data)
    if kwargs["strategy"] == "linspace":
        np.testing.assert_array_equal(got, array(case["value"]))
    # Keras's "random" draws from numpy's generator, Lamina from Python's: other windows,
    # but windows of the data all the same, the same for the same seed.
    for window in got[:, 0]:
        start = window[0] - tokens[0] if window[0] < 9 else 9 + window[0] - 20
        np.testing.assert_array_equal(window, np.tile(tokens, 3)[start:start + length])
    np.testing.assert_array_equal(
        got, get_dataloader(None, length, data, num_samples=count, **kwargs).numpy())


def test_strided_dataloader_is_reproducible_and_tokenizes_strings():
    class Tokenizer:
        def tokenize(self, text):
            return [ord(c) - 96 for c in text]
    first = get_dataloader(Tokenizer(), 3, ["abcd", "efgh"], num_samples=2, eos_id=0)
    again = get_dataloader(Tokenizer(), 3, ["abcd", "efgh"], num_samples=2, eos_id=0)
    np.testing.assert_array_equal(first.numpy(), again.numpy())
    tokens = [1, 2, 3, 4, 0, 5, 6, 7, 8]
    for window in first.numpy()[:, 0]:
        start = tokens.index(window[0])
        assert list(window) == tokens[start:start + 3]


def test_group_size_minus_one_beyond_one_block():
    # Keras 3.15.1 appends one scale column per block of 128 inputs and then cannot
    # assign them to its (units, 1) scale; each group gets one here.
    layer = layers.Dense(3)
    layer.build((None, 200))
    config = GPTQConfig(None, None, group_size=-1, weight_bits=8)
    layer.quantize("gptq", config=config)
    gptq = GPTQ(layer, config)
    gptq.update_hessian_with_batch(np.random.default_rng(1).normal(size=(50, 200)))
    float_kernel = layer.kernel.numpy()
    gptq.quantize_and_correct_layer()
    assert layer.kernel_scale.shape == (3, 1)
    x = np.random.default_rng(2).normal(size=(4, 200)).astype("float32")
    np.testing.assert_allclose(layer(x).numpy(), x @ float_kernel, atol=0.1)


def test_errors():
    layer = layers.Dense(3)
    layer.build((None, 4))
    with pytest.raises(ValueError, match="For GPTQ, you must pass a `GPTQConfig` object"):
        layer.quantize("gptq")
    with pytest.raises(ValueError, match="Unsupported weight_bits 5"):
        GPTQConfig(None, None, weight_bits=5)
    with pytest.raises(ValueError, match="hessian_damping must be between 0 and 1"):
        GPTQConfig(None, None, hessian_damping=2)
    with pytest.raises(ValueError, match="Invalid group_size. Supported values are -1"):
        GPTQConfig(None, None, group_size=0)
    with pytest.raises(ValueError, match="Invalid weight_bits in mode"):
        GPTQDTypePolicy("gptq/5/128", "float32")
    with pytest.raises(ValueError, match="Expected format 'gptq/<weight_bits>/<group_size>'"):
        GPTQDTypePolicy("gptq/4", "float32")
    model = lamina.Sequential([layers.Input((4,)), layers.Dense(3)])
    with pytest.raises(ValueError, match="a valid quantization structure must be provided"):
        model.quantize("gptq", config=GPTQConfig([np.arange(8)], object(), num_samples=1,
                                                 sequence_length=4))
    model = lamina.Sequential([layers.Input((4,)), layers.Dense(3)])
    with pytest.raises(ValueError, match="GPTQ quantization requires a dataset and a "
                                         "tokenizer"):
        model.quantize("gptq", config=GPTQConfig(None, None, quantization_layer_structure={
            "pre_block_layers": [], "sequential_blocks": [model.layers[0]]}))
    einsum = layers.EinsumDense("ab,bcde->acde", (2, 3, 4))
    einsum.build((None, 5))
    with pytest.raises(ValueError, match="cannot be seen as a matrix"):
        einsum.quantize("gptq", config=GPTQConfig(None, None))
    assert einsum.quantization_mode is None and einsum.quantization_config is None
    with pytest.raises(ValueError, match="gptq_unpacked_column_size' must be a positive int"):
        layers.EinsumDense("ab,bc->ac", 4, gptq_unpacked_column_size=0)


def test_get_quantization_layer_structure_is_used():
    class LM(lamina.Model):
        def __init__(self):
            super().__init__()
            self.emb = layers.Embedding(10, 4)
            self.block = layers.Dense(4)

        def call(self, ids):
            return self.block(self.emb(ids))

        def get_quantization_layer_structure(self, mode=None):
            return {"pre_block_layers": [self.emb], "sequential_blocks": [self.block]}

    model = LM()
    model(np.zeros((1, 6), "int32"))
    config = GPTQConfig([np.arange(6)], object(), num_samples=1, sequence_length=6,
                        group_size=-1)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        model.quantize("gptq", config=config)
    assert model.block.quantization_mode == "gptq"
    assert model.block.quantized_kernel.numpy().any()       # calibrated, not zeros
    assert "_kernel" not in [v.name for v in model.block.weights]
