"""TensorBoard(write_graph=True): the traced train step as a GraphDef (the Graphs tab's op
graph) and the model's JSON (its conceptual graph), read back with tensorboard's reader;
the argument checks; the config round trip; the missing-extra error."""
import json
import sys
import warnings

import numpy as np
import pytest

import lamina
from lamina import callbacks, layers
from lamina.callbacks.tensorboard_graph import node_name, to_graph_def, traced_train_graph
from lamina.core import ignored_arguments

event_accumulator = pytest.importorskip(
    "tensorboard.backend.event_processing.event_accumulator")
pytest.importorskip("tensorboardX")


def read(run_dir):
    accumulator = event_accumulator.EventAccumulator(str(run_dir),
                                                     size_guidance={"tensors": 0})
    accumulator.Reload()
    return accumulator


def train(tmp_path, run_eagerly=False, **kwargs):
    model = lamina.Sequential([lamina.Input((4,)), layers.Dense(3, activation="relu"),
                               layers.Dense(2, activation="softmax")])
    model.compile(optimizer="adam", loss="sparse_categorical_crossentropy",
                  metrics=["accuracy"], run_eagerly=run_eagerly)
    x = np.random.default_rng(0).random((8, 4)).astype("float32")
    model.fit(x, np.arange(8) % 2, epochs=1, batch_size=4, verbose=0,
              callbacks=[callbacks.TensorBoard(tmp_path, **kwargs)])
    return model


def test_train_graph_nodes(tmp_path):
    model = train(tmp_path)
    run = read(tmp_path / "train")
    assert run.Tags()["graph"] is True
    nodes = {node.name: node for node in run.Graph().node}
    graph = model.graph(np.zeros((4, 4), "float32"), np.zeros(4, "int64"), step="train")
    assert len(nodes) >= len(graph.nodes) + len(graph.variables) + len(graph.updates)
    assert nodes["inputs/input_0"].op == "Placeholder"
    assert nodes["inputs/input_1"].op == "Placeholder"
    # Variables under their owner: the layer, the loss tracker, the metric, the optimizer
    # (a slot under the weight it serves).
    for path in ("dense/kernel", "dense/bias", "dense_1/kernel", "loss/count",
                 "metrics/accuracy/total", "optimizer/iteration",
                 "optimizer/dense/kernel/momentum", "optimizer/dense_1/bias/velocity"):
        assert nodes[path].op == "VariableV2", path
        assert nodes[f"{path}/assign"].op == "Assign", path
        assert nodes[f"{path}/assign"].input[0] == path
    assert nodes["optimizer/learning_rate"].op == "VariableV2"         # read, not written
    # Ops are grouped under the layer that traced them (a box per layer in the Graphs tab).
    first = nodes["dense/dense_bias_act"]
    assert list(first.input) == ["inputs/input_0", "dense/kernel", "dense/bias"]
    assert nodes["dense_1/softmax"].op == "softmax"
    # The logs are the loss tracker's and the metric's results, each read from its own box.
    assert nodes["loss/result"].op == nodes["metrics/accuracy/result"].op == "Identity"
    assert nodes["loss/result"].input[0].startswith("loss/")
    assert nodes["metrics/accuracy/result"].input[0].startswith("metrics/accuracy/")
    # Shapes drawn on the edges, the unknown batch size as -1; dtypes as TF's enum.
    shape = first.attr["_output_shapes"].list.shape[0]
    assert [d.size for d in shape.dim] == [-1, 3]
    assert first.attr["T"].type == 1                        # DT_FLOAT
    assert first.attr["activation"].s == b"'relu'"
    # Every input names a node of the graph ("name" or "name:k").
    for node in nodes.values():
        for source in node.input:
            assert source.split(":")[0] in nodes, (node.name, source)


def siamese():
    """Two inputs through one shared Dense, joined, a head."""
    left, right = lamina.Input((4,), name="left"), lamina.Input((4,), name="right")
    shared = layers.Dense(3, activation="relu", name="shared")
    joined = layers.Concatenate(name="join")([shared(left), shared(right)])
    outputs = layers.Dense(2, activation="softmax", name="head")(joined)
    return lamina.Model([left, right], outputs, name="siamese")


