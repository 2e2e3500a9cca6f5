"""Layers appended to a list attribute after it was assigned are tracked, as Keras's
tracked lists make them: their weights train (before, such a model had no weights and
fit changed nothing, silently)."""
import numpy as np

import lamina
from lamina import layers


class Blocks(lamina.Model):
    def __init__(self):
        super().__init__()
        self.blocks = []
        for units in (4, 2):
            self.blocks.append(layers.Dense(units))
        self.by_name = {}
        self.by_name["head"] = layers.Dense(1)

    def call(self, x):
        for block in self.blocks:
            x = block(x)
        return self.by_name["head"](x)


def test_layers_appended_after_assignment_are_tracked_and_trained():
    model = Blocks()
    x = np.random.default_rng(0).standard_normal((16, 3)).astype("float32")
    model(x)
    assert [w.shape for w in model.trainable_weights] == [(3, 4), (4,), (4, 2), (2,),
                                                          (2, 1), (1,)]
    model.compile("sgd", "mse")
    before = [w.numpy().copy() for w in model.trainable_weights]
    model.fit(x, np.ones((16, 1), "float32"), epochs=1, verbose=0)
    assert all(not np.array_equal(b, w.numpy())
               for b, w in zip(before, model.trainable_weights))
