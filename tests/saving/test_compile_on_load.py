"""load_model and a model class whose compile() is custom (Keras 3's rule: the saved
compile config is not applied, with Keras's warning)."""
import warnings

import numpy as np

import lamina
from lamina import layers


class CustomCompile(lamina.Sequential):
    def compile(self, *args, **kwargs):
        super().compile(*args, **kwargs)
        self.compiled_by_hand = True


def test_custom_compile_is_not_called_on_load_and_warns_as_keras(tmp_path):
    model = CustomCompile([lamina.Input((2,)), layers.Dense(1)])
    model.compile("sgd", "mse")
    model.save(tmp_path / "m.keras")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        loaded = lamina.saving.load_model(tmp_path / "m.keras",
                                          custom_objects={"CustomCompile": CustomCompile})
    messages = [str(w.message) for w in caught]
    assert any("`compile()` was not called as part of model loading because the model's "
               "`compile()` method is custom. " in m for m in messages), messages
    assert not getattr(loaded, "compiled_by_hand", False)
    np.testing.assert_array_equal(loaded.layers[0].get_weights()[0],
                                  model.layers[0].get_weights()[0])
