"""Graphs exported before the loop node was renamed ("scan" -> "step_loop", when
``lamina.ops.scan`` became Keras's function) still load and run."""
import json

import h5py
import numpy as np
import pytest

import lamina
from lamina import layers
from lamina.graph import load_exported
from lamina.graph.export import graph_digest


# The loop under test is the scan: LSTM and GRU run theirs with oneDNN's whole-sequence ops
# off (those are tested in tests/layers/recurrent/test_lstm_gru_onednn.py).
pytestmark = pytest.mark.usefixtures("numpy_kernels")


def _rename(path, old: str, new: str) -> int:
    with h5py.File(path, "r+") as f:
        nodes = [json.loads(t) for t in f["graph/nodes"].asstr()[()]]
        count = 0
        for node in nodes:
            if node["op"] == old:
                node["op"], count = new, count + 1
        del f["graph/nodes"]
        texts = [json.dumps(n) for n in nodes]
        f["graph"].create_dataset("nodes", data=texts, dtype=h5py.string_dtype())
        f.attrs["graph_sha256"] = graph_digest(texts, f["graph/signature"].asstr()[()])
    return count


def test_an_exported_loop_under_its_old_name_loads(tmp_path):
    lamina.utils.set_random_seed(0)
    model = lamina.Sequential([lamina.Input((5, 3)), layers.LSTM(4), layers.Dense(2)])
    x = np.random.default_rng(0).standard_normal((4, 5, 3)).astype("float32")
    path = tmp_path / "m.h5"
    model.export(path)
    assert _rename(path, "step_loop", "scan") == 1
    np.testing.assert_allclose(load_exported(path)(x), model.predict(x, verbose=0),
                               rtol=1e-5, atol=1e-6)
