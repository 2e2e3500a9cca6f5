"""Model details Keras 3's own tests check (issue 22): Sequential config keys and an
unbuilt Sequential's attributes, Functional.operations, disconnected-output messages."""
import pytest

import lamina
from lamina.errors import LaminaError
from lamina.saving import deserialize_keras_object

DENSE = {"class_name": "Dense", "module": "keras.layers", "config": {"units": 4}}


def test_sequential_config_without_name_is_refused():
    with pytest.raises(ValueError, match="A Sequential model configuration must be a "
                                         "dictionary containing the 'name' and 'layers' "
                                         "keys") as info:
        deserialize_keras_object({"class_name": "Sequential", "module": "keras",
                                  "config": {"layers": [DENSE]}})
    assert isinstance(info.value, LaminaError)
    assert "Sequential.from_config: argument 'config'" in str(info.value)


def test_sequential_layer_entry_without_class_name_is_refused():
    with pytest.raises(ValueError, match="Expected a dictionary containing a 'config' key"):
        deserialize_keras_object({"class_name": "Sequential", "module": "keras",
                                  "config": {"name": "s", "layers": [DENSE, {}]}})


def test_sequential_config_with_name_round_trips():
    model = lamina.Sequential([lamina.Input((3,)), lamina.layers.Dense(4)], name="seq")
    again = lamina.Sequential.from_config(model.get_config())
    assert again.name == "seq" and again.output_shape == (None, 4)


def test_unbuilt_sequential_has_no_inputs_outputs_or_shapes():
    """Keras's sequential_test.test_hasattr: before it is built, reading these raises
    AttributeError (so ``hasattr`` is False); after, they are there."""
    model = lamina.Sequential()
    for name in ("input_shape", "output_shape", "inputs", "outputs"):
        assert not hasattr(model, name)
    with pytest.raises(AttributeError, match="Sequential model 'sequential.*' has no "
                                             "defined inputs yet") as info:
        model.inputs
    assert isinstance(info.value, LaminaError)
    model = lamina.Sequential([lamina.Input((4,)), lamina.layers.Dense(8)])
    assert model.input_shape == (None, 4) and model.output_shape == (None, 8)
    assert len(model.inputs) == 1 and len(model.outputs) == 1


def test_functional_operations_lists_layers_and_ops_in_order():
    """Keras's functional_test.test_functional_with_dtype_policy: ``operations`` holds the
    Input layer and the Dense (no cast op under mixed_float16)."""
    lamina.dtype_policies.set_dtype_policy("mixed_float16")
    try:
        inputs = lamina.Input((10,), name="input")
        model = lamina.Model(inputs, lamina.layers.Dense(5)(inputs))
    finally:
        lamina.dtype_policies.set_dtype_policy("float32")
    assert [type(op).__name__ for op in model.operations] == ["InputLayer", "Dense"]
    a, b = lamina.Input((3,)), lamina.Input((3,))
    model = lamina.Model([a, b], lamina.layers.Dense(2)(lamina.ops.add(a, b)))
    kinds = [type(op).__name__ for op in model.operations]
    assert kinds[:2] == ["InputLayer", "InputLayer"] and kinds[3] == "Dense"
    assert model.operations[2].op.name == "add"
    assert [op for op in model.operations if isinstance(op, lamina.layers.Layer)] == \
        model.layers


def test_disconnected_output_names_its_path():
    """Keras's functional_test.test_disconnected_output: the message names the output's
    path in the outputs' structure."""
    i1, i2 = lamina.Input((2,), name="input1"), lamina.Input((2,), name="input2")
    with pytest.raises(ValueError, match="Output 1 is not connected to `inputs` \\(Output "
                                         "with path `output2` is not connected\\)"):
        lamina.Model(i1, {"output1": i1 * 2, "output2": i2 * 3})


def test_clone_model_input_tensors_must_nest_like_the_inputs():
    """Keras's cloning_test.test_structured_io_cloning: a dict-input model cloned onto a
    tuple of tensors is refused; onto the same dict it clones."""
    x, y = lamina.Input((3,)), lamina.Input((3,))
    z1 = x + y
    model = lamina.Model(dict(x=x, y=y), dict(z1=z1, z2=lamina.layers.Dense(5)(z1)))
    clone = lamina.models.clone_model(model, input_tensors=dict(x=x, y=y))
    assert sorted(clone.input) == ["x", "y"] and sorted(clone.output) == ["z1", "z2"]
    with pytest.raises(ValueError, match="`input_tensors` must have the same structure as "
                                         "model.input\\); expected \\{'x': T, 'y': T\\}, "
                                         "received \\(T, T\\)") as info:
        lamina.models.clone_model(model, input_tensors=(x, y))
    assert isinstance(info.value, LaminaError)


def test_sequential_starting_with_a_model_builds_on_its_input():
    """Keras's sequential_test.test_basic_flow_with_{functional,sequential}_model_as_first_
    layer: the Sequential is built at once on the inner model's input shape."""
    inputs = lamina.Input((16, 16, 3))
    inner = lamina.Model(inputs, lamina.layers.Conv2D(4, 3, padding="same")(inputs))
    for first in (inner, lamina.Sequential([lamina.Input((16, 16, 3)),
                                            lamina.layers.Conv2D(4, 3, padding="same")])):
        model = lamina.Sequential([first, lamina.layers.Flatten(), lamina.layers.Dense(1)])
        assert model.built and len(model.layers) == 3
        assert all(layer.built for layer in model.layers)
        assert model.input_shape == (None, 16, 16, 3) and model.output_shape == (None, 1)
    assert not lamina.Sequential([lamina.Sequential([lamina.layers.Dense(2)]),
                                  lamina.layers.Dense(1)]).built
