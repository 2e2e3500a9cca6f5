"""Issue 24 item 7: an unknown string identifier says which names it is close to, and lists
the valid names only when there are few of them."""
import re

import numpy as np
import pytest

import lamina
from lamina import layers
from lamina.registry import UnknownObjectError


def _fit_with_a_misspelt_metric():
    model = lamina.Sequential([lamina.Input((3,)), layers.Dense(2)])
    model.compile("sgd", "mse", metrics=["acuracy"])
    model.fit(np.zeros((4, 3)), np.zeros((4, 2)), verbose=0)


@pytest.mark.parametrize("make, message", [
    (_fit_with_a_misspelt_metric, r"did you mean 'accuracy'\?"),
    (lambda: lamina.metrics.get("acuracy"),
     r"unknown metric 'acuracy' \(argument 'identifier'\); did you mean 'accuracy'\? Lamina "
     r"has \d+ built-in metrics \(lamina\.metrics\); or register your own"),
    (lambda: lamina.losses.get("mean_sqared_error"), r"did you mean 'mean_squared_error'\?"),
    (lambda: lamina.optimizers.get("adm"), r"did you mean 'adam', 'nadam' or 'adamw'\?"),
    (lambda: layers.Dense(2, activation="rleu"), r"did you mean 'relu'\?"),
    (lambda: layers.Dense(2, kernel_initializer="glorot_unifrom"),
     r"did you mean 'glorot_uniform'\?"),
    (lambda: layers.Dense(2, kernel_constraint="nonneg"),
     r"did you mean 'non_neg'\? Lamina's built-in constraints are 'Constraint', 'MaxNorm'"),
    (lambda: layers.Dense(2, kernel_regularizer="L_2"), r"did you mean 'L2'\?"),
    (lambda: layers.deserialize({"class_name": "Dens", "config": {"units": 2}}),
     r"unknown layer 'Dens'.*did you mean 'Dense'\? Lamina has \d+ built-in layers"),
], ids=["compile-fit", "metric", "loss", "optimizer", "activation", "initializer",
        "constraint", "regularizer", "layer-config"])
def test_unknown_names_suggest_the_close_ones(make, message):
    with pytest.raises(UnknownObjectError) as info:
        make()
    text = str(info.value)
    assert "did you mean" in text and len(text) < 400
    assert re.search(message, text), text
