"""Compare a Lamina layer with Keras 3.15.1's output stored in keras_outputs.npz."""
import pathlib

import numpy as np

from lamina import ops

_PATH = pathlib.Path(__file__).with_name("keras_outputs.npz")
_DATA = None


def fixture(key):
    global _DATA
    if _DATA is None:
        _DATA = dict(np.load(_PATH))
    return {name.split("/", 1)[1]: value for name, value in _DATA.items()
            if name.split("/", 1)[0] == key}


def keras_weights(key):
    entry = fixture(key)
    count = sum(1 for name in entry if name.startswith("w"))
    return [entry[f"w{i}"] for i in range(count)]


def check_against_keras(key, layer, rtol=1e-5, atol=1e-5, call=None):
    """Build ``layer`` on Keras's input(s), check its weight paths (less the layer's own
    name) and shapes are Keras's, in order, load Keras's weights and compare the outputs; returns Lamina's output."""
    entry = fixture(key)
    if "x" in entry:
        x = ops.convert_to_tensor(entry["x"])
        call = call or (lambda lay, t: lay(t))
    else:
        count = sum(1 for name in entry if name[0] == "x")
        x = [ops.convert_to_tensor(entry[f"x{i}"]) for i in range(count)]
        call = call or (lambda lay, t: lay(*t))
    call(layer, x)
    weights = keras_weights(key)
    names = [w.path.split("/", 1)[-1] for w in layer.weights]
    assert names == list(entry["names"]), f"{key}: weights {names} vs Keras {entry['names']}"
    assert [tuple(w.shape) for w in layer.weights] == [w.shape for w in weights]
    layer.set_weights(weights)
    y = call(layer, x)
    if isinstance(y, (tuple, list)):
        y = [np.asarray(t.numpy()) for t in y]
        for i, t in enumerate(y):
            np.testing.assert_allclose(t, entry[f"y{i}"], rtol=rtol, atol=atol, err_msg=key)
        return y
    y = np.asarray(y.numpy())
    np.testing.assert_allclose(y, entry["y"], rtol=rtol, atol=atol, err_msg=key)
    return y
