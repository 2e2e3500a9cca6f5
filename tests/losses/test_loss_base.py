"""The Loss contract: names, dtypes, subclassing, LossFunctionWrapper and the errors."""
import pickle

import numpy as np
import pytest

from lamina import losses, ops
from lamina.errors import DTypeError
from lamina.losses import Loss, LossFunctionWrapper, MeanSquaredError
from lamina.saving import register_keras_serializable


class ScaledMSE(Loss):
    def __init__(self, scale=1.0, **kwargs):
        super().__init__(**kwargs)
        self.scale = scale

    def call(self, y_true, y_pred):
        return ops.multiply(ops.mean(ops.square(ops.subtract(y_true, y_pred)), axis=-1),
                            self.scale)

    def get_config(self):
        return {**super().get_config(), "scale": self.scale}


def test_subclass_contract_and_auto_name():
    loss = ScaledMSE(scale=2.0)
    assert loss.name.startswith("scaled_mse") and loss.reduction == "sum_over_batch_size"
    # per-sample mse: [1, 4] -> scaled [2, 8] -> mean 5
    np.testing.assert_allclose(loss([[0.0], [0.0]], [[1.0], [2.0]]).numpy(), 5.0, rtol=1e-6)
    assert ScaledMSE(name="mine").name == "mine"


def test_custom_subclass_round_trips_through_the_registry():
    registered = register_keras_serializable(package="LossTest")(ScaledMSE)
    config = losses.serialize(registered(scale=3.0, reduction="sum"))
    assert config["registered_name"] == "LossTest>ScaledMSE"
    rebuilt = losses.deserialize(config)
    assert isinstance(rebuilt, ScaledMSE)
    assert (rebuilt.scale, rebuilt.reduction) == (3.0, "sum")


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_dtype_argument_sets_the_computation_dtype(dtype):
    loss = MeanSquaredError(dtype=dtype)
    out = loss(np.array([[1.0, 2.0]]), np.array([[0.0, 0.0]], dtype="float32"))
    assert loss.dtype == dtype and out.dtype == dtype
    np.testing.assert_allclose(out.numpy(), 2.5)


def test_default_dtype_is_floatx_even_for_float64_inputs():
    # Keras casts both arguments to the loss's dtype (floatx() unless given).
    out = MeanSquaredError()(np.zeros((2, 2)), np.ones((2, 2)))
    assert out.dtype == "float32"


def test_dtype_policy_objects_and_configs():
    class Policy:
        compute_dtype = "float64"
    assert MeanSquaredError(dtype=Policy()).dtype == "float64"
    policy = {"module": "keras", "class_name": "DTypePolicy", "config": {"name": "float64"}}
    assert MeanSquaredError(dtype=policy).dtype == "float64"
    assert MeanSquaredError(dtype="mixed_float16").dtype == "float16"


def test_config_holds_dtype_only_when_given():
    assert MeanSquaredError().get_config() == {"name": "mean_squared_error",
                                               "reduction": "sum_over_batch_size"}
    assert MeanSquaredError(dtype="float64").get_config()["dtype"] == "float64"
    assert MeanSquaredError.from_config(MeanSquaredError(dtype="float64").get_config()
                                        ).dtype == "float64"


def test_tf_keras_2_reduction_auto_loads():
    config = {"reduction": "auto", "name": "mean_squared_error"}
    assert MeanSquaredError.from_config(config).reduction == "sum_over_batch_size"


def test_loss_function_wrapper_with_keyword_arguments():
    def scaled_abs(y_true, y_pred, scale=1.0):
        return ops.multiply(ops.mean(ops.abs(ops.subtract(y_true, y_pred)), axis=-1), scale)
    loss = LossFunctionWrapper(scaled_abs, reduction="sum", name="scaled", scale=10.0)
    # (batch,) labels meet (batch, 1) predictions: |1 - 0.5| + |2 - 1| = 1.5, * 10
    np.testing.assert_allclose(loss([1.0, 2.0], [[0.5], [1.0]]).numpy(), 15.0, rtol=1e-6)
    assert loss.get_config()["scale"] == 10.0


def test_loss_function_wrapper_config_round_trip():
    wrapper = LossFunctionWrapper(losses.huber, reduction="sum", name="h", delta=0.5)
    config = losses.serialize(wrapper)
    # as Keras 3.15.1's LossFunctionWrapper writes it: the function as a function dict
    assert config["config"] == {"name": "h", "reduction": "sum", "delta": 0.5,
                                "fn": {"module": "builtins", "class_name": "function",
                                       "config": "huber", "registered_name": "function"}}
    rebuilt = losses.deserialize(config)
    assert rebuilt.fn is losses.huber and rebuilt.get_config() == wrapper.get_config()
    keras_style = {"name": "h", "reduction": "sum", "delta": 0.5,
                   "fn": {"module": "keras.losses", "class_name": "function",
                          "config": "huber", "registered_name": "huber"}}
    assert LossFunctionWrapper.from_config(keras_style).fn is losses.huber


def test_built_in_classes_expose_their_arguments():
    loss = losses.CategoricalCrossentropy(from_logits=True, label_smoothing=0.1, axis=1)
    assert (loss.from_logits, loss.label_smoothing, loss.axis) == (True, 0.1, 1)
    assert repr(losses.Huber(0.5)) == ("Huber(name='huber_loss', reduction="
                                       "'sum_over_batch_size', delta=0.5)")


def test_losses_pickle():
    assert pickle.loads(pickle.dumps(losses.get("mse"))) is losses.mean_squared_error
    loss = pickle.loads(pickle.dumps(losses.Huber(delta=2.0, reduction="sum")))
    assert (loss.delta, loss.reduction, loss.fn) == (2.0, "sum", losses.huber)


def test_errors():
    with pytest.raises(NotImplementedError, match="Loss: Loss subclasses must implement "
                                                  r"call\(y_true, y_pred\)"):
        Loss()([1.0], [1.0])
    with pytest.raises(TypeError, match="MeanSquaredError: argument 'name' must be a string "
                                        "or None; received 3"):
        MeanSquaredError(name=3)
    with pytest.raises(DTypeError, match=r"MeanSquaredError: argument 'dtype' must be a float "
                                         r"dtype \('float16', 'bfloat16', 'float32', 'float64'\); "
                                         r"received 'int32'"):
        MeanSquaredError(dtype="int32")
    with pytest.raises(DTypeError, match="LogCosh: argument 'dtype' must be a float dtype "
                                         r"\('float16', 'bfloat16', 'float32', 'float64'\); "
                                         "received 'double precision'"):
        losses.LogCosh(dtype="double precision")
    with pytest.raises(TypeError, match="LossFunctionWrapper: argument 'fn' must be a function "
                                        r"\(y_true, y_pred\) -> per-sample losses; received 3"):
        LossFunctionWrapper(3)


def test_huber_and_cosine_configs_leave_out_defaults_as_keras_does():
    # Keras 3.15.1: Huber(reduction="sum", name="huber").get_config() and
    # CosineSimilarity().get_config() are {"name", "reduction"} only.
    assert losses.Huber(reduction="sum", name="huber").get_config() == \
        {"name": "huber", "reduction": "sum"}
    assert losses.CosineSimilarity().get_config() == \
        {"name": "cosine_similarity", "reduction": "sum_over_batch_size"}
    # Keras drops these even when set; Lamina keeps a value other than the default.
    huber = losses.Huber.from_config(losses.Huber(delta=0.5).get_config())
    cosine = losses.CosineSimilarity.from_config(losses.CosineSimilarity(axis=0).get_config())
    assert (huber.delta, cosine.axis) == (0.5, 0)
