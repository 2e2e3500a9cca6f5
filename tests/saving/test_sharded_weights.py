"""Sharded weights (``save_weights("w.weights.json", max_shard_size=GB)``), in Keras 3's
layout: shards ``w_00000.weights.h5``, ... beside a JSON index."""
import json
import os
import pathlib
import warnings

import numpy as np
import pytest

import lamina
from lamina import layers

FIXTURE = pathlib.Path(__file__).resolve().parent.parent / "fixtures" / "keras_files" / \
    "sharded" / "mlp.weights.json"


def setup_function():
    lamina.backend.clear_session(free_memory=False)


def _mlp():
    return lamina.Sequential([lamina.Input((3,)), layers.Dense(4), layers.Dense(2)])


def _arange_weights(model):
    return [np.arange(np.prod(w.shape), dtype="float32").reshape(w.shape) + 10 * i
            for i, w in enumerate(model.get_weights())]


def test_keras_shards_load_even_with_a_group_split_over_two_files():
    model = _mlp()
    model.load_weights(FIXTURE)
    for got, want in zip(model.get_weights(), _arange_weights(model)):
        np.testing.assert_array_equal(got, want)


def test_small_shards_round_trip_in_keras_layout(tmp_path):
    model = _mlp()
    model.set_weights(_arange_weights(model))
    path = tmp_path / "mlp.weights.json"
    model.save_weights(path, max_shard_size=50 / 1024 ** 3)
    index = json.loads(path.read_text())
    # the same cut as Keras's fixture: 48 + 16 + 32 + 8 bytes into 50-byte shards
    assert index == json.loads(FIXTURE.read_text())
    assert sorted(os.listdir(tmp_path)) == ["mlp.weights.json", "mlp_00000.weights.h5",
                                            "mlp_00001.weights.h5", "mlp_00002.weights.h5"]
    clone = _mlp()
    clone.load_weights(path)
    for got, want in zip(clone.get_weights(), model.get_weights()):
        np.testing.assert_array_equal(got, want)


def test_one_shard_when_everything_fits_and_a_weights_h5_name_is_renamed(tmp_path):
    model = _mlp()
    with pytest.warns(UserWarning, match=r"requires `\*.json` as the extension"):
        model.save_weights(tmp_path / "w.weights.h5", max_shard_size=1)
    assert sorted(os.listdir(tmp_path)) == ["w.weights.json", "w_00000.weights.h5"]


def test_size_and_name_errors(tmp_path):
    model = _mlp()
    with pytest.raises(ValueError, match=r"exceeds the maximum shard size"):
        model.save_weights(tmp_path / "w.weights.json", max_shard_size=8 / 1024 ** 3)
    with pytest.raises(ValueError, match=r"must end in `.weights.json` when "
                                         r"`max_shard_size` is specified"):
        model.save_weights(tmp_path / "w.h5", max_shard_size=1)
    with pytest.raises(ValueError, match=r"'max_shard_size' must be a positive number"):
        model.save_weights(tmp_path / "w.weights.json", max_shard_size=0)


def test_an_index_naming_a_file_elsewhere_is_refused(tmp_path):
    index = {"metadata": {"total_size": 0}, "weight_map": {"/vars": ["../x.weights.h5"]}}
    path = tmp_path / "w.weights.json"
    path.write_text(json.dumps(index))
    with pytest.raises(ValueError, match=r"a shard must be a .h5 file name in the index's "
                                         r"folder"):
        _mlp().load_weights(path)
