"""The Python surface of tensors: operators, indexing, methods and conversions."""
import numpy as np
import pytest

import lamina
from lamina import ops
from lamina.graph import SymbolicTensor
from tests.harness import rand


def t(values, dtype="float64"):
    return ops.convert_to_tensor(np.asarray(values, dtype=dtype))


def grad_of(fn, x):
    with lamina.GradientTape() as tape:
        tape.watch(x)
        y = fn(x)
    return tape.gradient(y, x)


@pytest.mark.parametrize("key", [
    0, -1, (1, 2), slice(1, None), (slice(None), 0), (Ellipsis, 1), (None, 1),
    (slice(None, None, -1), None, slice(0, 3, 2)), (0, Ellipsis, None), (),
    [1, 0], (slice(None), [3, 3, 0]), (1, [0, 2]), np.array([2, 0]),
])
def test_subscript_matches_numpy(key, backend):
    x = rand(3, 4, 2)
    y = t(x)[key]
    np.testing.assert_array_equal(y.numpy(), x[key])


def test_subscript_gradient_places_g_in_zeros(backend):
    x = t(rand(3, 4))
    g = grad_of(lambda v: ops.sum(v[1:, ::2] * 3.0), x).numpy()
    expected = np.zeros((3, 4))
    expected[1:, ::2] = 3.0
    np.testing.assert_array_equal(g, expected)
    g = grad_of(lambda v: ops.sum(v[[0, 0, 2]]), x).numpy()
    np.testing.assert_array_equal(g, [[2] * 4, [0] * 4, [1] * 4])


def test_subscript_with_tensor_bounds(backend):
    x = rand(5)
    lo, hi = t(1, "int32"), t(4, "int64")
    np.testing.assert_array_equal(t(x)[lo:hi].numpy(), x[1:4])
    np.testing.assert_array_equal(t(x)[lo].numpy(), x[1])


def test_transpose_property_and_methods(backend):
    x = rand(2, 3, 4)
    assert t(x).T.shape == (4, 3, 2)
    np.testing.assert_array_equal(t(x).T.numpy(), x.T)
    v = t([1.0, 2.0])
    assert v.T is v
    np.testing.assert_array_equal(t(x).transpose().numpy(), x.transpose())
    np.testing.assert_array_equal(t(x).transpose(1, 0, 2).numpy(), x.transpose(1, 0, 2))
    np.testing.assert_array_equal(t(x).transpose((2, 0, 1)).numpy(), x.transpose(2, 0, 1))


def test_reshape_method_forms(backend):
    x = rand(2, 6)
    assert t(x).reshape(3, 4).shape == (3, 4)
    assert t(x).reshape((4, -1)).shape == (4, 3)
    assert t(x).reshape([12]).shape == (12,)
    np.testing.assert_array_equal(t(x).reshape(-1).numpy(), x.reshape(-1))


def test_reduction_methods(backend):
    x = rand(3, 4)
    tx = t(x)
    np.testing.assert_allclose(tx.sum().numpy(), x.sum())
    np.testing.assert_allclose(tx.sum(axis=0).numpy(), x.sum(axis=0))
    np.testing.assert_allclose(tx.mean(axis=1, keepdims=True).numpy(), x.mean(1, keepdims=True))
    np.testing.assert_allclose(tx.max(axis=-1).numpy(), x.max(axis=-1))
    np.testing.assert_allclose(tx.min().numpy(), x.min())
    np.testing.assert_array_equal(tx.argmax(axis=1).numpy(), x.argmax(axis=1))
    assert int(tx.argmax()) == x.argmax()


def test_elementwise_methods(backend):
    x = rand(5, low=0.5, high=2.0)
    tx = t(x)
    np.testing.assert_allclose(tx.exp().numpy(), np.exp(x))
    np.testing.assert_allclose(tx.log().numpy(), np.log(x))
    np.testing.assert_allclose(tx.sqrt().numpy(), np.sqrt(x))
    np.testing.assert_allclose(tx.square().numpy(), x * x)
    np.testing.assert_allclose((-tx).abs().numpy(), x)
    assert tx.astype("float32").dtype == "float32"


def test_matmul_operator_and_its_gradient(backend):
    a, w = rand(2, 3), rand(3, 4)
    np.testing.assert_allclose((t(a) @ t(w)).numpy(), a @ w)
    np.testing.assert_allclose((a @ t(w)).numpy(), a @ w)
    np.testing.assert_allclose((t(a) @ w).numpy(), a @ w)
    tw = t(w)
    g = grad_of(lambda v: ops.sum(t(a) @ v), tw).numpy()
    np.testing.assert_allclose(g, a.T @ np.ones((2, 4)))


