"""``model.compiled``: False until compile() (Keras 3's flag), also for a loaded model
whose file says how to compile it only when load_model(compile=True)."""
import pytest

import lamina
from lamina import layers


class Subclassed(lamina.Model):
    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        self.dense = layers.Dense(1)

    def call(self, x):
        return self.dense(x)


def _functional():
    inputs = lamina.Input((3,))
    return lamina.Model(inputs, layers.Dense(1)(inputs))


@pytest.mark.parametrize("make", [
    lambda: lamina.Sequential([lamina.Input((3,)), layers.Dense(1)]), _functional,
    Subclassed])
def test_compiled_is_false_until_compile(make):
    model = make()
    assert model.compiled is False
    model.compile("sgd", "mse")
    assert model.compiled is True


def test_a_loaded_model_is_compiled_as_load_model_says(tmp_path):
    model = lamina.Sequential([lamina.Input((3,)), layers.Dense(1)])
    model.save(tmp_path / "plain.keras")
    assert lamina.saving.load_model(tmp_path / "plain.keras").compiled is False
    model.compile("sgd", "mse")
    model.save(tmp_path / "compiled.keras")
    assert lamina.saving.load_model(tmp_path / "compiled.keras").compiled is True
    assert lamina.saving.load_model(tmp_path / "compiled.keras",
                                    compile=False).compiled is False
