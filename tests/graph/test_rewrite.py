"""The rewrite engine (lamina/graph/rewrite.py): patterns, the fixpoint driver, and
replace_uses on node inputs, graph outputs and variable updates."""
import numpy as np
import pytest

import lamina
from lamina import ops
from lamina.graph.executor import Plan, pack_results
from lamina.graph.rewrite import (Const, Match, Pat, RewriteError, Rule, Uses, attrs_key,
                                  constant_value, is_constant_value, readers_of,
                                  replace_uses, rewrite, substitute)

A = np.arange(6, dtype="float32").reshape(2, 3) / 4


def traced(fn, *arrays):
    args = [ops.convert_to_tensor(a) for a in arrays]
    return lamina.jit(fn, passes=[]).trace(*args), args


def run(graph, args):
    return pack_results(graph, lamina.backend.get_backend(),
                        Plan(graph, lamina.backend.get_backend())([a.data for a in args]))


def match(pattern, value, graph):
    m = Match(value, Uses(graph))
    return m if pattern.match(value, m) else None


def test_patterns_capture_check_attributes_and_repeat_names():
    def fn(x):
        e = ops.exp(x)
        return ops.sum(e * e, axis=1) + ops.sum(x * ops.exp(x), axis=1)
    graph, _ = traced(fn, A)
    out = graph.flat_outputs[0]
    left = out.node.inputs[0]
    square = Pat("multiply", Pat("exp", name="e"), Pat(name="e"))
    m = match(Pat("sum", square, attrs={"axis": (1,)}, name="s"), left, graph)
    assert m is not None and m["s"] is left and m["e"].node.op.name == "exp"
    assert [n.op.name for n in m.nodes] == ["exp", "multiply", "sum"]
    assert match(Pat("sum", square, attrs={"axis": (0,)}), left, graph) is None
    assert match(Pat("sum", attrs=lambda a: a["keepdims"]), left, graph) is None
    assert match(Pat("multiply", Pat("exp", name="e"), Pat(name="f"),
                     where=lambda v, m: m["e"] is not m["f"]), left.node.inputs[0], graph) \
        is None
    right = out.node.inputs[1].node.inputs[0]          # x * exp(x): two different values
    assert match(Pat("multiply", Pat(name="e"), Pat(name="e")), right, graph) is None


def test_commutative_patterns_match_either_order():
    graph, _ = traced(lambda x: 2.0 * ops.exp(x), A)
    out = graph.flat_outputs[0]
    assert match(Pat("multiply", Pat("exp"), Const(2.0)), out, graph) is None
    assert match(Pat("multiply", Pat("exp"), Const(2.0), commutative=True), out, graph) \
        is not None


def test_constants_include_fill_like_outputs():
    graph, _ = traced(lambda x: x * ops.ones_like(x) + x * 3.0, A)
    ones = graph.flat_outputs[0].node.inputs[0].node.inputs[1]
    assert constant_value(ones) == 1 and is_constant_value(ones, 1)
    assert constant_value(ops.convert_to_tensor([3.0, 3.0])) == 3.0
    assert constant_value(ops.convert_to_tensor([3.0, 4.0])) is None
    assert not is_constant_value(graph.inputs[0], 1)


def test_attrs_key_compares_by_value():
    assert attrs_key({"a": (1, 2), "b": [slice(0, 2)]}) == attrs_key({"b": [slice(0, 2)],
                                                                      "a": (1, 2)})
    assert attrs_key({"v": 1}) != attrs_key({"v": 1.0}) != attrs_key({"v": True})
    with pytest.raises(TypeError):
        attrs_key(bytearray(b"x"))


def test_rewrite_runs_rules_to_a_fixpoint_and_keeps_numbers():
    fn = lambda x: ops.exp(ops.log(ops.exp(ops.log(x + 1.0))))      # noqa: E731
    graph, args = traced(fn, A)
    expected = fn(*args).numpy()
    counts = rewrite(graph, [Rule("exp_log", Pat("exp", Pat("log", Pat(name="x"))),
                                  lambda m: m["x"])])
    assert counts == {"exp_log": 2}
    assert [n.op.name for n in graph.nodes] == ["add"]
    np.testing.assert_allclose(run(graph, args).numpy(), expected, rtol=1e-6)


