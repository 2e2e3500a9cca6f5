"""segment_sum/max/min/prod and scatter_update: Keras 3.15.1's values (JAX semantics:
empty segments hold the identity, out-of-range ids are dropped, the last update wins)."""
import numpy as np
import pytest

import lamina
from lamina import ops
from lamina.errors import DTypeError, IndexRangeError, ShapeError
from tests.harness import case, distinct, rand, run_case

_IDS = np.array([0, 0, 2, 5, 2], np.int32)
_FULL = np.array([0, 0, 2, 1, 2, 7], np.int32)     # every segment used (finite max/min)


def np_segment(kind, n):
    fill = {"sum": 0.0, "prod": 1.0, "max": -np.inf, "min": np.inf}[kind]
    fn = {"sum": np.sum, "prod": np.prod, "max": np.max, "min": np.min}[kind]

    def ref(data, ids):
        out = np.full((n,) + data.shape[1:], fill)
        for s in range(n):
            rows = data[ids == s]
            if len(rows):
                out[s] = fn(rows, axis=0)
        return out
    return ref


def np_scatter(reduction):
    def ref(x, idx, up):
        x = x.copy()
        for i, u in zip(idx, up):
            key = tuple(i)
            if reduction is None:
                x[key] = u
            elif reduction == "max":
                x[key] = np.maximum(x[key], u)
            elif reduction == "min":
                x[key] = np.minimum(x[key], u)
            elif reduction == "mul":
                x[key] = x[key] * u
            else:
                x[key] = x[key] + u
        return x
    return ref


_IDX = np.array([[0, 1], [2, 3], [1, 1], [-1, 0]], np.int32)

CASES = [
    case(f"segment_{kind}", lambda d, i, k=kind: getattr(ops, f"segment_{k}")(d, i, 4),
         np_segment(kind, 4), [distinct(5, 2) + 2.0, _IDS])
    for kind in ("sum", "prod")
] + [
    case(f"segment_{kind}", lambda d, i, k=kind: getattr(ops, f"segment_{k}")(d, i, 3),
         np_segment(kind, 3), [distinct(6, 2), _FULL])
    for kind in ("max", "min")
] + [
    case("segment_sum", lambda d, i: ops.segment_sum(d, i), np_segment("sum", 6),
         [rand(5), _IDS], label="inferred", graph=False),   # eager only: see below
    case("scatter_update", lambda x, u: ops.scatter_update(x, _IDX, u),
         lambda x, u: np_scatter(None)(x, _IDX, u), [rand(3, 4), rand(4)]),
    case("scatter_update", lambda x, u: ops.scatter_update(x, [[1], [0]], u),
         lambda x, u: np_scatter(None)(x, [[1], [0]], u), [rand(3, 2), rand(2, 2)],
         label="rows"),
] + [
    case("scatter_update", lambda x, u, r=r: ops.scatter_update(x, _IDX, u, reduction=r),
         lambda x, u, r=r: np_scatter(r)(x, _IDX, u), [distinct(3, 4), distinct(4) * 2],
         label=r)
    for r in ("add", "max", "min", "mul")
]


@pytest.mark.parametrize("c", CASES, ids=str)
def test_forward_and_gradient(c, backend):
    run_case(c)


def test_keras_values(backend):
    # Keras 3.15.1 (JAX backend)
    d = np.array([[1.0, 2], [3, -4], [5, 6], [-7, 8]], np.float32)
    ids = np.array([0, 0, 2, 5])
    assert ops.segment_sum(d, ids, 4).numpy().tolist() == [[4, -2], [0, 0], [5, 6], [0, 0]]
    assert ops.segment_max(d, ids, 4).numpy().tolist() == \
        [[3, 2], [-np.inf, -np.inf], [5, 6], [-np.inf, -np.inf]]
    assert ops.segment_min(d, ids, 4).numpy().tolist() == \
        [[1, -4], [np.inf, np.inf], [5, 6], [np.inf, np.inf]]
    assert ops.segment_prod(d, ids, 4).numpy().tolist() == [[3, -8], [1, 1], [5, 6], [1, 1]]
    assert ops.segment_max(np.array([1, 5, 2], np.int32), np.array([0, 0, 2]), 4
                           ).numpy().tolist() == [5, -2147483648, 2, -2147483648]
    x = np.ones((3, 4), np.float32)
    idx = np.array([[0, 1], [2, 3], [0, 1], [-1, 0]])
    up = np.array([1.0, 2, 3, 4], np.float32)
    expected = {None: [[1, 3, 1, 1], [1, 1, 1, 1], [4, 1, 1, 2]],
                "add": [[1, 5, 1, 1], [1, 1, 1, 1], [5, 1, 1, 3]],
                "min": [[1, 1, 1, 1], [1, 1, 1, 1], [1, 1, 1, 1]],
                "mul": [[1, 3, 1, 1], [1, 1, 1, 1], [4, 1, 1, 2]]}
    for reduction, values in expected.items():
        assert ops.scatter_update(x, idx, up, reduction=reduction).numpy().tolist() == values


