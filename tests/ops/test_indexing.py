import numpy as np
import pytest

import lamina
from lamina import ops
from lamina.errors import DTypeError, ShapeError
from lamina.graph import SymbolicTensor
from lamina.graph.errors import GraphExecutionError
from tests.harness import case, rand, run_case

_rows = np.array([[2, 0], [2, 2], [1, 0]], np.int32)          # duplicates on purpose
_along = np.array([[1, 1, 0], [2, 0, 2]], np.int64)


def np_take_along(x, i, axis):
    return np.take_along_axis(x, i, axis=axis)


def np_scatter(indices, values, shape):
    out = np.zeros(shape, values.dtype)
    np.add.at(out, tuple(np.moveaxis(indices, -1, 0)), values)
    return out


def np_scatter_add(updates, indices, size, axis):
    shape = list(updates.shape[:axis]) + [size] + list(updates.shape[axis + indices.ndim:])
    out = np.zeros(shape, updates.dtype)
    index = (slice(None),) * axis + (indices,)
    np.add.at(out, index, updates)
    return out


def np_put_along(updates, indices, size, axis):
    shape = list(updates.shape)
    shape[axis] = size
    out = np.zeros(shape, updates.dtype)
    grid = list(np.indices(indices.shape, sparse=True))
    grid[axis] = indices
    np.add.at(out, tuple(grid), updates)
    return out


def np_one_hot(x, n, axis=-1, dtype="float32"):
    out = (x[..., None] == np.arange(n)).astype(dtype)
    return np.moveaxis(out, -1, axis)


CASES = [
    case("take", lambda x, i: ops.take(x, i, axis=0), lambda x, i: np.take(x, i, axis=0),
         [rand(3, 4), _rows], second_order=True),
    case("take", ops.take, np.take, [rand(3, 4), np.array([11, 0, -1, 5], np.int32)],
         label="flattened"),
    case("take", lambda x, i: ops.take(x, i, axis=1), lambda x, i: np.take(x, i, axis=1),
         [rand(2, 4, 3), np.array([[3, -4], [0, 3]], np.int64)], second_order=True,
         label="middle-axis-negative"),
    case("take", lambda x: ops.take(x, [1, 1, 0], axis=-1),
         lambda x: np.take(x, [1, 1, 0], axis=-1), [rand(2, 2)], label="list"),
    case("take", lambda x, i: ops.take(x, i, axis=0), lambda x, i: np.take(x, i, axis=0),
         [rand(4, 3), np.array(2, np.int32)], label="scalar-index"),
    case("scatter_add", lambda u: ops.OP_REGISTRY["scatter_add"](
        u, ops.convert_to_tensor(_rows), size=3, axis=1),
        lambda u: np_scatter_add(u, _rows, 3, 1), [rand(2, 3, 2, 4)], second_order=True),
    case("take_along_axis", lambda x, i: ops.take_along_axis(x, i, axis=1),
         lambda x, i: np_take_along(x, i, 1), [rand(2, 4), _along], second_order=True),
    case("take_along_axis", lambda x, i: ops.take_along_axis(x, i, axis=0),
         lambda x, i: np_take_along(x, i, 0), [rand(3, 3), _along], label="axis-0"),
    case("take_along_axis", lambda x, i: ops.take_along_axis(x, i, axis=-1),
         lambda x, i: np_take_along(x, i, -1),
         [rand(2, 1, 3), np.array([[[0], [2]]], np.int32)], label="broadcast"),
    case("take_along_axis", ops.take_along_axis, lambda x, i: np.take_along_axis(x, i, None),
         [rand(2, 3), np.array([5, 0, 5], np.int32)], label="flattened"),
    case("put_along_axis_add", lambda u: ops.OP_REGISTRY["put_along_axis_add"](
        u, ops.convert_to_tensor(_along), size=4, axis=1),
        lambda u: np_put_along(u, _along, 4, 1), [rand(2, 3)], second_order=True),
    case("scatter", lambda i, v: ops.scatter(i, v, (3, 3)), lambda i, v: np_scatter(i, v, (3, 3)),
         [np.array([[0, 1], [2, 2], [0, 1]], np.int32), rand(3)], second_order=True),
    case("scatter", lambda i, v: ops.scatter(i, v, (2, 2)), lambda i, v: np_scatter(i, v, (2, 2)),
         [np.array([[1], [0], [1]], np.int64), rand(3, 2)], label="rows"),
    case("scatter", lambda i, v: ops.scatter(i, v, [2, 3, 4]),
         lambda i, v: np_scatter(i, v, (2, 3, 4)),
         [np.array([[[0, -1]], [[1, 0]]], np.int32), rand(2, 1, 4)], label="batched-negative"),
    case("check_index_range", lambda i: ops.OP_REGISTRY["check_index_range"](
        i, sizes=(3, 4), op="scatter"), lambda i: i, [np.array([[0, -4], [2, 3]], np.int32)],
        grad=False),
    case("one_hot", lambda x: ops.one_hot(x, 4), lambda x: np_one_hot(x, 4),
         [np.array([[0, 3], [4, -1]], np.int32)], grad=False),
    case("one_hot", lambda x: ops.one_hot(x, 3, axis=0, dtype="int32"),
         lambda x: np_one_hot(x, 3, 0, "int32"), [np.array([[0, 2], [1, 1]], np.int64)],
         grad=False, label="axis-0-int"),
]


