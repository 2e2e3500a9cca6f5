import json

import numpy as np
import pytest

import lamina
from lamina import layers, ops
from tests.layers.harness import LayerCase, case_id, run_layer_case
from tests.layers.recurrent.helpers import Make, fresh

CASES = [
    LayerCase(layers.Pipeline, dict(layers=[Make(layers.Dense, 3),
                                            Make(layers.LayerNormalization)]),
              (2, 4), (2, 3), trainable_weights=4, params=21),
]


@pytest.mark.parametrize("case", CASES, ids=case_id)
def test_pipeline_harness(case):
    run_layer_case(fresh(case))


class Recorder(layers.Layer):
    def call(self, inputs, training=None, mask=None):
        self.seen = (training, mask)
        return inputs


def test_training_defaults_to_true_and_masks_pass_on():
    first, second = Recorder(), Recorder()
    pipeline = layers.Pipeline([first, second])
    x = ops.convert_to_tensor(np.zeros((1, 2), "float32"))
    pipeline(x, mask=ops.convert_to_tensor(np.array([True])))
    assert first.seen[0] is True and first.seen[1] is not None
    assert second.seen[0] is True
    pipeline(x, training=False)
    assert first.seen[0] is False
    model = lamina.Sequential([layers.Input((2,)), pipeline])
    model.predict(np.zeros((1, 2), "float32"), verbose=0)
    assert first.seen[0] is False                  # inference inside a model


def test_config_is_keras_shaped_and_round_trips():
    pipeline = layers.Pipeline([layers.Dense(2), layers.Activation("relu")], name="pipe")
    config = pipeline.get_config()
    assert set(config) == {"layers", "name"} and config["name"] == "pipe"
    assert [c["class_name"] for c in config["layers"]] == ["Dense", "Activation"]
    json.dumps(config)
    clone = layers.Pipeline.from_config(config)
    assert [type(layer) for layer in clone.layers] == [layers.Dense, layers.Activation]


def test_errors():
    with pytest.raises(ValueError, match="the config must map 'layers' to a list"):
        layers.Pipeline.from_config({"name": "p"})
    with pytest.raises(ValueError, match="argument 'layers' must be a list of Layer"):
        layers.Pipeline([lambda x: x])
