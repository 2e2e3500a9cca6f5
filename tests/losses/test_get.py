"""losses.get / serialize / deserialize: every Keras name and alias, configs as Keras writes
them, a round trip for every class, and the errors."""
import inspect

import numpy as np
import pytest

from lamina import losses
from lamina.losses import Loss
from lamina.losses.loss import BuiltinLoss
from lamina.registry import object_registration
from lamina.saving import UnknownObjectError, custom_object_scope

FUNCTION_NAMES = {
    "mse": "mean_squared_error", "MSE": "mean_squared_error",
    "mae": "mean_absolute_error", "MAE": "mean_absolute_error",
    "mape": "mean_absolute_percentage_error", "MAPE": "mean_absolute_percentage_error",
    "msle": "mean_squared_logarithmic_error", "MSLE": "mean_squared_logarithmic_error",
    "kld": "kl_divergence", "KLD": "kl_divergence",
    "kullback_leibler_divergence": "kl_divergence", "kl_divergence": "kl_divergence",
    "bce": "binary_crossentropy", "BCE": "binary_crossentropy",
    "binary_crossentropy": "binary_crossentropy",
    "categorical_crossentropy": "categorical_crossentropy",
    "sparse_categorical_crossentropy": "sparse_categorical_crossentropy",
    "binary_focal_crossentropy": "binary_focal_crossentropy",
    "categorical_focal_crossentropy": "categorical_focal_crossentropy",
    "huber": "huber", "huber_loss": "huber", "log_cosh": "log_cosh", "logcosh": "log_cosh",
    "hinge": "hinge", "squared_hinge": "squared_hinge",
    "categorical_hinge": "categorical_hinge", "poisson": "poisson",
    "cosine_similarity": "cosine_similarity",
}

# Keras 3's default names (Huber's is "huber_loss").
CLASS_NAMES = {
    "MeanSquaredError": "mean_squared_error", "MeanAbsoluteError": "mean_absolute_error",
    "MeanAbsolutePercentageError": "mean_absolute_percentage_error",
    "MeanSquaredLogarithmicError": "mean_squared_logarithmic_error",
    "CategoricalCrossentropy": "categorical_crossentropy",
    "SparseCategoricalCrossentropy": "sparse_categorical_crossentropy",
    "BinaryCrossentropy": "binary_crossentropy",
    "BinaryFocalCrossentropy": "binary_focal_crossentropy",
    "CategoricalFocalCrossentropy": "categorical_focal_crossentropy",
    "Huber": "huber_loss", "LogCosh": "log_cosh", "CosineSimilarity": "cosine_similarity",
    "Hinge": "hinge", "SquaredHinge": "squared_hinge", "CategoricalHinge": "categorical_hinge",
    "KLDivergence": "kl_divergence", "Poisson": "poisson", "CTC": "ctc", "Dice": "dice",
    "Tversky": "tversky", "Circle": "circle",
    "CategoricalGeneralizedCrossEntropy": "categorical_generalized_cross_entropy",
}


@pytest.mark.parametrize("name", sorted(FUNCTION_NAMES))
def test_function_names_give_the_functions(name):
    fn = losses.get(name)
    assert fn is getattr(losses, FUNCTION_NAMES[name])
    # Keras 3.15.1 writes a built-in loss function as a function dict
    assert losses.serialize(fn) == {"module": "builtins", "class_name": "function",
                                    "config": FUNCTION_NAMES[name],
                                    "registered_name": "function"}


@pytest.mark.parametrize("class_name", sorted(CLASS_NAMES))
def test_class_names_give_instances_with_keras_default_names(class_name):
    loss = losses.get(class_name)
    assert type(loss).__name__ == class_name and isinstance(loss, Loss)
    assert loss.name == CLASS_NAMES[class_name] and loss.reduction == "sum_over_batch_size"
    params = inspect.signature(type(loss)).parameters
    assert params["reduction"].default == "sum_over_batch_size"
    assert params["dtype"].default is None


def test_every_builtin_class_is_in_the_table():
    classes = {obj for obj in vars(losses).values() if isinstance(obj, type)
               and issubclass(obj, BuiltinLoss) and obj is not BuiltinLoss}
    assert {cls.__name__ for cls in classes} == set(CLASS_NAMES)
    assert all(losses.ALL_OBJECTS[cls.__name__] is cls for cls in classes)