def top_level(tmp_path, model, x):
    model.compile(optimizer="adam", loss="sparse_categorical_crossentropy",
                  metrics=["accuracy"])
    model.fit(x, np.arange(8) % 2, epochs=1, batch_size=4, verbose=0,
              callbacks=[callbacks.TensorBoard(tmp_path)])
    nodes = {node.name: node for node in read(tmp_path / "train").Graph().node}
    return nodes, {name.split("/")[0] for name in nodes}


def test_top_level_boxes_are_the_layers_loss_metrics_and_optimizer(tmp_path):
    x = np.random.default_rng(0).random((8, 4)).astype("float32")
    sequential = lamina.Sequential([lamina.Input((4,)), layers.Dense(3, activation="relu"),
                                    layers.Dense(2, activation="softmax")])
    _, scopes = top_level(tmp_path / "sequential", sequential, x)
    assert scopes == {"dense", "dense_1", "loss", "metrics", "optimizer", "inputs"}
    model = siamese()
    nodes, scopes = top_level(tmp_path / "functional", model, [x, x])
    assert scopes == {"shared", "join", "head", "loss", "metrics", "optimizer", "inputs"}
    # The shared layer is one box: both calls, their gradients summed, its weights.
    calls = [n for n in nodes if n.startswith("shared/dense_bias_act")]
    assert sorted(nodes[n].input[0] for n in calls) == ["inputs/input_0", "inputs/input_1"]
    kernel_update = nodes["shared/kernel/assign"].input[1]
    assert kernel_update.startswith("optimizer/shared/kernel/")


def test_gradients_sit_in_their_layers_box_and_the_optimizer_per_weight(tmp_path):
    nodes, _ = top_level(tmp_path, siamese(),
                         [np.ones((8, 4), "float32"), np.zeros((8, 4), "float32")])

    def ops_of(prefix):
        return {nodes[n].op for n in nodes if n.startswith(prefix)}

    assert {"matmul", "transpose", "multiply"} <= ops_of("shared/gradients/")
    assert "split" in ops_of("join/gradients/")        # concatenate's gradient
    assert {"matmul", "sum"} <= ops_of("head/gradients/")
    # The loss's own gradient (its seed) feeds the head's gradient.
    assert any(source.startswith("loss/gradients/") for n in nodes
               if n.startswith("head/gradients/") for source in nodes[n].input)
    # A weight's optimizer box reads that weight's gradient and writes the weight.
    for weight in ("shared/kernel", "shared/bias", "head/kernel", "head/bias"):
        update = nodes[f"{weight}/assign"].input[1]
        assert update.startswith(f"optimizer/{weight}/"), (weight, update)
        box = [n for n in nodes if n.startswith(f"optimizer/{weight}/")]
        read = {s.split(":")[0] for n in box for s in nodes[n].input}
        layer = weight.split("/")[0]
        assert any(s.startswith(f"{layer}/gradients/") for s in read), weight
    # Shared optimizer arithmetic (the step count, bias corrections) directly in the box.
    assert nodes["optimizer/iteration/assign"].input[1].count("/") == 1


def test_without_the_model_layer_paths_and_variable_paths_name_the_nodes(tmp_path):
    model = train(tmp_path)
    names = {node.name for node in to_graph_def(traced_train_graph(model)).node}
    assert {"sequential/dense/dense_bias_act", "sequential/dense_1/gradients/matmul",
            "dense/kernel/assign", "adam/iteration/assign", "accuracy/total",
            "loss/result", "metrics/accuracy/result"} <= names


def test_autodiff_records_the_layer_of_each_backward_node():
    model = siamese()
    model.compile(optimizer="sgd", loss="sparse_categorical_crossentropy")
    x = np.ones((2, 4), "float32")
    graph = model.graph([x, x], np.zeros(2, "int64"), step="train", passes=[])
    paths = {node.layer for node in graph.nodes}
    assert {"siamese/shared", "siamese/join", "siamese/head", "siamese/shared/gradients",
            "siamese/join/gradients", "siamese/head/gradients", None} == paths
    assert [n.op.name for n in graph.nodes if n.layer == "siamese/join/gradients"] == \
        ["split"]
    # both calls' relu masks and matmuls, and the sum of the two calls' weight gradients
    shared = [n.op.name for n in graph.nodes if n.layer == "siamese/shared/gradients"]
    assert shared.count("matmul") == 2 and shared.count("greater") == 2
    assert shared.count("add") == 2              # kernel and bias: call 1 + call 2
    # the loss and its own gradient stay outside any layer (errors say so)
    assert all(n.layer is None for n in graph.nodes
               if n.op.name in ("log", "put_along_axis_add"))


