"""Sets every variable of a model from a seeded generator, in the model's weight order: the
same values tests/fixtures/applications/make_keras_references.py gave the Keras models whose
outputs keras_references.json holds (so the outputs can be compared without checking in
large weight files)."""
import json
import os
import re

import numpy as np

FIXTURES = os.path.join(os.path.dirname(__file__), "..", "fixtures", "applications")


def keras_references() -> dict:
    with open(os.path.join(FIXTURES, "keras_references.json")) as f:
        return json.load(f)


def layer_of(variable):
    return variable.path.split("/")[0]


def set_weights_by_formula(model, seed=7):
    """Values drawn in weight order; the mean and variance of EfficientNet's Normalization
    layer are drawn but left at zeros and ones (Keras's Normalization reads its statistics
    into constants when built or loaded, so assigning them would not change its outputs)."""
    rng = np.random.default_rng(seed)
    for variable in model.weights:
        shape = tuple(variable.shape)
        leaf = variable.path.split("/")[-1]
        if shape == ():
            continue
        if leaf in ("moving_variance", "variance"):
            value = rng.uniform(0.5, 1.5, shape)
        elif leaf == "gamma":
            value = rng.uniform(0.8, 1.2, shape)
        elif len(shape) > 1:
            depthwise = len(shape) == 4 and shape[-1] == 1
            fan_in = int(np.prod(shape[:2] if depthwise else shape[:-1]))
            value = rng.normal(0.0, np.sqrt(2.0 / fan_in), shape)
        else:
            value = rng.normal(0.0, 0.1, shape)
        if not re.fullmatch(r"normalization(_\d+)?", layer_of(variable)):
            variable.assign(value.astype("float32"))


def layers_of(model):
    """(name, class name, weight shapes) of every layer, as the reference lists them."""
    return [[layer.name, type(layer).__name__, [list(w.shape) for w in layer.weights]]
            for layer in model.layers]


def _snake(class_name):
    name = re.sub("(.)([A-Z][a-z]+)", r"\1_\2", class_name)
    return re.sub("([a-z])([A-Z])", r"\1_\2", name).lower()


def without_counters(layers):
    """`layers_of` with the session counter dropped from automatic names ('re_lu_12' ->
    're_lu'): the builders leave those layers unnamed, as Keras's do, so the number depends
    on how many such layers were made before."""
    out = []
    for name, class_name, shapes in layers:
        base = re.sub(r"_\d+$", "", name)
        out.append([base if base == _snake(class_name) else name, class_name, shapes])
    return out