def test_segments_in_a_compiled_function():
    f = lamina.jit(lambda d, i: ops.segment_max(d, i, num_segments=3))
    d = ops.convert_to_tensor(np.array([1.0, 4, 2]))
    np.testing.assert_allclose(f(d, ops.convert_to_tensor([2, 2, 0])).numpy(),
                               [2.0, -np.inf, 4.0])
    with pytest.raises(ValueError, match=r"segment_sum: argument 'num_segments' is required "
                                         r"when tracing a graph"):
        lamina.jit(lambda d, i: ops.segment_sum(d, i))(d, ops.convert_to_tensor([0, 1, 0]))


def test_segment_and_scatter_errors(backend):
    d = ops.ones((3, 2))
    with pytest.raises(DTypeError, match=r"segment_sum: argument 'segment_ids' must be an "
                                         r"integer tensor"):
        ops.segment_sum(d, ops.ones((3,)))
    with pytest.raises(ShapeError, match=r"segment_max: argument 'segment_ids' must be 1-D "
                                         r"with one id per row"):
        ops.segment_max(d, ops.convert_to_tensor([0, 1]))
    with pytest.raises(ValueError, match=r"segment_prod: argument 'num_segments' must be a "
                                         r"non-negative int"):
        ops.segment_prod(d, ops.convert_to_tensor([0, 1, 1]), num_segments=-1)
    with pytest.raises(ValueError, match=r"scatter_update: argument 'reduction' must be one of"):
        ops.scatter_update(d, [[0, 0]], [1.0], reduction="sum")
    with pytest.raises(ShapeError, match=r"scatter_update: argument 'indices' must have shape "
                                         r"\(n, k\) with k <= 2"):
        ops.scatter_update(d, [[0, 0, 0]], [1.0])
    assert ops.scatter_update(lamina.Input((2,)), [[0, 0]], [1.0]).shape == (None, 2)
    with pytest.raises(IndexRangeError, match=r"scatter_update: index 3 is out of range for "
                                              r"axis 0 of size 3"):
        ops.scatter_update(d, [[3, 0]], [1.0])


def test_scatter_update_of_an_unknown_size():
    # Keras 3.15.1: CoreOpsDynamicShapeTest.test_scatter_update
    assert ops.scatter_update(lamina.KerasTensor((4, None)), lamina.KerasTensor((5, 2), "int32"),
                              lamina.KerasTensor((5,))).shape == (4, None)
    x, i = lamina.Input(batch_shape=(3, None)), lamina.Input(batch_shape=(3, 2), dtype="int32")
    u = lamina.Input(batch_shape=(3,))
    model = lamina.Model([x, i, u], ops.scatter_update(x, i, u))
    args = [np.arange(12, dtype="float32").reshape(3, 4), np.array([[0, 1], [2, -1], [0, 1]],
                                                                   "int32"),
            np.array([10.0, 20.0, 30.0], "float32")]
    expected = [[0, 30, 2, 3], [4, 5, 6, 7], [8, 9, 10, 20]]      # Keras 3.15.1 (JAX)
    np.testing.assert_array_equal(model(args).numpy(), expected)
    np.testing.assert_array_equal(lamina.jit(model)(args).numpy(), expected)
    for reduction in ("add", "max", "mul"):
        model = lamina.Model([x, i, u], ops.scatter_update(x, i, u, reduction=reduction))
        np.testing.assert_array_equal(lamina.jit(model)(args).numpy(),
                                      ops.scatter_update(*args, reduction=reduction).numpy())
    args[1] = np.array([[0, 4], [0, 0], [0, 0]], "int32")       # 4 is past the 4 columns
    with pytest.raises(IndexRangeError, match=r"scatter_update: index 4 is out of range for "
                                              r"axis 1 of size 4"):
        lamina.jit(model)(args)
    with pytest.raises(ShapeError, match=r"scatter_update: argument 'inputs' may have one "
                                         r"unknown size"):
        ops.scatter_update(lamina.KerasTensor((None, None)), args[1], args[2])


def test_scatter_update_refuses_updates_of_the_wrong_shape_in_both_modes():
    # the fuzzer's finding (unknown-size seeds 337, 438): with an unknown size the graph
    # broadcast updates of shape (1, 3) into rows of size 1 where eager refused
    x = np.zeros((3, 1), "float32")
    updates = np.ones((1, 3), "float32")
    indices = np.array([[-2]], "int32")
    message = (r"scatter_update: argument 'updates' must have shape \(1, 1\) for indices of "
               r"shape \(1, 1\) into \(3, 1\); received \(1, 3\)")
    with pytest.raises(ShapeError, match=message):
        ops.scatter_update(x, indices, updates, reduction="add")
    inputs = lamina.Input(batch_shape=(3, None))
    model = lamina.Model(inputs, ops.scatter_update(inputs, indices, updates, reduction="add"))
    with pytest.raises(ShapeError, match=r"argument 'updates' must have shape \(1, None\)"):
        model.predict(x, verbose=0)
    good = np.zeros((3, 3), "float32")
    np.testing.assert_array_equal(model.predict(good, verbose=0),
                                  ops.scatter_update(good, indices, updates,
                                                     reduction="add").numpy())