def test_new_nodes_inherit_the_layer_of_the_node_they_replace():
    graph, args = traced(lambda x: ops.tanh(ops.transpose(ops.transpose(x + 1.0, (1, 0)),
                                                          (1, 0)) * 2.0), A)
    for node in graph.nodes:
        node.layer = "model/dense"
    rule = Rule("times_two", Pat("multiply", Pat(name="x"), Const(2.0)),
                lambda m: m["x"] + m["x"])
    expected = run(graph, args).numpy()
    assert rewrite(graph, [rule]) == {"times_two": 1}
    assert [(n.op.name, n.layer) for n in graph.nodes][-2] == ("add", "model/dense")
    np.testing.assert_allclose(run(graph, args).numpy(), expected, rtol=1e-6)
    np.testing.assert_allclose(run(graph, args).numpy(), expected, rtol=1e-6)


def test_rules_that_undo_each_other_are_an_error():
    graph, _ = traced(lambda x: ops.exp(-x), A)
    rules = [Rule("to_multiply", Pat("negative", Pat(name="x")), lambda m: m["x"] * -1.0),
             Rule("to_negative", Pat("multiply", Pat(name="x"), Const(-1.0)),
                  lambda m: ops.negative(m["x"]))]
    with pytest.raises(RewriteError, match=r"rules still firing after 5 sweeps .*"
                                           r"two rules undo each other"):
        rewrite(graph, rules, max_sweeps=5)


def test_stateful_nodes_are_never_matched():
    seeds = lamina.random.SeedGenerator(2)
    graph, _ = traced(lambda x: x + ops.random_uniform((2, 3), seed=seeds), A)
    (draw,) = [n for n in graph.nodes if n.op.name == "random_uniform"]
    assert match(Pat("random_uniform"), draw.outputs[0], graph) is None


def test_replace_uses_rewires_inputs_outputs_and_updates():
    v = lamina.Variable(np.zeros((2, 3), "float32"), name="v_rewrite")

    def fn(x):
        y = ops.exp(x)
        v.assign(y)
        return y, ops.tanh(y)
    graph, args = traced(fn, A)
    y = graph.flat_outputs[0]
    z = ops.sqrt(ops.square(graph.inputs[0]) + 1.0)     # any value of that shape and dtype
    assert replace_uses(graph, y, z)
    graph.reorder()
    assert graph.flat_outputs[0] is z and graph.updates[0][1] is z
    assert graph.flat_outputs[1].node.inputs == (z,)
    first, second = run(graph, args)
    np.testing.assert_allclose(first.numpy(), np.sqrt(A ** 2 + 1), rtol=1e-6)
    np.testing.assert_allclose(v.numpy(), first.numpy())


def test_an_output_is_not_replaced_by_an_input_or_a_constant():
    graph, _ = traced(lambda x: x * 1.0, A)
    out = graph.flat_outputs[0]
    assert not replace_uses(graph, out, graph.inputs[0])
    assert not replace_uses(graph, out, ops.convert_to_tensor(A))
    assert graph.flat_outputs[0] is out


def test_replacements_must_match_shape_and_dtype_and_not_read_the_old_value():
    graph, _ = traced(lambda x: ops.tanh(ops.exp(x)), A)
    e = graph.nodes[0].outputs[0]
    with pytest.raises(RewriteError, match=r"a value of shape \(2, 3\) float32 cannot be "
                                           r"replaced by \(3,\) float32"):
        replace_uses(graph, e, ops.sum(e, axis=0))
    with pytest.raises(RewriteError, match=r"cannot be replaced by 3"):
        replace_uses(graph, e, 3)
    with pytest.raises(RewriteError, match=r"reads it \(node exp\); that would be a cycle"):
        replace_uses(graph, e, ops.exp(e))


def test_substitute_applies_a_mapping_to_new_nodes_too():
    graph, args = traced(lambda x: ops.tanh(ops.exp(x)) + 1.0, A)
    e, t = graph.nodes[0].outputs[0], graph.nodes[1].outputs[0]
    readers = graph.consumers()
    assert readers_of(readers, e) == [graph.nodes[1]] and readers_of(readers, A) == []
    e2 = ops.exp(graph.inputs[0] * 1.0)
    t2 = ops.tanh(e)                            # a new node reading a replaced value
    substitute(graph, {id(e): e2, id(t): t2}, created=[t2.node])
    assert t2.node.inputs == (e2,)
    np.testing.assert_allclose(run(graph, args).numpy(), np.tanh(np.exp(A)) + 1, rtol=1e-6)
    with pytest.raises(RewriteError, match=r"the replacements form a cycle"):
        substitute(graph, {id(e2): t2, id(t2): e2})
