"""model.export writes the optimized inference graph and weights to one h5 file;
lamina.graph.load_exported runs it with the op registry alone."""
import importlib.util
import json
import os
import pathlib
import subprocess
import sys
import textwrap

import h5py
import numpy as np
import pytest

import lamina
from lamina import layers, ops
from lamina.errors import DTypeError, ShapeError
from lamina.graph import ExportError, load_exported
from lamina.graph.export import graph_digest
from lamina.graph.export_codec import decode, encode

ROOT = pathlib.Path(__file__).resolve().parents[2]
TOL = dict(rtol=1e-5, atol=1e-6)

MODEL_SOURCE = textwrap.dedent('''
    """A model whose code exists only in this file: a custom layer and a builder."""
    import lamina
    from lamina import layers, ops

    class ScaleShift(lamina.Layer):
        def build(self, input_shape):
            self.scale = self.add_weight(shape=(input_shape[-1],), initializer="ones",
                                         name="scale")
            self.shift = self.add_weight(shape=(input_shape[-1],), initializer="zeros",
                                         name="shift")

        def call(self, inputs):
            return ops.tanh(inputs * self.scale + self.shift)

    def build():
        lamina.utils.set_random_seed(5)
        inputs = lamina.Input((8, 8, 1))
        x = layers.Conv2D(4, 3, padding="same", activation="relu")(inputs)
        x = layers.BatchNormalization()(x)
        x = layers.MaxPooling2D()(x)
        x = layers.Flatten()(x)
        x = ScaleShift()(layers.Dense(6)(x))
        x = layers.Dropout(0.5, seed=1)(x)
        return lamina.Model(inputs, layers.Dense(3, activation="softmax")(x))
''')


