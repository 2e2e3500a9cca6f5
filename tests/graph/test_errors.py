"""Error provenance: every node remembers the layer that traced it, and a kernel failing in a
compiled step becomes a GraphExecutionError naming the layer, the op and the input shapes."""
import numpy as np
import pytest

import lamina
from lamina import layers, ops
from lamina.graph import GraphExecutionError
from lamina.graph.errors import describe_failure
from lamina.core.symbolic import Node
from lamina.ops import OP_REGISTRY


def _node(layer="model/dense", **attrs):
    return Node(OP_REGISTRY["matmul"], (), attrs, layer=layer)


def test_describe_failure_names_layer_op_inputs_and_keeps_the_cause():
    arrays = [np.zeros((2, 3), "float32"), np.zeros((4, 5), "float32")]
    original = ValueError("matmul: shapes (2,3) and (4,5) not aligned")
    error = describe_failure(_node(transpose_b=False), arrays, original)
    assert isinstance(error, GraphExecutionError) and isinstance(error, RuntimeError)
    assert isinstance(error, lamina.errors.LaminaError)
    message = str(error)
    assert message.startswith("op 'matmul' in layer 'model/dense' failed while running a "
                              "compiled graph: ValueError: matmul: shapes (2,3) and (4,5)")
    assert "inputs: (2, 3) float32, (4, 5) float32" in message
    assert "attributes: transpose_b=False" in message
    assert "run_eagerly=True" in message
    assert (error.layer, error.op, error.input_shapes) == ("model/dense", "matmul",
                                                           ((2, 3), (4, 5)))
    assert error.original is original


def test_describe_failure_outside_layers_literals_and_nested_errors():
    error = describe_failure(_node(layer=None), [np.ones(3), None], IndexError("boom"))
    assert "op 'matmul' outside any layer (loss, metric, gradient or optimizer code)" \
        in str(error)
    assert "inputs: (3,) float64, None" in str(error)
    assert error.input_shapes == ((3,), None)
    assert "attributes" not in str(error)
    assert describe_failure(_node(), [], error) is error        # the innermost node wins


def test_long_attributes_are_shortened():
    error = describe_failure(_node(key=tuple(range(100))), [], KeyError("k"))
    line = [l for l in str(error).splitlines() if "attributes" in l][0]
    assert line.endswith("...") and len(line) < 140


def test_nodes_record_the_layer_path_that_traced_them():
    inner = lamina.Sequential([layers.Dense(4, activation="relu", name="inner_dense")],
                              name="block")
    inputs = lamina.Input((3,))
    outputs = layers.Dense(2, name="head")(inner(inputs))
    model = lamina.Model(inputs, outputs, name="outer")
    model.compile(optimizer="sgd", loss="mse")
    x, y = np.ones((2, 3), "float32"), np.zeros((2, 2), "float32")
    forward = model.graph(x, passes=[])
    assert {n.layer for n in forward.nodes} == {"outer/block/inner_dense", "outer/head"}
    train = model.graph(x, y, step="train", passes=[])
    layer_names = {n.layer for n in train.nodes}
    assert {"outer/block/inner_dense", "outer/head", None} <= layer_names
    square = [n for n in train.nodes if n.op.name == "square"]
    assert square and all(n.layer is None for n in square)      # the loss is no layer's


def test_functional_api_and_eager_calls_leave_no_stale_layer_names():
    layers.Dense(2, name="leftover")(lamina.Input((3,)))
    graph = lamina.jit(lambda x: ops.tanh(x) * 2.0, passes=[]).trace(ops.ones((2,)))
    assert [n.layer for n in graph.nodes] == [None, None]
    from lamina.layers.call_context import current_layer_path
    assert current_layer_path() is None


def _embedding_model():
    return lamina.Sequential([lamina.Input((3,), dtype="int32"),
                              layers.Embedding(10, 4, name="words"), layers.Flatten(),
                              layers.Dense(2, name="out")], name="tagger")


def test_a_failing_kernel_in_predict_names_layer_op_and_shapes():
    model = _embedding_model()
    ids = np.array([[1, 2, 12], [0, 0, 0]], "int32")
    with pytest.raises(IndexError, match=r"embedding|words"):
        model(ids)                                                # eager: the layer's check
    with pytest.raises(GraphExecutionError, match=r"op 'take' in layer 'tagger/words'") as info:
        model.predict(ids, verbose=0)
    error = info.value
    assert (error.layer, error.op) == ("tagger/words", "take")
    assert error.input_shapes == ((10, 4), (2, 3))
    assert "inputs: (10, 4) float32, (2, 3) int32" in str(error)
    assert isinstance(error.__cause__, IndexError)


def test_a_failing_kernel_in_jit_is_a_graph_execution_error():
    table = lamina.Variable(np.zeros((5, 2), "float32"), name="table")
    lookup = lamina.jit(lambda i: ops.take(table, i, axis=0))
    with pytest.raises(GraphExecutionError, match=r"op 'take' outside any layer") as info:
        lookup(ops.convert_to_tensor(np.array([7], "int32")))
    assert info.value.layer is None and info.value.op == "take"


def test_a_typed_kernel_error_keeps_its_type_in_a_graph():
    """A bad index raises IndexRangeError eagerly; the graph's GraphExecutionError is one
    too (and an IndexError), so one ``except`` serves both modes."""
    from lamina.errors import IndexRangeError
    take = lamina.jit(lambda x, i: ops.take(x, i, axis=0))
    x, bad = np.ones((3, 2), "float32"), np.array([0, 5], "int32")
    with pytest.raises(IndexRangeError) as eager:
        ops.take(ops.convert_to_tensor(x), ops.convert_to_tensor(bad), axis=0)
    with pytest.raises(IndexRangeError) as graph:
        take(x, bad)
    assert isinstance(graph.value, GraphExecutionError) and isinstance(graph.value, IndexError)
    assert str(eager.value) in str(graph.value)
    assert graph.value.op == "take" and isinstance(graph.value.original, IndexRangeError)
    with pytest.raises(GraphExecutionError, match="op 'take'"):
        take(x, bad)
