"""``get_custom_objects()`` holds only what the user registered (Keras 3), so clearing it, as
Keras's serialization guide does, still loads every .keras file (issue 22, cause 15)."""
import numpy as np

import lamina
from lamina import layers, saving


def test_get_custom_objects_starts_without_lamina_builtins():
    assert not any(">" not in name for name in saving.get_custom_objects()), \
        "Lamina's built-ins leaked into get_custom_objects()"
    assert "Dense" not in saving.get_custom_objects()


def test_registered_objects_appear_and_clearing_keeps_files_loadable(tmp_path):
    @saving.register_keras_serializable(package="Issue22")
    class Scale(layers.Layer):
        def call(self, x):
            return x * 2.0

    assert saving.get_custom_objects()["Issue22>Scale"] is Scale
    model = lamina.Sequential([lamina.Input((3,)), layers.Dense(2), Scale()])
    x = np.arange(6, dtype="float32").reshape(2, 3)
    path = tmp_path / "m.keras"
    model.save(path)
    saved = dict(saving.get_custom_objects())
    saving.get_custom_objects().clear()
    try:
        restored = saving.load_model(path, custom_objects={"Scale": Scale})
        np.testing.assert_allclose(restored.predict(x, verbose=0),
                                   model.predict(x, verbose=0), rtol=1e-6)
        plain = lamina.Sequential([lamina.Input((3,)), layers.Dense(2)])
        plain.save(tmp_path / "plain.keras")
        assert isinstance(saving.load_model(tmp_path / "plain.keras"), lamina.Sequential)
    finally:
        saving.get_custom_objects().update(saved)
