"""lamina.Operation (Keras 3's keras.Operation): naming, the config generated from the
constructor's arguments, quantized calls and the record of symbolic calls."""
import numpy as np
import pytest

import lamina
from lamina.graph import SymbolicTensor


class WithName(lamina.Operation):
    def __init__(self, alpha, *, beta=1.0, name=None):
        super().__init__(name=name)
        self.alpha, self.beta = alpha, beta

    def call(self, x):
        return self.alpha * x + self.beta


class NoName(lamina.Operation):
    def __init__(self, alpha, beta=1.0):
        super().__init__()
        self.alpha, self.beta = alpha, beta

    def call(self, x):
        return self.alpha * x + self.beta


class WithKwargs(lamina.Operation):
    def __init__(self, alpha, beta=1.0, **kwargs):
        super().__init__(**kwargs)
        self.alpha, self.beta = alpha, beta

    def call(self, x):
        return self.alpha * x + self.beta


class WithArgs(lamina.Operation):
    def __init__(self, alpha, *args, name=None):
        super().__init__(name=name)
        self.alpha = alpha

    def call(self, x):
        return self.alpha * x


class OwnConfig(lamina.Operation):
    def __init__(self, alpha, *, name=None):
        super().__init__(name=name)
        self.alpha = alpha

    def call(self, x):
        return self.alpha * x

    def get_config(self):
        return {**super().get_config(), "alpha": self.alpha}


class ThreeInputs(lamina.Operation):
    def call(self, x, y, z=None):
        return 3 * z + x + 2 * y


class Quantized(lamina.Operation):
    def call(self, x):
        return x

    def quantized_call(self, x):
        return x + 1


def test_config_comes_from_the_constructor_arguments_as_in_keras():
    op = WithName(alpha=0.2, name="test_op")
    assert op.get_config() == {"alpha": 0.2, "beta": 1.0, "name": "test_op"}
    revived = WithName.from_config(op.get_config())
    assert revived.get_config() == op.get_config() and revived.name == "test_op"
    op = WithKwargs(alpha=0.2, beta=0.0)
    assert op.get_config() == {"alpha": 0.2, "beta": 0.0, "name": op.name}
    assert WithKwargs.from_config(op.get_config()).name == op.name
    assert NoName(alpha=0.2).get_config() == {"alpha": 0.2, "beta": 1.0}   # no name to pass
    assert OwnConfig(3, name="o").get_config() == {"name": "o", "alpha": 3}


def test_config_cannot_be_generated_from_args_or_objects():
    with pytest.raises(NotImplementedError, match=r"WithArgs: get_config cannot be generated: "
                                                  r"the object was created with "
                                                  r"positional-only or variadic positional"):
        WithArgs(0.2, "a", "b", name="test_op").get_config()
    with pytest.raises(NotImplementedError, match=r"WithName: get_config cannot be generated: "
                                                  r"the object was created with constructor "
                                                  r"argument values that are not plain"):
        WithName(alpha=object(), name="test_op").get_config()


def test_name_is_checked_with_keras_phrase():
    with pytest.raises(ValueError, match=r"ThreeInputs: argument 'name' must be a string and "
                                         r"cannot contain character `/`"):
        ThreeInputs(name="test/op")


def test_symbolic_calls_are_recorded_and_quantized_call_is_used():
    x, y, z = (SymbolicTensor((2, 3)) for _ in range(3))
    op = ThreeInputs(name="test_op")
    out = op(x, y=y, z=z)
    assert out.shape == (2, 3) and op.input == [x, y, z] and op.output is out
    op(x, y, z)
    assert len(op._inbound_nodes) == 2 and op.output is out
    ones = np.ones((2, 3), "float32")
    np.testing.assert_array_equal(np.asarray(op(ones, ones, ones)), 6 * ones)
    q = Quantized()
    np.testing.assert_array_equal(np.asarray(q(ones)), ones)
    q.quantization_mode = "int8"
    np.testing.assert_array_equal(np.asarray(q(ones)), 2 * ones)
    with pytest.raises(AttributeError, match=r"Quantized: the operation has never been called "
                                             r"on symbolic tensors"):
        q.input
