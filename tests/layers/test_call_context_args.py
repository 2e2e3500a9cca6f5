"""Keras 3's call-context arguments (``layer._register_call_context_args``)."""
import numpy as np
import pytest

import lamina
from lamina import layers, models, ops


class Inner(layers.Layer):
    def __init__(self, register=True):
        super().__init__()
        if register:
            self._register_call_context_args("foo_mode")

    def call(self, x, foo_mode=None):
        return x + (1 if foo_mode else 0)


class Wrapper(layers.Layer):
    def __init__(self, inner):
        super().__init__()
        self.inner = inner

    def call(self, x):
        return self.inner(x)


def test_registering_adds_to_training():
    layer = Inner()
    assert layer._call_context_args == {"foo_mode", "training"}
    layer(np.array(0.0))
    with pytest.raises(RuntimeError, match=r"Cannot add call-context args after the layer has "
                                           r"been called."):
        layer._register_call_context_args("bar_mode")


def test_a_value_reaches_registered_layers_through_unregistered_ones():
    outer = Wrapper(Wrapper(Inner()))
    outer._register_call_context_args("foo_mode")
    assert int(outer(np.array(0), foo_mode=True)) == 1     # Outer's call takes no foo_mode
    assert int(outer(np.array(0))) == 0


def test_a_layer_that_did_not_register_the_name_keeps_its_default():
    outer = Wrapper(Inner(register=False))
    outer._register_call_context_args("foo_mode")
    assert int(outer(np.array(0), foo_mode=True)) == 0


class AddIfFoo(layers.Layer):
    def __init__(self):
        super().__init__()
        self._register_call_context_args("foo_mode")

    def call(self, x, foo_mode=False):
        return x + ops.where(foo_mode, 1.0, 0.0)


def test_sequential_and_functional_models_pass_it_down():
    x = np.array([[1.0], [2.0]], "float32")
    seq = models.Sequential([layers.Identity(), Wrapper(AddIfFoo())])
    seq._register_call_context_args("foo_mode")
    np.testing.assert_allclose(seq(x, foo_mode=True).numpy(), x + 1)
    np.testing.assert_allclose(seq(x).numpy(), x)
    inp = lamina.Input((1,))
    model = models.Model(inp, Wrapper(AddIfFoo())(layers.Identity()(inp)))
    model._register_call_context_args("foo_mode")
    np.testing.assert_allclose(model(x, foo_mode=True).numpy(), x + 1)
    np.testing.assert_allclose(model(x).numpy(), x)
