"""compile(loss="crossentropy") / "ce": the crossentropy the shapes call for, as Keras 3
decides it (keras/src/trainers/compile_utils.py, get_loss)."""
import numpy as np
import pytest

import lamina
from lamina import losses
from lamina.losses.auto_crossentropy import AutoCrossentropy, crossentropy_for

PROBS = np.array([[0.7, 0.2, 0.1], [0.1, 0.3, 0.6], [0.25, 0.5, 0.25]])
# (y_true, y_pred, the function Keras picks, Keras 3.15.1's loss, with weights [1, 2, 0.5(, 0)])
CASES = {
    "binary": (np.array([[1.0], [0.0], [1.0], [0.0]]), np.array([[0.9], [0.2], [0.6], [0.4]]),
               "binary_crossentropy", 0.33753880858421326, 0.20176509022712708),
    "sparse_lower_rank": (np.array([0, 2, 1]), PROBS, "sparse_categorical_crossentropy",
                          0.5202159285545349, 0.5749666094779968),
    "sparse_last_dim_1": (np.array([[0], [2], [1]]), PROBS, "sparse_categorical_crossentropy",
                          0.5202159285545349, 0.5749666094779968),
    "categorical": (np.eye(3)[[0, 2, 1]], PROBS, "categorical_crossentropy",
                    0.5202159285545349, 0.5749666094779968),
}


@pytest.mark.parametrize("key", sorted(CASES))
def test_shapes_choose_the_crossentropy_as_keras_does(key):
    y_true, y_pred, fn_name, unweighted, weighted = CASES[key]
    assert crossentropy_for(y_true.shape, y_pred.shape).__name__ == fn_name
    loss = losses.get("crossentropy")
    assert isinstance(loss, AutoCrossentropy) and loss.name == "crossentropy"
    np.testing.assert_allclose(float(loss(y_true, y_pred)), unweighted, rtol=1e-6)
    weights = np.array([1.0, 2.0, 0.5, 0.0])[:len(y_true)]
    np.testing.assert_allclose(float(loss(y_true, y_pred, sample_weight=weights)), weighted,
                               rtol=1e-6)


def test_aliases_any_case_and_config_round_trip():
    for name in ("crossentropy", "ce", "CE", "Crossentropy"):
        assert isinstance(losses.get(name), AutoCrossentropy)
    loss = AutoCrossentropy(reduction="sum")
    config = lamina.saving.serialize_keras_object(loss)
    assert config["config"] == {"name": "crossentropy", "reduction": "sum"}
    revived = losses.deserialize(config)
    assert isinstance(revived, AutoCrossentropy) and revived.reduction == "sum"


def test_compile_with_crossentropy_trains_like_the_explicit_loss():
    x = np.array([[0.5, -1.0], [1.5, 0.3], [-0.2, 0.8], [1.0, 1.0]], "float32")
    y = np.array([0, 2, 1, 2])

    def model(loss):
        lamina.utils.set_random_seed(3)
        m = lamina.Sequential([lamina.layers.Input((2,)),
                               lamina.layers.Dense(3, activation="softmax")])
        m.compile(optimizer="sgd", loss=loss)
        return m
    auto, explicit = model("crossentropy"), model("sparse_categorical_crossentropy")
    np.testing.assert_allclose(auto.fit(x, y, epochs=2, verbose=0).history["loss"],
                               explicit.fit(x, y, epochs=2, verbose=0).history["loss"],
                               rtol=1e-6)