def test_arithmetic_operators_and_reflections(backend):
    x = rand(4, low=0.5, high=2.0)
    tx = t(x)
    for got, want in [
        (tx + 1, x + 1), (1 + tx, 1 + x), (tx - 1, x - 1), (1 - tx, 1 - x),
        (tx * 2, x * 2), (2 * tx, 2 * x), (tx / 2, x / 2), (2 / tx, 2 / x),
        (tx // 0.3, x // 0.3), (3 // tx, 3 // x), (tx % 0.3, x % 0.3),
        (tx ** 2, x ** 2), (2 ** tx, 2 ** x), (-tx, -x), (+tx, x), (abs(-tx), x),
        (np.ones(4) + tx, 1 + x), (np.ones(4) * tx, x),
    ]:
        assert isinstance(got, lamina.Tensor)
        np.testing.assert_allclose(got.numpy(), want)


def test_comparison_and_logical_operators(backend):
    x = rand(6)
    tx = t(x)
    for got, want in [(tx < 0, x < 0), (tx <= 0, x <= 0), (tx > 0, x > 0), (tx >= 0, x >= 0),
                      (tx == tx, x == x), (tx != 0.5, x != 0.5)]:
        assert got.dtype == "bool"
        np.testing.assert_array_equal(got.numpy(), want)
    a, b = tx > 0, tx > 0.5
    np.testing.assert_array_equal((a & b).numpy(), (x > 0) & (x > 0.5))
    np.testing.assert_array_equal((a | b).numpy(), (x > 0) | (x > 0.5))
    np.testing.assert_array_equal((a ^ b).numpy(), (x > 0) ^ (x > 0.5))
    np.testing.assert_array_equal((~a).numpy(), ~(x > 0))


def test_tensors_hash_by_identity(backend):
    a, b = t([1.0]), t([1.0])
    table = {a: "a", b: "b"}
    assert table[a] == "a" and table[b] == "b"
    assert len({a, b, a}) == 2


def test_reflected_mod(backend):
    np.testing.assert_allclose((2 % t([0.75])).numpy(), [0.5])


def test_reflected_logical_operators(backend):
    b = t([True, False], "bool")
    np.testing.assert_array_equal((True & b).numpy(), [True, False])
    np.testing.assert_array_equal((False | b).numpy(), [True, False])
    np.testing.assert_array_equal((True ^ b).numpy(), [False, True])


def test_len_and_iteration(backend):
    x = rand(3, 2)
    tx = t(x)
    assert len(tx) == 3
    rows = list(tx)
    assert len(rows) == 3 and all(r.shape == (2,) for r in rows)
    np.testing.assert_array_equal(np.stack([r.numpy() for r in rows]), x)
    with pytest.raises(TypeError, match=r"len\(\) of a 0-d tensor"):
        len(t(1.0))
    with pytest.raises(TypeError, match=r"len\(\) of a 0-d tensor"):
        iter(t(1.0)).__next__()
    with pytest.raises(TypeError, match=r"len\(\) of a tensor whose first dimension is unknown"):
        len(SymbolicTensor((None, 2)))
    assert len(SymbolicTensor((4, None))) == 4


def test_gradient_flows_through_iteration(backend):
    x = t(rand(3, 2))
    g = grad_of(lambda v: sum(ops.sum(row * float(i)) for i, row in enumerate(v)), x).numpy()
    np.testing.assert_array_equal(g, [[0, 0], [1, 1], [2, 2]])


def test_python_scalar_conversions(backend):
    assert bool(t([1.0])) is True and bool(t(0.0)) is False
    assert float(t([[2.5]])) == 2.5
    assert int(t(7.9)) == 7
    assert t(3, "int32").item() == 3
    assert [10, 20, 30][t(2, "int64")] == 30
    assert t([[1, 2]], "int32").tolist() == [[1, 2]]
    with pytest.raises(ValueError, match=r"the truth value of a tensor of shape \(2,\) is "
                                         r"ambiguous; use lamina.ops.any\(\) or "
                                         r"lamina.ops.all\(\)"):
        bool(t([1.0, 2.0]))
    with pytest.raises(TypeError, match=r"only integer scalar tensors can be used as an index;"
                                        r" received dtype float64"):
        [1, 2][t(1.0)]
    with pytest.raises(TypeError, match=r"a symbolic tensor has no truth value"):
        bool(SymbolicTensor((1,)))


def test_shape_properties_and_repr(backend):
    x = ops.convert_to_tensor(np.zeros((2, 3), np.float32))
    assert (x.shape, x.ndim, x.size, x.dtype) == ((2, 3), 2, 6, "float32")
    text = repr(x)
    assert "shape=(2, 3)" in text and "dtype=float32" in text
    assert np.asarray(x).shape == (2, 3)
    assert np.asarray(x, dtype=np.float64).dtype == np.float64


def test_symbolic_tensors_share_the_operator_surface():
    x = SymbolicTensor((None, 4), "float32")
    w = SymbolicTensor((4, 3), "float32")
    assert (x @ w).shape == (None, 3)
    assert x.T.shape == (4, None)
    assert x[:, 1:3].shape == (None, 2)
    assert x.reshape(-1, 2, 2).shape == (None, 2, 2)
    assert x.sum(axis=1).shape == (None,)
    assert x.argmax(axis=-1).dtype == "int32"


def test_indexing_a_variable_gives_it_a_gradient(backend):
    v = lamina.Variable(np.arange(6.0).reshape(2, 3))
    with lamina.GradientTape() as tape:
        y = ops.sum(v[1, 1:] * 2.0) + ops.sum(v[[0, 0]])
    np.testing.assert_array_equal(tape.gradient(y, v).numpy(), [[2, 2, 2], [0, 2, 2]])
