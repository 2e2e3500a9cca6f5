"""The Layer base: names, weights, trainable, training inheritance, masks, losses, config."""
import numpy as np
import pytest

import lamina
from lamina import layers, ops


class Scale(layers.Layer):
    def __init__(self, init=1.0, **kwargs):
        super().__init__(**kwargs)
        self.init = init

    def build(self, input_shape):
        self.scale = self.add_weight(shape=(input_shape[-1],), name="scale",
                                     initializer=lamina.initializers.Constant(self.init))
        self.count = self.add_weight(shape=(), name="count", initializer="zeros",
                                     trainable=False)

    def call(self, inputs):
        return inputs * self.scale


class RecordsTraining(layers.Layer):
    seen = []

    def call(self, inputs, training=None):
        RecordsTraining.seen.append(training)
        return inputs


class Outer(layers.Layer):
    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        self.inner = RecordsTraining()
        self.blocks = [Scale(2.0), Scale(3.0)]

    def call(self, inputs):
        x = self.inner(inputs)
        for block in self.blocks:
            x = block(x)
        return x


def setup_function():
    lamina.backend.clear_session(free_memory=False)


def test_auto_names_are_snake_case_and_unique():
    assert layers.Dense(1).name == "dense"
    assert layers.Dense(1).name == "dense_1"
    assert Scale().name == "scale"
    lamina.backend.clear_session()
    assert layers.Dense(1).name == "dense"


def test_snake_case_matches_keras():
    from lamina.core.naming import to_snake_case
    assert [to_snake_case(n) for n in ("PReLU", "RMSprop", "AdamW", "Conv2D", "LSTM",
                                       "BatchNormalization")] == \
        ["p_re_lu", "rm_sprop", "adam_w", "conv2d", "lstm", "batch_normalization"]


def test_build_on_first_call_and_weight_order():
    layer = Scale(2.0, name="s")
    assert not layer.built and layer.weights == []
    y = layer(ops.ones((2, 3)))
    np.testing.assert_allclose(y.numpy(), np.full((2, 3), 2.0))
    assert layer.built
    assert [w.path for w in layer.weights] == ["s/scale", "s/count"]
    assert [w.name for w in layer.trainable_weights] == ["scale"]
    assert [w.name for w in layer.non_trainable_weights] == ["count"]
    assert layer.count_params() == 4


def test_nested_layers_are_tracked_in_order():
    outer = Outer()
    outer(ops.ones((1, 2)))
    assert [w.numpy()[0] for w in outer.trainable_weights] == [2.0, 3.0]
    assert len(outer.weights) == 4


def test_freezing_moves_weights_to_non_trainable():
    outer = Outer()
    outer(ops.ones((1, 2)))
    outer.trainable = False
    assert outer.trainable_weights == [] and len(outer.non_trainable_weights) == 4
    assert not outer.blocks[0].trainable
    outer.trainable = True
    assert len(outer.trainable_weights) == 2


def test_training_is_inherited_from_the_outermost_call():
    outer = Outer()
    RecordsTraining.seen.clear()
    outer(ops.ones((1, 2)), training=True)
    outer(ops.ones((1, 2)))
    outer.inner(ops.ones((1, 2)), training=False)
    assert RecordsTraining.seen == [True, None, False]


def test_set_weights_writes_into_existing_variables():
    layer = Scale()
    layer(ops.ones((1, 2)))
    before = layer.scale
    layer.set_weights([np.array([5.0, 6.0], "float32"), np.array(1.0, "float32")])
    assert layer.scale is before
    np.testing.assert_allclose(layer.scale.numpy(), [5.0, 6.0])


def test_set_weights_errors_name_the_weight():
    layer = Scale(name="sc")
    layer(ops.ones((1, 2)))
    with pytest.raises(ValueError, match=r"sc.set_weights: expected a list of 2 arrays"):
        layer.set_weights([np.ones(2)])
    with pytest.raises(ValueError, match=r"weight 'sc/scale' has shape \(2,\); received an "
                                         r"array of shape \(3,\)"):
        layer.set_weights([np.ones(3), np.ones(())])


def test_count_params_before_build_is_an_error():
    with pytest.raises(ValueError, match=r"is not built yet"):
        Scale(name="s2").count_params()


def test_unknown_keyword_is_a_type_error():
    with pytest.raises(TypeError, match=r"Dense: unrecognized keyword argument\(s\) 'foo'"):
        layers.Dense(2, foo=1)


def test_bad_name_is_rejected():
    with pytest.raises(ValueError, match=r"argument 'name' must be a non-empty string"):
        layers.Dense(2, name="a/b")


def test_unknown_activation_string_names_the_argument():
    with pytest.raises(ValueError, match=r"activation"):
        layers.Dense(2, activation="relu7")


def test_unknown_initializer_string_is_an_error():
    with pytest.raises(ValueError, match=r"glorot_unifrom"):
        layers.Dense(2, kernel_initializer="glorot_unifrom")


