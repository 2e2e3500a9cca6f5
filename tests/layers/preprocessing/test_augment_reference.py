"""The augmentation layers against Keras 3.15.1's numbers where Keras's output is
deterministic (augment_calls.CALLS / augment_reference.npz)."""
import inspect
import os

import numpy as np
import pytest

import lamina
from lamina import layers
from tests.layers.preprocessing.augment_calls import CALLS

REFERENCE = np.load(os.path.join(os.path.dirname(__file__), "augment_reference.npz"))


@pytest.mark.parametrize("call", CALLS, ids=[c[0] for c in CALLS])
def test_matches_keras(call):
    label, name, kwargs, x, training = call
    cls = getattr(layers, name)
    seeded = "seed" in inspect.signature(cls.__init__).parameters
    layer = cls(seed=5, **kwargs) if seeded else cls(**kwargs)
    got = layer(x, training=training).numpy()
    np.testing.assert_allclose(got, REFERENCE[label], rtol=1e-5, atol=2e-4, err_msg=label)


@pytest.mark.parametrize("call", CALLS, ids=[c[0] for c in CALLS])
def test_graph_matches_eager(call):
    label, name, kwargs, x, training = call
    layer = getattr(layers, name)(**kwargs)
    eager = layer(x, training=training).numpy()
    graph = lamina.jit(lambda a: layer(a, training=training))(x).numpy()
    np.testing.assert_allclose(graph, eager, rtol=1e-6, atol=1e-5)
