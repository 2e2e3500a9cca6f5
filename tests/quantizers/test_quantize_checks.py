"""Quantization's checks run in Keras 3.15.1's order, with its error types and messages
(tests/fixtures/make_quantize_checks.py recorded what Keras raises for each statement; here
the same statements run with ``keras`` bound to ``lamina``): the mode and config first,
then built, not yet quantized, int8 not with float16, then the class (type_check), then
whether the class has the mode."""
import json
import os
import re

import pytest

import lamina

with open(os.path.join(os.path.dirname(__file__), "..", "fixtures",
                       "quantize_checks.json")) as _f:
    KERAS = json.load(_f)

# Where Lamina raises the same type with its own words, and why.
OWN_MESSAGE = {
    # The setter (lamina/layers/config.py) refuses with Keras's phrase, naming the layer.
    "gptq_by_setting_policy": "^dense(_[0-9]+)?: Implicitly enabling GPTQ quantization by setting "
                              "`dtype_policy` to 'gptq/4/128_from_float32' is not supported",
    # Keras 3.15.1 tries the unbuilt Sequential itself; Lamina reaches its Dense.
    "model_unbuilt": "Cannot quantize a layer that isn't yet built. Layer '.*' \\(of type "
                     "'Dense'\\) is not built yet.",
}


def _normalized(message: str) -> str:
    # Auto-generated layer names count differently in the two processes.
    return re.sub(r"Layer '[a-z_0-9]+'", "Layer '*'", message)


@pytest.mark.parametrize("label", sorted(KERAS["cases"]))
def test_raises_as_keras(label):
    case = KERAS["cases"][label]
    namespace = {"keras": lamina}
    exec(KERAS["setup"], namespace)
    if case["raises"] is None:
        exec(case["statement"], namespace)
        return
    kind, message = case["raises"]
    with pytest.raises(Exception) as caught:
        exec(case["statement"], namespace)
    assert type(caught.value).__name__ == kind or kind in [
        c.__name__ for c in type(caught.value).__mro__], (label, caught.value)
    if label in OWN_MESSAGE:
        assert re.search(OWN_MESSAGE[label], str(caught.value)), str(caught.value)
    else:
        assert _normalized(str(caught.value)) == _normalized(message)


def test_a_failed_quantize_leaves_the_layer_as_it_was():
    layer = lamina.layers.Dense(3)
    layer.build((None, 4))
    before = [v.path for v in layer.weights]
    for mode in ("int7", "gptq", "awq"):
        with pytest.raises(ValueError):
            layer.quantize(mode)
        assert layer.dtype_policy.name == "float32"
        assert [v.path for v in layer.weights] == before


def test_model_quantize_warns_for_layers_without_the_mode():
    # Keras: a NotImplementedError of a leaf layer becomes a warning and the layer stays
    # float; the Dense is quantized.
    model = lamina.Sequential([lamina.Input((5,)), lamina.layers.Embedding(10, 4),
                               lamina.layers.Dense(3)])
    with pytest.warns(UserWarning, match=r"Invalid quantization mode. Expected one of "
                                         r"\('int8', 'int4'\). Received: "
                                         r"quantization_mode=float8"):
        model.quantize("float8")
    assert model.layers[0].quantization_mode is None
    assert model.layers[1].quantization_mode == "float8"