def test_add_weight_positional_arguments_follow_keras3():
    # Keras 3.15: (shape, initializer, dtype) by position; a string first is Keras 2's
    # add_weight(name, ...), refused with a pointer to name=.
    class Old(layers.Layer):
        def build(self, input_shape):
            self.w = self.add_weight("w", (input_shape[-1], 2))
    with pytest.raises(ValueError, match=r"old.add_weight: `name` must be passed as a "
                                         r"keyword argument.*add_weight\(shape=..., name='w'\)"):
        Old(name="old")(ops.ones((1, 3)))
    layer = layers.Layer(name="pos")
    w = layer.add_weight((3, 4), "ones", "float16")
    assert w.shape == (3, 4) and w.dtype == "float16" and float(w.numpy().sum()) == 12.0
    with pytest.raises(ValueError, match="`shape` was passed both positionally and as a "
                                         "keyword argument"):
        layer.add_weight((3, 4), shape=(3, 4))
    with pytest.raises(TypeError, match="takes at most 3 positional arguments"):
        layer.add_weight((3, 4), "zeros", "float32", "name")


def test_state_is_locked_once_built():
    class Late(layers.Layer):
        def call(self, x):
            self.w = self.add_weight(shape=(), initializer="zeros")
            return x
    with pytest.raises(ValueError, match=r"cannot add new elements of state \(variables "
                                         r"or sub-layers\) to a layer that is already built"):
        Late(name="late")(ops.ones((3, 2)))


def test_attribute_variables_and_seed_generators_are_tracked():
    class Stateful(layers.Layer):
        def __init__(self):
            self.w = lamina.Variable(np.ones((2,)))     # before super().__init__, as Keras
            super().__init__()
            self.gens = [lamina.random.SeedGenerator(1)]
            self.gens.append(lamina.random.SeedGenerator(2))

        def build(self, input_shape):
            self.k = self.add_weight(shape=(), initializer="ones", trainable=False)

        def call(self, x):
            return x
    layer = Stateful()
    layer.build(None)
    assert layer.weights == [layer.w, layer.k] and len(layer.variables) == 4
    assert layer.variables[2] is layer.gens[0].state
    assert layer.variables[3] is layer.gens[1].state
    assert len(layer.non_trainable_variables) == 3 and len(layer.non_trainable_weights) == 1
    layer.trainable = False
    assert len(layer.non_trainable_variables) == 4 and layer.trainable_variables == []


def test_add_loss_and_regularization_losses_reset_per_call():
    class WithLoss(layers.Layer):
        def call(self, x):
            self.add_loss(ops.sum(x))
            return x
    layer = WithLoss()
    layer(ops.ones((2, 2)))
    layer(ops.ones((2, 2)))
    assert len(layer.losses) == 1
    np.testing.assert_allclose(layer.losses[0].numpy(), 4.0)


def test_activity_regularizer_adds_a_loss():
    layer = layers.Dense(2, kernel_initializer="ones", activity_regularizer="l2")
    layer(ops.ones((1, 3)))
    (loss,) = layer.losses
    np.testing.assert_allclose(loss.numpy(), 0.01 * 2 * 9.0, rtol=1e-6)


def test_masks_propagate_through_supporting_layers():
    class MakeMask(layers.Layer):
        def call(self, x):
            return x

        def compute_mask(self, inputs, mask=None):
            return ops.not_equal(inputs[..., 0], 0.0)

    class ReadMask(layers.Layer):
        got = None

        def call(self, x, mask=None):
            ReadMask.got = mask
            return x
    x = np.array([[[1.0], [0.0], [2.0]]], "float32")
    y = layers.Dense(1, kernel_initializer="ones")(MakeMask()(x))
    ReadMask()(y)
    np.testing.assert_array_equal(ReadMask.got.numpy(), [[True, False, True]])


def test_auto_config_for_simple_custom_layers():
    config = Scale(3.0, name="sx").get_config()
    assert config["init"] == 3.0 and config["name"] == "sx"
    assert Scale.from_config(config).init == 3.0


def test_default_get_config_refuses_non_plain_arguments():
    class Holder(layers.Layer):
        def __init__(self, fn, **kwargs):
            super().__init__(**kwargs)
            self.fn = fn
    with pytest.raises(NotImplementedError, match=r"override get_config"):
        Holder(object()).get_config()


def test_compute_output_shape_without_real_data():
    assert layers.Dense(7).compute_output_shape((None, 3)) == (None, 7)
    out = Outer().compute_output_spec(lamina.layers.Input((5,)))
    assert out.shape == (None, 5)


def test_numpy_inputs_are_converted():
    y = layers.Dense(2)(np.ones((3, 4)))
    assert isinstance(y, lamina.Tensor) and y.dtype == "float32"


def test_float64_layer_computes_in_float64():
    layer = layers.Dense(2, dtype="float64")
    y = layer(np.ones((1, 3), "float32"))
    assert y.dtype == "float64" and layer.kernel.dtype == "float64"


def test_call_without_inputs_is_an_error():
    with pytest.raises(TypeError, match=r"called with its input tensor"):
        layers.Dense(2)()


@pytest.mark.parametrize("value", ["yes", 1, None])
def test_trainable_must_be_a_boolean(value):
    with pytest.raises(ValueError, match=r"Dense: Expected `trainable` to be a boolean; "
                                         r"received trainable="):
        layers.Dense(2, trainable=value)


def test_a_bare_layer_names_what_it_lacks():
    layer = layers.Layer()
    with pytest.raises(NotImplementedError, match=r"Layer Layer does not have a `call` method "
                                                  r"implemented."):
        layer.call(None)
    with pytest.raises(NotImplementedError, match=r"does not have a `compute_output_shape` "
                                                  r"method implemented."):
        layer.compute_output_shape(None)