def _load_module(folder):
    path = folder / "private_model_defs.py"
    path.write_text(MODEL_SOURCE)
    spec = importlib.util.spec_from_file_location("private_model_defs", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _trained(model, x):
    """Weights and batch-norm statistics moved away from their initial values."""
    model.compile(optimizer="adam", loss="sparse_categorical_crossentropy")
    model.fit(x, np.arange(len(x)) % 3, batch_size=4, epochs=2, verbose=0)
    return model


def _images(rows, seed=0):
    return np.random.default_rng(seed).standard_normal((rows, 8, 8, 1)).astype("float32")


def test_a_fresh_process_runs_the_export_without_the_models_module(tmp_path):
    defs = tmp_path / "defs"
    defs.mkdir()
    model = _trained(_load_module(defs).build(), _images(12))
    path, x = tmp_path / "model.h5", _images(9, seed=1)
    model.export(path, x=x[:4])
    np.save(tmp_path / "x.npy", x)
    script = textwrap.dedent(f"""
        import importlib.util, sys
        import numpy as np
        import lamina.graph
        assert importlib.util.find_spec("private_model_defs") is None
        exported = lamina.graph.load_exported({str(path)!r})
        np.save({str(tmp_path / "y.npy")!r}, exported(np.load({str(tmp_path / "x.npy")!r})))
        assert "private_model_defs" not in sys.modules
        print(exported)
    """)
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    run = subprocess.run([sys.executable, "-c", script], cwd=str(tmp_path), env=env,
                         capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, run.stderr
    assert "batch size 4" in run.stdout
    np.testing.assert_allclose(np.load(tmp_path / "y.npy"), model.predict(x, verbose=0),
                               **TOL)


def test_the_file_holds_the_optimized_inference_graph(tmp_path):
    model = _trained(_load_module(tmp_path).build(), _images(12))
    x = _images(4)
    model.export(tmp_path / "m.h5", x=x)
    graph = model.graph(x, batch_polymorphic=False)         # export traces at x's size
    with h5py.File(tmp_path / "m.h5", "r") as f:
        assert f.attrs["format"] == "lamina.exported_graph" and f.attrs["batch_size"] == 4
        nodes = [json.loads(t) for t in f["graph/nodes"].asstr()[()]]
        assert len(f["variables"]) == len(graph.variables)
        paths = {f["variables"][k].attrs["path"] for k in f["variables"]}
    assert [n["op"] for n in nodes] == [n.op.name for n in graph.nodes]
    assert [decode(n["attrs"]) for n in nodes] == [n.attrs for n in graph.nodes]
    assert all(n["op"] in ops.OP_REGISTRY for n in nodes)
    assert not any("dropout" in (n["layer"] or "") for n in nodes)   # inference: no dropout
    assert any(p.endswith("moving_mean") for p in paths) or len(nodes) < len(
        model.graph(x, passes=[]).nodes)                            # BN kept or folded
    exported = load_exported(tmp_path / "m.h5")
    assert len(exported.graph.nodes) == len(graph.nodes)
    assert lamina.graph.to_dot(exported.graph).count("shape=box") == len(graph.nodes)


@pytest.mark.parametrize("rows", [4, 1, 10])
def test_any_number_of_rows_runs_in_batches_of_the_traced_size(tmp_path, rows):
    model = _trained(_load_module(tmp_path).build(), _images(12))
    model.export(tmp_path / "m.h5", x=_images(4))
    exported = load_exported(tmp_path / "m.h5")
    x = _images(rows, seed=rows)
    out = exported(x)
    assert out.shape == (rows, 3) and isinstance(out, np.ndarray)
    np.testing.assert_allclose(out, model.predict(x, verbose=0), **TOL)
    np.testing.assert_allclose(exported(lamina.ops.convert_to_tensor(x)), out, **TOL)


def test_structures_recurrent_loops_and_the_default_example(tmp_path):
    lamina.utils.set_random_seed(1)
    sequence, extra = lamina.Input((5, 3), name="seq"), lamina.Input((2,), name="extra")
    h = layers.LSTM(4, return_sequences=True)(sequence)
    h = layers.GRU(3, go_backwards=True)(h)
    both = layers.Concatenate()([h, extra])
    model = lamina.Model([sequence, extra], {"score": layers.Dense(1)(both), "hidden": h})
    model.export(tmp_path / "rnn.h5")                          # batch 1: zeros of the inputs
    exported = load_exported(tmp_path / "rnn.h5")
    assert exported.batch_size == 1
    rng = np.random.default_rng(2)
    x = [rng.standard_normal((3, 5, 3)).astype("float32"),
         rng.standard_normal((3, 2)).astype("float32")]
    got, want = exported(x), model.predict(x, verbose=0)
    assert isinstance(got, dict) and sorted(got) == ["hidden", "score"]
    for key in want:
        np.testing.assert_allclose(got[key], want[key], **TOL)
    assert [name for name, _, _ in exported.input_specs] == ["seq", "extra"]


def test_dict_inputs_keep_their_keys(tmp_path):
    a, b = lamina.Input((3,), name="a"), lamina.Input((2,), name="b")
    model = lamina.Model({"a": a, "b": b}, layers.Dense(1)(layers.Concatenate()([a, b])),
                         name="keyed")
    model.export(tmp_path / "k.h5", batch_size=2)
    exported = load_exported(tmp_path / "k.h5")
    x = {"b": np.ones((3, 2), "float32"), "a": np.arange(9, dtype="float32").reshape(3, 3)}
    np.testing.assert_allclose(exported(x), model.predict(x, verbose=0), **TOL)
    with pytest.raises(ValueError, match=r"exported model 'keyed': inputs must be a dict with "
                                         r"keys \['a', 'b'\]; received list"):
        exported([x["a"], x["b"]])


def test_inputs_are_checked(tmp_path):
    model = lamina.Sequential([lamina.Input((3,), name="features"), layers.Dense(2)],
                              name="small")
    model.export(tmp_path / "s.h5", batch_size=2)
    exported = load_exported(tmp_path / "s.h5")
    with pytest.raises(ShapeError, match=r"exported model 'small': input 'features' must "
                                         r"have shape \(None, 3\); received \(2, 4\)"):
        exported(np.zeros((2, 4), "float32"))
    with pytest.raises(ValueError, match=r"expected 1 input array\(s\) \['features'\]; "
                                         r"received 2"):
        exported([np.zeros((2, 3)), np.zeros((2, 3))])
    np.testing.assert_allclose(exported(np.ones((2, 3))), model.predict(np.ones((2, 3)),
                                                                         verbose=0), **TOL)
    ints = lamina.Sequential([lamina.Input((3,), dtype="int32"), layers.Embedding(5, 2)])
    ints.export(tmp_path / "i.h5")
    with pytest.raises(DTypeError, match=r"input '\w+' must be int32; received float"):
        load_exported(tmp_path / "i.h5")(np.zeros((1, 3), "float32"))
    with pytest.raises(ValueError, match=r"pass an example input 'x' or a 'batch_size'"):
        model.export(tmp_path / "x.h5", x=np.ones((2, 3)), batch_size=2)
    with pytest.raises(ExportError, match=r"the model's input shapes are not known; pass an "
                                          r"example input batch 'x'"):
        lamina.Sequential([layers.Dense(2)]).export(tmp_path / "y.h5")


def test_outputs_without_a_batch_dimension_run_only_at_the_traced_size(tmp_path):
    inputs = lamina.Input((3,))
    model = lamina.Model(inputs, layers.Lambda(lambda t: ops.sum(t))(inputs), name="total")
    model.export(tmp_path / "t.h5", x=np.ones((2, 3), "float32"))
    exported = load_exported(tmp_path / "t.h5")
    np.testing.assert_allclose(exported(np.ones((2, 3), "float32")), 6.0)
    with pytest.raises(ShapeError, match=r"traced at batch size 2 .* runs only on 2 rows; "
                                         r"received 3"):
        exported(np.ones((3, 3), "float32"))


def test_export_is_atomic_and_never_leaves_a_broken_file(tmp_path, monkeypatch):
    model = lamina.Sequential([lamina.Input((3,)), layers.Dense(2)])
    target = tmp_path / "m.h5"
    model.export(target)
    before = target.read_bytes()

    def broken(self):
        raise OSError("disk full")
    monkeypatch.setattr(lamina.Variable, "numpy", broken)
    with pytest.raises(OSError, match="disk full"):
        model.export(target)
    monkeypatch.undo()
    assert target.read_bytes() == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["m.h5"]
    with pytest.raises(lamina.saving.errors.SavedFileNotFoundError, match="does not exist"):
        model.export(tmp_path / "missing" / "m.h5")


def _tamper(path, edit):
    with h5py.File(path, "r+") as f:
        nodes = [json.loads(t) for t in f["graph/nodes"].asstr()[()]]
        edit(nodes, f)
        del f["graph/nodes"]
        texts = [json.dumps(n) for n in nodes]
        f["graph"].create_dataset("nodes", data=texts, dtype=h5py.string_dtype())
        # A crafted file, not a damaged one: its digest matches, so the rebuild checks run.
        f.attrs["graph_sha256"] = graph_digest(texts, f["graph/signature"].asstr()[()])


def test_load_errors_are_typed(tmp_path):
    model = lamina.Sequential([lamina.Input((3,)), layers.Dense(2, activation="tanh")])
    path = tmp_path / "m.h5"
    model.export(path)
    _tamper(path, lambda nodes, f: nodes[0].update(op="no_such_op"))
    with pytest.raises(ExportError, match=r"node 0 uses op 'no_such_op', which is not in the "
                                          r"op registry \(a custom op\?"):
        load_exported(path)
    model.export(path)
    _tamper(path, lambda nodes, f: nodes[0]["outputs"][0].__setitem__(1, "float64"))
    with pytest.raises(ExportError, match=r"the op changed since the export"):
        load_exported(path)
    model.export(path)
    _tamper(path, lambda nodes, f: nodes[0]["inputs"].__setitem__(0, "node:99:0"))
    with pytest.raises(ExportError, match=r"refers to 'node:99:0', which no earlier node"):
        load_exported(path)
    with h5py.File(tmp_path / "other.h5", "w") as f:
        f.attrs["format"] = "something else"
    with pytest.raises(ExportError, match=r"is not a graph written by model.export"):
        load_exported(tmp_path / "other.h5")


def test_export_refuses_graphs_with_state_updates(tmp_path):
    counter = lamina.Variable(0.0, name="calls")

    def f(x):
        counter.assign_add(1.0)
        return x * 2.0
    graph = lamina.jit(f).trace(ops.ones((2,)))
    from lamina.graph.export import write_graph
    with pytest.raises(ExportError, match=r"writes variables \(calls\); only graphs without "
                                          r"state updates can be exported"):
        write_graph(graph, tmp_path / "f.h5", name="f")


def test_attribute_codec_keeps_tuples_and_rejects_other_objects():
    value = {"strides": (1, (2, 3)), "pads": [(0, 1)], "axis": None, "p": float("inf"),
             "name": "same", "flag": True, "nested": {"k": (1,)}}
    text = json.dumps(encode(value, "test"))
    assert decode(json.loads(text)) == value
    assert isinstance(decode(json.loads(text))["strides"][1], tuple)
    with pytest.raises(ExportError, match=r"test has an attribute of type object"):
        encode({"fn": object()}, "test")
    with pytest.raises(ExportError, match=r"unexpected JSON object"):
        decode({"__pickle__": "x"})