def test_model_json_for_the_conceptual_graph(tmp_path):
    model = train(tmp_path)
    run = read(tmp_path / "train")
    assert run.Tags()["tensors"] == ["keras"]
    event = run.Tensors("keras")[0]
    assert event.step == 0
    assert json.loads(event.tensor_proto.string_val[0]) == json.loads(model.to_json())
    metadata = run.SummaryMetadata("keras")
    assert metadata.plugin_data.plugin_name == "graph_keras_model"


def test_write_graph_false_writes_no_graph(tmp_path):
    train(tmp_path, write_graph=False)
    run = read(tmp_path / "train")
    assert run.Tags()["graph"] is False and run.Tags()["tensors"] == []


def test_eager_training_warns_that_no_op_graph_was_written(tmp_path):
    ignored_arguments._warned.discard(("TensorBoard", "write_graph"))
    with pytest.warns(UserWarning, match="'write_graph'.*never ran as a graph"):
        train(tmp_path, run_eagerly=True)
    assert read(tmp_path / "train").Tags()["graph"] is False


def test_node_names_are_legal():
    assert node_name("sequential/dense 1/add:0") == "sequential/dense_1/add_0"
    assert node_name("_private") == "n_private"
    assert node_name("") == "node"


def test_profile_batch_warns_once_and_is_checked(tmp_path):
    ignored_arguments._warned.discard(("TensorBoard", "profile_batch"))
    with pytest.warns(UserWarning, match=r"'profile_batch' \(profile_batch=\(2, 4\)\) has "
                                         r"no effect in Lamina"):
        callbacks.TensorBoard(tmp_path, profile_batch=(2, 4))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        callbacks.TensorBoard(tmp_path, profile_batch="3,5")       # warned already
        callbacks.TensorBoard(tmp_path, profile_batch=0)
    for bad in (-1, (5, 2), (1, 2, 3), "a,b", 1.5):
        with pytest.raises(ValueError, match="argument 'profile_batch' must be a "
                                             "non-negative integer.*received"):
            callbacks.TensorBoard(tmp_path, profile_batch=bad)


@pytest.mark.parametrize("kwargs, error, message", [
    ({"update_freq": "step"}, ValueError,
     "argument 'update_freq' must be 'batch', 'epoch' or a positive integer; received "
     "'step'"),
    ({"update_freq": 0}, ValueError, "'update_freq' must be"),
    ({"histogram_freq": -1}, ValueError,
     "argument 'histogram_freq' must be a non-negative integer.*received -1"),
    ({"embeddings_freq": 0.5}, ValueError, "argument 'embeddings_freq' must be"),
    ({"embeddings_metadata": 3}, TypeError,
     "argument 'embeddings_metadata' must be None, a file name or a dict"),
])
def test_argument_errors(tmp_path, kwargs, error, message):
    with pytest.raises(error, match=message):
        callbacks.TensorBoard(tmp_path, **kwargs)


def test_defaults_and_config_round_trip():
    default = callbacks.TensorBoard()
    assert default.get_config() == {
        "log_dir": "logs", "histogram_freq": 0, "write_graph": True, "write_images": False,
        "write_steps_per_second": False, "update_freq": "epoch", "profile_batch": 0,
        "embeddings_freq": 0, "embeddings_metadata": None}
    assert callbacks.TensorBoard(update_freq="batch").update_freq == 1     # as Keras
    custom = callbacks.TensorBoard("runs/a", histogram_freq=2, write_graph=False,
                                   write_images=True, update_freq=5, embeddings_freq=1,
                                   embeddings_metadata={"words": "w.tsv"})
    config = callbacks.serialize(custom)
    assert config["class_name"] == "TensorBoard" and config["module"] == "keras.callbacks"
    restored = callbacks.deserialize(config)
    assert type(restored) is callbacks.TensorBoard
    assert restored.get_config() == custom.get_config()


def test_missing_extra_names_it(monkeypatch):
    monkeypatch.setitem(sys.modules, "tensorboardX", None)
    with pytest.raises(ImportError, match=r"pip install lamina\[tensorboard\]"):
        callbacks.TensorBoard()
