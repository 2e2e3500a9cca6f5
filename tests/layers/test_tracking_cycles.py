"""Attribute tracking walks lists and dicts with a stack: a container holding itself
(Keras's saving_lib_test.test_cyclic_container_saving) is walked once, and the model
saves and loads."""
import numpy as np

import lamina
from lamina import layers


class CyclicContainerModel(lamina.Model):
    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        self.blocks = []
        self.blocks.append(self.blocks)
        self.blocks.append({"again": self.blocks, "dense": layers.Dense(3, name="inner")})
        self.out = layers.Dense(2, name="out")

    def call(self, x):
        return self.out(self.blocks[1]["dense"](x))


def test_a_list_holding_itself_is_tracked_once_and_round_trips(tmp_path):
    model = CyclicContainerModel()
    x = np.linspace(-1, 1, 8, dtype="float32").reshape(2, 4)
    expected = model(x).numpy()
    assert sorted(v.path for v in model.weights) == ["inner/bias", "inner/kernel",
                                                    "out/bias", "out/kernel"]
    model.save(tmp_path / "cyclic.keras")
    loaded = lamina.saving.load_model(tmp_path / "cyclic.keras",
                                      custom_objects={"CyclicContainerModel":
                                                      CyclicContainerModel})
    np.testing.assert_array_equal(loaded(x).numpy(), expected)


def test_nesting_deeper_than_the_recursion_limit_is_walked():
    model = CyclicContainerModel()
    nested = []
    for _ in range(5000):
        nested = [nested]
    model.deep = nested
    assert len(model.weights) == 0        # nothing built yet: nothing to find, no error
