"""The new metrics against values computed by Keras 3 (tests/metrics/keras_reference.json,
written by tests/fixtures/make_metric_references.py): three update_state calls (the last
two weighted), the result after each, after reset_state, after a fresh update, and the
serialized config."""
import json
import os
import re
import warnings

import numpy as np
import pytest

from lamina import metrics

with open(os.path.join(os.path.dirname(__file__), "keras_reference.json")) as f:
    REFERENCE = json.load(f)

CASES = REFERENCE["metrics"]
FUNCTIONS = REFERENCE["functions"]


def case_id(case):
    args = ",".join(f"{k}={v}" for k, v in case["kwargs"].items())
    return f"{case['class_name']}({args})"


def make(case):
    return getattr(metrics, case["class_name"])(**case["kwargs"])


def close(actual, expected):
    np.testing.assert_allclose(np.asarray(actual, dtype="float64"), expected,
                               rtol=2e-5, atol=2e-6)


@pytest.mark.parametrize("case", CASES, ids=case_id)
def test_updates_results_and_reset_match_keras(case):
    metric = make(case)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")            # float weights with an int IoU matrix
        for update, expected in zip(case["updates"], case["results"]):
            metric.update_state(update["y_true"], update["y_pred"],
                                sample_weight=update["sample_weight"])
            close(metric.result().numpy(), expected)
        metric.reset_state()
        close(metric.result().numpy(), case["after_reset"])
        fresh = case["fresh_update"]
        metric.update_state(fresh["y_true"], fresh["y_pred"])
        close(metric.result().numpy(), fresh["result"])


@pytest.mark.parametrize("case", CASES, ids=case_id)
def test_config_is_what_keras_writes(case):
    metric = make(case)
    config = json.loads(json.dumps(metrics.serialize(metric)))
    expected = {**case["config"], "config": dict(case["config"]["config"])}
    # Unnamed metrics get a name made unique per process ("mean_io_u_2"): compare the stem.
    stem = re.sub(r"_\d+$", "", expected["config"].pop("name"))
    assert re.sub(r"_\d+$", "", config["config"].pop("name")) == stem
    assert config == expected
    restored = metrics.deserialize(config)
    assert type(restored) is type(metric)
    assert restored.get_config() == {**metric.get_config(), "name": restored.name}


@pytest.mark.parametrize("case", FUNCTIONS,
                         ids=lambda c: f"{c['name']}({c['kwargs']})")
def test_metric_functions_match_keras(case):
    fn = getattr(metrics, case["name"])
    close(fn(case["y_true"], case["y_pred"], **case["kwargs"]).numpy(), case["result"])
