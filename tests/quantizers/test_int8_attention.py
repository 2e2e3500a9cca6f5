"""int8 attention (lamina/layers/attention/int8_projection.py): ``model.quantize("int8")``
quantizes MultiHeadAttention's and GroupQueryAttention's projections as Keras 3.15.1
quantizes their EinsumDense sublayers -- same variables, paths, shapes and values -- and
the outputs agree with Keras's; graph == eager; the gradient reaches the inputs."""
import warnings

import numpy as np
import pytest

import lamina
from lamina import GradientTape, layers, ops
from tests.quantizers.fixtures import KERAS, array

Q = array(KERAS["attention_inputs"]["query"])
V = array(KERAS["attention_inputs"]["value"])


def _model(label):
    layer = (layers.MultiHeadAttention(2, 3, name="mha") if label == "mha"
             else layers.GroupQueryAttention(3, 4, 2, name="gqa"))
    query, value = lamina.Input((5, 6)), lamina.Input((4, 6))
    model = lamina.Model([query, value], layer(query, value))
    model.set_weights([array(w) for w in KERAS[label]["float_weights"]])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")          # Keras's warnings for the InputLayers
        model.quantize("int8")
    return model


@pytest.mark.parametrize("label", ["mha", "gqa"])
def test_quantized_attention_matches_keras(label, backend):
    model = _model(label)
    for variable, want in zip(model.weights, KERAS[label]["weights"]):
        assert (variable.path, variable.dtype, list(variable.shape)) == (
            want["path"], want["dtype"], want["shape"])
        np.testing.assert_array_equal(variable.numpy(), array(want))
    predicted = model.predict([Q, V], verbose=0)
    # The projections are exact; softmax and the attention products differ from JAX's in
    # the last float32 bits.
    np.testing.assert_allclose(predicted, array(KERAS[label]["output"]), rtol=1e-5,
                               atol=2e-6)
    np.testing.assert_array_equal(model([Q, V]).numpy(), predicted)


def test_quantized_attention_round_trips_its_weights(tmp_path):
    model = _model("mha")
    target = str(tmp_path / "mha.weights.h5")
    model.save_weights(target)
    other = _model("mha")
    for v in other.weights:
        v.assign(np.zeros(v.shape, v.dtype))
    other.load_weights(target)
    np.testing.assert_array_equal(other.predict([Q, V], verbose=0),
                                  model.predict([Q, V], verbose=0))


def _dequantized_twin(model):
    """The float MHA whose kernels are the int8 model's dequantized ones."""
    twin = lamina.Model.from_config(model.get_config())      # float policies
    values = {}
    for variable in model.weights:
        values[variable.path] = variable.numpy()
    weights = []
    for variable in twin.weights:
        if variable.path.endswith("kernel"):
            scale = values[variable.path + "_scale"].reshape(-1)
            kernel = values[variable.path].astype(np.float32)
            if variable.path.endswith("attention_output/kernel"):
                weights.append(kernel / scale)
            else:
                weights.append(kernel / scale.reshape(kernel.shape[1:]))
        else:
            weights.append(values[variable.path])
    twin.set_weights(weights)
    return twin


def test_inputs_gradient_through_quantized_projections():
    # Keras's gradient of an int8 projection is the dequantized kernel's (the input
    # quantization passes the gradient straight through): close to the gradient of the
    # float model that holds the dequantized kernels, up to the quantization noise of the
    # forward values the rest of the attention sees.
    model = _model("mha")
    twin = _dequantized_twin(model)
    grads = []
    for m in (model, twin):
        query = ops.convert_to_tensor(Q)
        with GradientTape() as tape:
            tape.watch(query)
            loss = ops.sum(ops.square(m([query, V])))
        grads.append(tape.gradient(loss, query).numpy())
    assert np.abs(grads[0]).max() > 0
    np.testing.assert_allclose(grads[0], grads[1], rtol=0.05,
                               atol=0.02 * np.abs(grads[1]).max())