ROUND_TRIP = [
    losses.CategoricalCrossentropy(from_logits=True, label_smoothing=0.1, axis=1,
                                   reduction="sum", name="cce"),
    losses.SparseCategoricalCrossentropy(from_logits=True, ignore_class=-1),
    losses.BinaryCrossentropy(label_smoothing=0.2, dtype="float64"),
    losses.BinaryFocalCrossentropy(apply_class_balancing=True, alpha=0.4, gamma=3.0),
    losses.CategoricalFocalCrossentropy(alpha=[0.1, 0.9], gamma=1.0, reduction=None),
    losses.MeanSquaredError(), losses.MeanAbsoluteError(reduction="mean"),
    losses.MeanAbsolutePercentageError(), losses.MeanSquaredLogarithmicError(),
    losses.Huber(delta=0.5), losses.LogCosh(), losses.CosineSimilarity(axis=0),
    losses.Hinge(), losses.SquaredHinge(), losses.CategoricalHinge(),
    losses.KLDivergence(reduction="mean_with_sample_weight"), losses.Poisson(),
    losses.CTC(reduction="sum"), losses.Dice(axis=(0,)), losses.Tversky(alpha=0.3, beta=0.7),
    losses.Circle(gamma=64.0, margin=0.25, remove_diagonal=False),
    losses.CategoricalGeneralizedCrossEntropy(q=0.7),
]


@pytest.mark.parametrize("loss", ROUND_TRIP, ids=lambda obj: type(obj).__name__)
def test_config_round_trip(loss):
    config = losses.serialize(loss)
    assert config["module"] == "keras.losses" and config["registered_name"] is None
    assert config["class_name"] == type(loss).__name__
    rebuilt = losses.deserialize(config)
    assert type(rebuilt) is type(loss) and rebuilt.get_config() == loss.get_config()
    assert losses.get(config).get_config() == loss.get_config()
    y = np.array([[0.2, 0.8], [0.6, 0.4]])
    if not isinstance(loss, (losses.SparseCategoricalCrossentropy, losses.CTC,
                             losses.Circle)):      # those need labels, not y
        np.testing.assert_allclose(rebuilt(y, y).numpy(), loss(y, y).numpy())


def test_configs_written_by_keras_load():
    keras3 = {"module": "keras.losses", "class_name": "CategoricalCrossentropy",
              "config": {"name": "categorical_crossentropy", "reduction": "sum_over_batch_size",
                         "from_logits": True, "label_smoothing": 0.0, "axis": -1},
              "registered_name": None}
    assert losses.get(keras3).from_logits is True
    tf_keras = {"class_name": "SparseCategoricalCrossentropy",
                "config": {"reduction": "auto", "name": "sparse_categorical_crossentropy",
                           "from_logits": False, "ignore_class": None}}
    assert losses.deserialize(tf_keras).reduction == "sum_over_batch_size"
    early_keras3 = {"class_name": "MeanSquaredError",
                    "config": {"name": "mse", "reduction": "sum", "fn": "mean_squared_error"}}
    assert losses.get(early_keras3).get_config() == {"name": "mse", "reduction": "sum"}
    function = {"module": "keras.losses", "class_name": "function", "config": "mse",
                "registered_name": "mse"}
    assert losses.deserialize(function) is losses.mean_squared_error


def test_family_table_wins_over_other_families(monkeypatch):
    class MeanSquaredErrorMetric:           # e.g. a metric registered under the same name
        @classmethod
        def from_config(cls, config):
            return cls()
    monkeypatch.setitem(object_registration._BUILTINS, "MeanSquaredError",
                        MeanSquaredErrorMetric)
    loss = losses.get({"class_name": "MeanSquaredError", "config": {}})
    assert isinstance(loss, losses.MeanSquaredError)


def test_none_instances_classes_and_callables():
    assert losses.get(None) is None
    loss = losses.Huber()
    assert losses.get(loss) is loss
    assert isinstance(losses.get(losses.Poisson), losses.Poisson)

    def my_loss(y_true, y_pred):
        return y_pred
    assert losses.get(my_loss) is my_loss
    with custom_object_scope({"my_loss": my_loss}):
        assert losses.get("my_loss") is my_loss
    assert losses.deserialize("my_loss", custom_objects={"my_loss": my_loss}) is my_loss


def test_errors():
    with pytest.raises(UnknownObjectError, match=r"losses.get: unknown loss 'typo' \(argument "
                                                 r"'identifier'\); Lamina has \d+ built-in "
                                                 r"losses \(lamina.losses\)"):
        losses.get("typo")
    with pytest.raises(UnknownObjectError, match=r"unknown loss 'Foo'.*Lamina has \d+ "
                                                 r"built-in losses"):
        losses.deserialize({"class_name": "Foo", "config": {}})
    with pytest.raises(TypeError, match="losses.get: could not interpret loss identifier 42"):
        losses.get(42)
    with pytest.raises(TypeError, match="losses.deserialize: argument 'config' must be a "
                                        "string or a dict"):
        losses.deserialize(3.5)
    import lamina.regularizers  # noqa: F401  (registers "L1" in the global registry)
    with pytest.raises(UnknownObjectError, match="unknown loss 'L1'"):
        losses.get("L1")
