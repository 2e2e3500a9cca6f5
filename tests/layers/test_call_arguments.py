"""Keras 3's rules for what a layer call receives: tensors only as positional arguments,
``<arg>_mask`` filled from each argument's mask, ``build`` / ``compute_output_shape``
given the shapes of the call arguments of matching names, and the symbolic outputs of a
user's layer taken from its ``compute_output_shape``."""
import numpy as np
import pytest

import lamina
from lamina import layers, ops


def test_only_tensors_may_follow_the_inputs_positionally():
    class Flagged(layers.Layer):
        def call(self, x, flag):
            return x if flag else x + 1

    x = lamina.KerasTensor((2, 3))
    with pytest.raises(ValueError, match=r"flagged: Only input tensors may be passed as "
                                         r"positional arguments.*True \(of type"):
        Flagged(name="flagged")(x, True)
    assert Flagged()(x, flag=True).shape == (2, 3)
    # arrays and None may follow positionally
    np.testing.assert_allclose(Flagged()(np.ones((1, 2)), np.zeros(())).numpy(), [[2.0, 2.0]])


def test_argument_masks_are_filled_by_name():
    seen = {}

    class TwoInputs(layers.Layer):
        def call(self, x1, x2, x1_mask=None, x2_mask=None):
            seen["masks"] = (x1_mask, x2_mask)
            return x1 + x2

    x1, x2 = ops.ones((2, 3)), ops.ones((2, 3))
    x1._keras_mask = ops.convert_to_tensor(np.array([True, False]))
    x2._keras_mask = ops.convert_to_tensor(np.array([False, True]))
    TwoInputs()(x1, x2)
    np.testing.assert_array_equal(seen["masks"][0].numpy(), [True, False])
    np.testing.assert_array_equal(seen["masks"][1].numpy(), [False, True])
    seen.clear()
    TwoInputs()(x1=x1, x2=x2)
    np.testing.assert_array_equal(seen["masks"][1].numpy(), [False, True])


def test_build_with_several_arguments_must_name_call_arguments():
    class NoSuffix(layers.Layer):
        def build(self, foo_shape, bar):
            pass

        def call(self, foo, bar):
            return foo + bar

    class Unmatched(layers.Layer):
        def build(self, foo_shape, baz_shape):
            pass

        def call(self, foo, bar):
            return foo + bar

    class Subset(layers.Layer):
        def build(self, baz_shape, foo_shape):
            self.shapes = (foo_shape, baz_shape)

        def call(self, foo, bar=None, baz=None):
            return foo

    foo, bar, baz = ops.ones((4, 1)), ops.ones((4, 2)), ops.ones((4, 3))
    with pytest.raises(ValueError, match=r"argument `bar`, which does not end in `_shape`"):
        NoSuffix()(foo, bar)
    with pytest.raises(ValueError, match=r"`baz_shape`, but `call\(\)` does not have "
                                         r"argument `baz`"):
        Unmatched()(foo, bar)
    layer = Subset()
    layer(foo, bar, baz)
    assert layer.shapes == ((4, 1), (4, 3))


def test_compute_output_spec_uses_compute_output_shape():
    class Declared(layers.Layer):
        def call(self, x):
            raise RuntimeError("call must not run")

        def compute_output_shape(self, input_shape):
            return {"a": input_shape, "b": (input_shape, input_shape[:1])}

    out = Declared().compute_output_spec(lamina.KerasTensor((2, 3)))
    assert out["a"].shape == (2, 3) and out["b"][1].shape == (2,)
    assert isinstance(out["b"], tuple) and out["a"].dtype == "float32"


def test_functional_call_of_a_user_layer_takes_its_declared_shape():
    calls = []

    class Declared(layers.Layer):
        def call(self, x):
            calls.append(type(x).__name__)
            return ops.concatenate([x, x], axis=-1)

        def compute_output_shape(self, input_shape):
            return input_shape[:-1] + (2 * input_shape[-1],)

    inputs = lamina.Input((3,))
    outputs = Declared()(inputs)
    assert outputs.shape == (None, 6) and calls == []
    model = lamina.Model(inputs, outputs)
    np.testing.assert_allclose(model.predict(np.ones((2, 3)), verbose=0), np.ones((2, 6)))


def test_from_config_passes_a_plain_policy_by_name():
    received = []

    class Recording(layers.Dense):
        def __init__(self, *args, **kwargs):
            received.append(kwargs["dtype"])
            super().__init__(*args, **kwargs)

    Recording.from_config(layers.Dense(2, dtype="bfloat16").get_config())
    assert received[-1] == "bfloat16"
    Recording.from_config(layers.Dense(2, dtype="int8_from_bfloat16").get_config())
    assert received[-1].quantization_mode == "int8"