@pytest.mark.parametrize("c", CASES, ids=str)
def test_forward_and_gradient(c, backend):
    run_case(c)


def t(values, dtype="float64"):
    return ops.convert_to_tensor(np.asarray(values, dtype=dtype))


def test_take_gradient_accumulates_duplicates(backend):
    x = t(np.zeros((3, 2)))
    with lamina.GradientTape() as tape:
        tape.watch(x)
        y = ops.sum(ops.take(x, t([2, 0, 2, 2], "int32"), axis=0))
    np.testing.assert_array_equal(tape.gradient(y, x).numpy(), [[1, 1], [0, 0], [3, 3]])


def test_take_along_axis_gradient_accumulates_duplicates(backend):
    x = t(np.zeros((2, 3)))
    with lamina.GradientTape() as tape:
        tape.watch(x)
        y = ops.sum(ops.take_along_axis(x, t([[1, 1, 1, 0], [2, -1, 0, 0]], "int32"), axis=1))
    np.testing.assert_array_equal(tape.gradient(y, x).numpy(), [[1, 3, 0], [2, 0, 2]])


def test_float_indices_are_a_dtype_error_naming_the_argument(backend):
    x = ops.zeros((3, 4))
    with pytest.raises(DTypeError, match=r"take: argument 'indices' must be an integer tensor;"
                                         r" received dtype float32"):
        ops.take(x, [0.0, 1.0])
    with pytest.raises(DTypeError, match=r"take_along_axis: argument 'indices' must be an "
                                         r"integer tensor; received dtype float64"):
        ops.take_along_axis(x, t([[0.0]]), axis=0)
    with pytest.raises(DTypeError, match=r"scatter: argument 'indices' must be an integer "
                                         r"tensor; received dtype bool"):
        ops.scatter(t([[True]], "bool"), t([1.0]), (2,))
    with pytest.raises(DTypeError, match=r"one_hot: argument 'x' must be an integer tensor; "
                                         r"received dtype bool"):
        ops.one_hot(t([True], "bool"), 3)          # float labels are cast (Keras)
    with pytest.raises(DTypeError, match=r"take: argument 'indices' must be an integer"):
        ops.OP_REGISTRY["take"](x, ops.zeros((1,)), axis=0)


def test_out_of_range_indices_name_the_op_axis_size_and_index(backend):
    x = ops.zeros((3, 4))
    with pytest.raises(IndexError, match=r"take: index 4 is out of range for axis 1 of size 4 "
                                         r"\(valid: \[-4, 4\)\)"):
        ops.take(x, [0, 4], axis=1)
    with pytest.raises(IndexError, match=r"take: index -13 is out of range for axis 0 of "
                                         r"size 12"):
        ops.take(x, [-13])
    with pytest.raises(IndexError, match=r"take_along_axis: index 3 is out of range for axis 0 "
                                         r"of size 3"):
        ops.take_along_axis(x, t([[3, 0, 0, 0]], "int32"), axis=0)
    with pytest.raises(IndexError, match=r"scatter: index 2 is out of range for axis 1 of "
                                         r"size 2"):
        ops.scatter(t([[0, 2]], "int32"), t([1.0]), (3, 2))


def test_scatter_checks_each_axis_in_a_graph_too(backend):
    """Flattened, index (0, 3) of a (3, 2) scatter would land on (1, 1): the per-axis
    check is a node of the graph, so a compiled scatter raises as the eager one does."""
    scatter = lamina.jit(lambda i, v: ops.scatter(i, v, (3, 2)))
    np.testing.assert_array_equal(scatter(t([[1, 1]], "int32"), t([1.0])).numpy(),
                                  [[0, 0], [0, 1], [0, 0]])
    with pytest.raises(GraphExecutionError, match=r"scatter: index 3 is out of range for "
                                                  r"axis 1 of size 2 \(valid: \[-2, 2\)\)"):
        scatter(t([[0, 3]], "int32"), t([1.0]))


def test_take_along_axis_shape_errors(backend):
    x = ops.zeros((3, 4))
    with pytest.raises(ShapeError, match=r"take_along_axis: 'indices' must have the rank of "
                                         r"'x' \(2\); received shapes \(3, 4\) and \(2,\)"):
        ops.take_along_axis(x, t([0, 1], "int32"), axis=1)
    with pytest.raises(ShapeError, match=r"take_along_axis: cannot broadcast 'x' and "
                                         r"'indices' together"):
        ops.take_along_axis(x, t([[0], [1]], "int32"), axis=1)
    with pytest.raises(ShapeError, match=r"take_along_axis: with axis=None 'indices' must be "
                                         r"1-D"):
        ops.take_along_axis(x, t([[0]], "int32"))
    with pytest.raises(ShapeError, match=r"take_along_axis: shapes must match except along "
                                         r"axis 1"):
        ops.OP_REGISTRY["take_along_axis"](x, t([[0], [1]], "int32"), axis=1)
    with pytest.raises(ShapeError, match=r"take_along_axis: arguments must have the same rank"):
        ops.OP_REGISTRY["take_along_axis"](x, t([0], "int32"), axis=1)


