"""A layer reached by two attribute paths (an attribute and a property returning it) loads
from whichever path the file has, as Keras 3's object-graph walk does."""
import numpy as np
import pytest

import lamina
from lamina import layers
from lamina.saving.object_graph import saveables


def setup_function():
    lamina.backend.clear_session(free_memory=False)


class _Normal(lamina.Model):
    def __init__(self):
        super().__init__()
        self.dense = layers.Dense(3)

    def call(self, x):
        return self.dense(x)


class _Renamed(lamina.Model):
    """Keeps its layer under a new attribute; the old name is a property."""

    def __init__(self):
        super().__init__()
        self.a_dense = layers.Dense(3)

    @property
    def dense(self):
        return self.a_dense

    def call(self, x):
        return self.dense(x)


def test_the_walk_records_the_other_paths_of_an_object():
    model = _Renamed()
    model(np.ones((2, 2), "float32"))
    found = {s.path: s.aliases for s in saveables(model)}
    # the property, then the model's `layers` list (Keras's walk meets it there too)
    assert found["a_dense"] == ("dense", "layers/dense")


def test_weights_saved_under_the_old_name_load_through_the_property(tmp_path):
    path = tmp_path / "normal.weights.h5"
    a = _Normal()
    a(np.ones((2, 2), "float32"))
    a.save_weights(path)
    b = _Renamed()
    b(np.ones((2, 2), "float32"))
    b.load_weights(path)
    np.testing.assert_array_equal(b.dense.kernel.numpy(), a.dense.kernel.numpy())
    np.testing.assert_array_equal(b.dense.bias.numpy(), a.dense.bias.numpy())


def test_a_mismatch_on_every_path_is_still_an_error(tmp_path):
    path = tmp_path / "normal.weights.h5"
    a = _Normal()
    a(np.ones((2, 4), "float32"))            # a (4, 3) kernel
    a.save_weights(path)
    b = _Renamed()
    b(np.ones((2, 2), "float32"))            # a (2, 3) kernel
    with pytest.raises(ValueError, match=r"expected shape \(2, 3\), found \(4, 3\)"):
        b.load_weights(path)