def test_scatter_shape_errors(backend):
    with pytest.raises(ShapeError, match=r"scatter: 'values' must have shape \(2,\) for "
                                         r"indices of shape \(2, 2\) into \(3, 3\); received "
                                         r"\(3,\)"):
        ops.scatter(t([[0, 0], [1, 1]], "int32"), t([1.0, 2.0, 3.0]), (3, 3))
    with pytest.raises(ShapeError, match=r"scatter: 'indices' must have shape \(\.\.\., k\) "
                                         r"with k <= 1"):
        ops.scatter(t([[0, 0]], "int32"), t([1.0]), (3,))


def test_scatter_add_and_put_along_axis_add_ops_check_shapes(backend):
    with pytest.raises(ShapeError, match=r"scatter_add: 'updates' must have the indices' shape"
                                         r" \(2,\) at axis 0; received shape \(3, 4\)"):
        ops.OP_REGISTRY["scatter_add"](ops.zeros((3, 4)), t([0, 1], "int32"), size=2, axis=0)
    with pytest.raises(ShapeError, match=r"put_along_axis_add: 'updates' must have the "
                                         r"indices' shape"):
        ops.OP_REGISTRY["put_along_axis_add"](ops.zeros((3, 4)), t([[0]], "int32"), size=2,
                                              axis=0)


def test_one_hot_options(backend):
    y = ops.one_hot(t([1, 0], "int32"), 2)
    assert y.dtype == "float32"
    with pytest.raises(ValueError, match=r"one_hot: sparse=True is not supported"):
        ops.one_hot(t([1], "int32"), 2, sparse=True)
    with pytest.raises(ValueError, match=r"one_hot: argument 'num_classes' must not be "
                                         r"negative"):
        ops.one_hot(t([1], "int32"), -1)
    with lamina.GradientTape() as tape:
        x = t([1], "int32")
        tape.watch(x)
        y = ops.one_hot(x, 3)
    assert tape.gradient(ops.sum(y), x) is None


@pytest.mark.parametrize("shape,indices_shape,axis", [
    ((50, 8), (200,), 0), ((6, 4), (3, 5), 1), ((2, 7, 3), (9,), 1), ((30,), (100,), 0),
    ((5, 3), (0,), 0), ((4, 1), (6,), 0)])
@pytest.mark.parametrize("dtype", ["float32", "float64", "int32"])
def test_scatter_add_kernel_matches_add_at(shape, indices_shape, axis, dtype, backend):
    rng = np.random.default_rng(3)
    b = lamina.backend.get_backend()
    size = shape[axis]
    indices = rng.integers(-size, size, indices_shape)
    updates_shape = shape[:axis] + indices_shape + shape[axis + 1:]
    updates = (rng.standard_normal(updates_shape) * 10).astype(dtype)
    got = b.to_host(b.scatter_add(shape, b.asarray(indices), b.asarray(updates), axis))
    want = np_scatter_add(updates, indices % size, size, axis)
    assert got.shape == want.shape and got.dtype == want.dtype
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-4)


@pytest.mark.parametrize("shape,axis,picks", [((4, 6), 1, 7), ((5, 3, 2), 0, 7),
                                               ((2, 3, 4), 2, 7), ((4, 6), 1, 1),
                                               ((3, 2, 5), 0, 1)])
def test_put_along_axis_add_kernel_matches_add_at(shape, axis, picks, backend):
    rng = np.random.default_rng(4)
    b = lamina.backend.get_backend()
    size = shape[axis]
    indices_shape = list(shape)
    indices_shape[axis] = picks
    indices = rng.integers(-size, size, indices_shape)
    updates = rng.standard_normal(indices_shape).astype("float32")
    got = b.to_host(b.put_along_axis_add(shape, b.asarray(indices), b.asarray(updates), axis))
    want = np_put_along(updates, indices % size, size, axis)
    assert got.dtype == np.float32
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)


def test_indexing_of_symbolic_tensors_gives_specs():
    x = SymbolicTensor((None, 5), "float32")
    i = SymbolicTensor((None, 3), "int32")
    assert ops.take(x, i, axis=1).shape == (None, None, 3)
    assert ops.take_along_axis(x, i, axis=1).shape == (None, 3)
    assert ops.one_hot(SymbolicTensor((None,), "int32"), 4).shape == (None, 4)


def test_take_of_no_indices_and_of_integer_tensors(backend):
    x = t(rand(3, 2))
    assert ops.take(x, [], axis=0).shape == (0, 2)
    labels = t([4, 5, 6], "int32")
    y = ops.take(labels, t([2, 0], "int64"))
    assert y.dtype == "int32" and y.numpy().tolist() == [6, 4]
