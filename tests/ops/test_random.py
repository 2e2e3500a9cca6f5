"""Random ops: kernels against the Philox definition, statistics, dropout, error paths."""
import numpy as np
import pytest

import lamina
from lamina import ops
from lamina.errors import DTypeArgumentError, DTypeError, ShapeError
from lamina.graph import SymbolicTensor
from lamina.ops import random as random_ops
from tests.harness import case, rand, rand_away_from, run_case
from tests.random import reference

KEY = (0x0123456789ABCDEF, 0xFEDCBA9876543210)


def int_seed_key(seed):
    return (seed, 0)


def dropout_reference(rate, seed, noise_shape=None):
    def ref(x):
        shape = x.shape if noise_shape is None else noise_shape
        keep = reference.bernoulli(shape, 1 - rate, "float64", int_seed_key(seed), 0)
        return x * keep * (1 / (1 - rate))
    return ref


CASES = [
    case("random_uniform", lambda x: ops.random_uniform(x.shape, dtype=x.dtype, seed=11),
         lambda x: reference.uniform(x.shape, x.dtype, int_seed_key(11), 0),
         [np.zeros((3, 5))], grad=False),
    case("random_uniform",
         lambda x: ops.random_uniform(x.shape, minval=-2.0, maxval=3.0, dtype=x.dtype, seed=4),
         lambda x: -2.0 + 5.0 * reference.uniform(x.shape, x.dtype, int_seed_key(4), 0),
         [np.zeros((2, 7))], grad=False, label="minval-maxval"),
    case("random_normal", lambda x: ops.random_normal(x.shape, dtype=x.dtype, seed=12),
         lambda x: reference.normal(x.shape, x.dtype, int_seed_key(12), 0),
         [np.zeros((4, 5))], grad=False),
    case("random_normal",
         lambda x: ops.random_normal(x.shape, mean=1.5, stddev=0.25, dtype=x.dtype, seed=3),
         lambda x: 1.5 + 0.25 * reference.normal(x.shape, x.dtype, int_seed_key(3), 0),
         [np.zeros((3, 3))], grad=False, label="mean-stddev"),
    case("random_truncated_normal",
         lambda x: ops.random_truncated_normal(x.shape, mean=-1.0, stddev=2.0, dtype=x.dtype,
                                               seed=5),
         lambda x: -1.0 + 2.0 * reference.truncated_normal(x.shape, x.dtype,
                                                           int_seed_key(5), 0),
         [np.zeros((6, 8))], grad=False),
    case("random_bernoulli",
         lambda x: ops.random_bernoulli(x.shape, p=0.3, dtype=x.dtype, seed=6),
         lambda x: reference.bernoulli(x.shape, 0.3, x.dtype, int_seed_key(6), 0),
         [np.zeros((5, 6))], grad=False),
    case("random_randint", lambda x: ops.random_randint(x.shape, -3, 7, seed=8),
         lambda x: (np.floor(reference.uniform(x.shape, "float64", int_seed_key(8), 0) * 10)
                    - 3).astype("int32"),
         [np.zeros((4, 6))], grad=False),
    case("dropout", lambda x: ops.dropout(x, 0.3, seed=9), dropout_reference(0.3, 9),
         [rand(4, 6)], second_order=True),
    case("dropout", lambda x: ops.dropout(x, 0.5, noise_shape=(None, 1, 3), seed=10),
         dropout_reference(0.5, 10, noise_shape=(2, 1, 3)), [rand(2, 4, 3)],
         label="noise-shape"),
]


@pytest.mark.parametrize("c", CASES, ids=str)
def test_forward_and_gradient(c, backend):
    run_case(c)


def host(t):
    return t.numpy() if isinstance(t, lamina.Tensor) else np.asarray(t)


# --------------------------------------------------------------------------- kernels
@pytest.mark.parametrize("counter", [0, 1, 7, 2**40, 2**64 + 3])
@pytest.mark.parametrize("dtype", ["float16", "float32", "float64"])
def test_uniform_kernel_matches_the_philox_definition(backend, counter, dtype):
    got = host(backend.random_uniform((3, 7), dtype, KEY, counter))
    assert got.dtype == dtype and got.shape == (3, 7)
    np.testing.assert_array_equal(got, reference.uniform((3, 7), dtype, KEY, counter))


@pytest.mark.parametrize("counter", [0, 5, 2**64 * 3 + 1])
@pytest.mark.parametrize("dtype", ["float16", "float32", "float64"])
def test_normal_kernel_matches_the_philox_definition(backend, counter, dtype):
    got = host(backend.random_normal((5, 3), dtype, KEY, counter))
    assert got.dtype == dtype and got.shape == (5, 3)
    rtol = {"float16": 1e-3, "float32": 1e-6, "float64": 1e-12}[dtype]
    np.testing.assert_allclose(got, reference.normal((5, 3), dtype, KEY, counter), rtol=rtol,
                               atol=rtol)


@pytest.mark.parametrize("kernel", ["random_uniform", "random_normal"])
def test_kernels_are_pure_functions_of_key_and_counter(backend, kernel):
    draw = getattr(backend, kernel)
    a = host(draw((50,), "float32", KEY, 3))
    np.testing.assert_array_equal(a, host(draw((50,), "float32", KEY, 3)))
    assert not np.any(a == host(draw((50,), "float32", KEY, 4)))
    assert not np.any(a == host(draw((50,), "float32", (KEY[0], KEY[1] + 1), 3)))
    # A smaller draw is a prefix of a larger one: values depend on the index alone.
    np.testing.assert_array_equal(host(draw((2, 5), "float32", KEY, 3)).reshape(-1), a[:10])


def test_uniform_dtypes_keep_the_leading_bits_of_one_word(backend):
    u64 = host(backend.random_uniform((200,), "float64", KEY, 9))
    u32 = host(backend.random_uniform((200,), "float32", KEY, 9))
    u16 = host(backend.random_uniform((200,), "float16", KEY, 9))
    np.testing.assert_array_equal(u32, np.floor(u64 * 2**24) / 2**24)
    np.testing.assert_array_equal(u16, np.floor(u64 * 2**11) / 2**11)
    for u in (u64, u32, u16):
        assert u.min() >= 0 and u.max() < 1


def test_kernel_scalar_and_empty_shapes(backend):
    assert host(backend.random_uniform((), "float32", KEY, 0)).shape == ()
    assert host(backend.random_normal((0, 3), "float64", KEY, 0)).shape == (0, 3)
    assert host(backend.random_normal((3,), "float64", KEY, 0)).shape == (3,)


def test_kernels_reject_bad_dtype_key_and_counter(backend):
    with pytest.raises(DTypeError, match=r"random_uniform: expected a float dtype "
                                         r"\(float16, bfloat16, float32, float64\); "
                                         r"received int32"):
        backend.random_uniform((2,), "int32", KEY, 0)
    with pytest.raises(ValueError, match=r"random_normal: expected 'key' to be two integers "
                                         r"in \[0, 2\*\*64\); received \(-1, 0\)"):
        backend.random_normal((2,), "float32", (-1, 0), 0)
    with pytest.raises(ValueError, match=r"random_normal: expected 'counter' in \[0, 2\*\*128\); "
                                         r"received -3"):
        backend.random_normal((2,), "float32", KEY, -3)


def test_numpy_kernels_name_unknown_dtypes_and_malformed_keys():
    numpy_backend = lamina.backend.get_backend("numpy")
    with pytest.raises(DTypeError, match=r"random_normal: expected a float dtype .*bogus"):
        numpy_backend.random_normal((2,), "bogus", KEY, 0)
    with pytest.raises(ValueError, match=r"random_uniform: expected 'key' to be two integers "
                                         r"in \[0, 2\*\*64\); received \(1, 2, 3\)"):
        numpy_backend.random_uniform((2,), "float32", (1, 2, 3), 0)


# --------------------------------------------------------------------------- statistics
N = 100_000


def test_uniform_statistics(backend):
    u = host(ops.random_uniform((N,), dtype="float64", seed=1))
    assert u.min() >= 0 and u.max() < 1
    assert abs(u.mean() - 0.5) < 0.005
    assert abs(u.var() - 1 / 12) < 0.002
    x = host(ops.random_uniform((N,), minval=-3.0, maxval=5.0, seed=2))
    assert x.min() >= -3 and x.max() < 5
    assert abs(x.mean() - 1.0) < 0.04
    assert abs(x.var() - 64 / 12) < 0.1


def test_normal_statistics(backend):
    z = host(ops.random_normal((N,), dtype="float64", seed=3))
    assert abs(z.mean()) < 0.015
    assert abs(z.var() - 1) < 0.02
    assert abs(np.mean(z**3)) < 0.05                  # symmetric
    assert abs(np.mean(z**4) - 3) < 0.1               # normal kurtosis
    x = host(ops.random_normal((N,), mean=2.0, stddev=3.0, seed=4))
    assert abs(x.mean() - 2) < 0.05
    assert abs(x.std() - 3) < 0.05


def test_truncated_normal_statistics(backend):
    x = host(ops.random_truncated_normal((N,), mean=1.0, stddev=2.0, dtype="float64", seed=5))
    assert np.all(np.abs(x - 1.0) <= 4.0)
    assert abs(x.mean() - 1.0) < 0.03
    # Var of a standard normal truncated to [-2, 2] is 1 - 4 phi(2) / (Phi(2) - Phi(-2)).
    assert abs(x.var() / 4.0 - 0.7737413) < 0.01
    # Re-drawn, not clipped: no mass piles up at the bounds, and the tails are there.
    assert not np.any(np.abs(x - 1.0) == 4.0)
    assert np.mean(np.abs(x - 1.0) > 3.8) > 0.001


def test_truncated_normal_redraws_only_the_values_out_of_range(backend):
    shape = (10, 10)
    first = reference.normal(shape, "float64", int_seed_key(7), 0)
    assert np.any(np.abs(first) > 2)                  # the seed exercises re-drawing
    got = host(ops.random_truncated_normal(shape, dtype="float64", seed=7))
    inside = np.abs(first) <= 2
    np.testing.assert_array_equal(got[inside], first[inside])
    np.testing.assert_allclose(got, reference.truncated_normal(shape, "float64",
                                                               int_seed_key(7), 0), rtol=1e-12)


def test_truncated_normal_fallback_clips_the_last_candidate(backend, monkeypatch):
    monkeypatch.setattr(random_ops, "TRUNCATED_NORMAL_CANDIDATES", 1)
    first = reference.normal((10, 10), "float64", int_seed_key(7), 0)
    got = host(ops.random_truncated_normal((10, 10), dtype="float64", seed=7))
    np.testing.assert_allclose(got, np.clip(first, -2, 2), rtol=1e-12)


def test_bernoulli_rate_and_dtypes(backend):
    b = host(ops.random_bernoulli((N,), p=0.3, seed=6))
    assert b.dtype == "float32" and set(np.unique(b)) == {0.0, 1.0}
    assert abs(b.mean() - 0.3) < 0.006
    for dtype in ("bool", "int32", "float16", "float64"):
        assert host(ops.random_bernoulli((4,), 0.5, dtype=dtype, seed=1)).dtype == dtype
    assert not host(ops.random_bernoulli((100,), p=0.0, seed=2)).any()
    assert host(ops.random_bernoulli((100,), p=1.0, seed=2)).all()


def test_randint_range_and_dtype(backend):
    x = host(ops.random_randint((N,), -5, 5, seed=7))
    assert x.dtype == "int32"
    assert set(np.unique(x)) == set(range(-5, 5))
    counts = np.bincount(x + 5)
    assert np.all(np.abs(counts / N - 0.1) < 0.006)
    big = host(ops.random_randint((1000,), 2**40, 2**40 + 3, dtype="int64", seed=8))
    assert big.dtype == "int64" and set(np.unique(big)) == {2**40, 2**40 + 1, 2**40 + 2}
    assert host(ops.random_randint((5,), 0, 256, dtype="uint8", seed=1)).dtype == "uint8"


@pytest.mark.parametrize("dtype", ["float16", "float32", "float64"])
def test_float_dtypes(backend, dtype):
    for fn in (ops.random_uniform, ops.random_normal, ops.random_truncated_normal):
        x = fn((3, 4), dtype=dtype, seed=1)
        assert x.dtype == dtype and x.shape == (3, 4)
        assert np.all(np.isfinite(host(x)))
    y = ops.dropout(ops.convert_to_tensor(np.ones((8, 8)), dtype=dtype), 0.5, seed=2)
    assert y.dtype == dtype
    assert set(np.unique(host(y))) <= {0.0, 2.0}


def test_default_dtype_is_floatx(backend):
    assert ops.random_uniform((2,), seed=1).dtype == "float32"
    assert ops.random_normal((2,), seed=1).dtype == "float32"
    assert ops.random_bernoulli((2,), seed=1).dtype == "float32"


def test_int_seed_gives_the_same_values_every_call(backend):
    for fn in (ops.random_uniform, ops.random_normal, ops.random_truncated_normal):
        np.testing.assert_array_equal(host(fn((20,), seed=123)), host(fn((20,), seed=123)))
        assert not np.array_equal(host(fn((20,), seed=123)), host(fn((20,), seed=124)))


# --------------------------------------------------------------------------- dropout
def test_dropout_scales_kept_values_and_drops_about_rate(backend):
    x = ops.convert_to_tensor(rand_away_from(200, 500, points=(0.0,), margin=0.01))
    y = host(ops.dropout(x, 0.25, seed=3))
    kept = y != 0
    np.testing.assert_allclose(y[kept], x.numpy()[kept] / 0.75, rtol=1e-6)
    assert abs(1 - kept.mean() - 0.25) < 0.006


def test_dropout_rate_zero_is_the_identity(backend):
    x = ops.convert_to_tensor(rand(3, 4))
    assert ops.dropout(x, 0.0, seed=1) is x
    assert ops.dropout(x, 0, seed=None) is x


def test_dropout_noise_shape_broadcasts_the_mask(backend):
    x = ops.convert_to_tensor(np.ones((6, 5, 4)))
    y = host(ops.dropout(x, 0.5, noise_shape=(6, 1, 4), seed=2))
    assert np.all(y == y[:, :1, :])                   # one mask value along axis 1
    assert set(np.unique(y)) == {0.0, 2.0}
    z = host(ops.dropout(x, 0.5, noise_shape=(None, 1, None), seed=2))
    np.testing.assert_array_equal(y, z)


def test_dropout_gradient_is_the_scaled_mask(backend):
    x = ops.convert_to_tensor(rand(5, 6))
    with lamina.GradientTape() as tape:
        tape.watch(x)
        y = ops.sum(ops.dropout(x, 0.4, seed=11))
    (g,) = tape.gradient(y, [x])
    mask = reference.bernoulli((5, 6), 0.6, "float64", int_seed_key(11), 0)
    np.testing.assert_allclose(g.numpy(), mask / 0.6, rtol=1e-12)


@pytest.mark.parametrize("rate", [-0.1, 1.5])
def test_dropout_rejects_rate_outside_zero_one(backend, rate):
    x = ops.convert_to_tensor(rand(2, 2))
    with pytest.raises(ValueError, match=rf"dropout: argument 'rate' must be in \[0, 1\]; "
                                         rf"received {rate}"):
        ops.dropout(x, rate, seed=1)


def test_dropout_rate_one_drops_everything_and_advances_the_generator(backend):
    # Keras: rate=1.0 gives zeros (random_test.py::test_dropout), also where x is inf or
    # NaN, with a zero gradient; the generator advances as for any other rate.
    x = ops.convert_to_tensor(np.array([[1.5, -2.0, np.inf], [np.nan, 0.0, 3.0]]))
    gen = lamina.random.SeedGenerator(3)
    with lamina.GradientTape() as tape:
        tape.watch(x)
        y = ops.dropout(x, 1.0, seed=gen)
        total = ops.sum(ops.multiply(y, 2.0))
    np.testing.assert_array_equal(host(y), np.zeros((2, 3)))
    assert y.dtype == x.dtype
    (g,) = tape.gradient(total, [x])
    np.testing.assert_array_equal(g.numpy(), np.zeros((2, 3)))
    assert int(gen.state.numpy()) == 1
    np.testing.assert_array_equal(host(ops.dropout(ops.ones((4, 4)), 1, seed=0)),
                                  np.zeros((4, 4)))


def test_dropout_rate_one_in_a_compiled_model():
    inputs = lamina.Input((3,))
    outputs = lamina.layers.Lambda(lambda t: ops.dropout(t, 1.0, seed=5))(inputs)
    model = lamina.Model(inputs, outputs)
    x = np.array([[1.0, np.inf, -2.0], [np.nan, 2.0, 3.0]], "float32")
    np.testing.assert_array_equal(model.predict(x, verbose=0), np.zeros((2, 3)))
    np.testing.assert_array_equal(model(x).numpy(), np.zeros((2, 3)))


def test_dropout_argument_errors(backend):
    x = ops.convert_to_tensor(rand(2, 3))
    with pytest.raises(TypeError, match=r"dropout: argument 'rate' must be a Python number; "
                                        r"received '0.5'"):
        ops.dropout(x, "0.5")
    with pytest.raises(DTypeError, match=r"dropout: argument 'x' must be a floating-point "
                                         r"tensor; received dtype int32"):
        ops.dropout(ops.convert_to_tensor([1, 2]), 0.5)
    with pytest.raises(ShapeError, match=r"dropout: argument 'noise_shape' must have one entry "
                                         r"per dimension of x.*received noise_shape \(2,\) for "
                                         r"x of shape \(2, 3\)"):
        ops.dropout(x, 0.5, noise_shape=(2,))
    with pytest.raises(ShapeError, match=r"dropout: argument 'noise_shape' .*received "
                                         r"noise_shape \(2, 2\)"):
        ops.dropout(x, 0.5, noise_shape=(2, 2))


# --------------------------------------------------------------------------- errors
def test_shape_errors(backend):
    with pytest.raises(ShapeError, match=r"random_uniform: argument 'shape' must be a tuple "
                                         r"of non-negative ints; received \(2, -1\)"):
        ops.random_uniform((2, -1))
    with pytest.raises(ShapeError, match=r"random_normal: argument 'shape' must be a tuple of "
                                         r"non-negative ints; received \(2.5,\)"):
        ops.random_normal((2.5,))
    with pytest.raises(ShapeError, match=r"random_bernoulli: argument 'shape' .*received -3"):
        ops.random_bernoulli(-3)
    assert ops.random_uniform(4, seed=1).shape == (4,)
    assert ops.random_normal((), seed=1).shape == ()
    assert ops.random_normal((0, 2), seed=1).shape == (0, 2)


def test_dtype_errors(backend):
    # DTypeArgumentError: a DTypeError (TypeError) and the ValueError Keras raises, with
    # Keras's phrase naming the public function.
    with pytest.raises(DTypeArgumentError,
                       match=r"random_uniform: `keras.random.uniform` requires a floating "
                             r"point `dtype`; argument 'dtype' must be one of "
                             r"\('float16', 'bfloat16', 'float32', 'float64'\); "
                             r"received 'int32'"):
        ops.random_uniform((2,), dtype="int32")
    with pytest.raises(ValueError, match=r"random_truncated_normal: .*argument 'dtype' must "
                                         r"be one of .*received 'complex'"):
        ops.random_truncated_normal((2,), dtype="complex")
    with pytest.raises(DTypeError, match=r"random_randint: `keras.random.randint` requires an "
                                         r"integer `dtype`; argument 'dtype' must be one of "
                                         r"\('int8', .*received 'float32'"):
        ops.random_randint((2,), 0, 4, dtype="float32")
    with pytest.raises(DTypeError, match=r"random_bernoulli: argument 'dtype' .*received "
                                         r"'nope'"):
        ops.random_bernoulli((2,), dtype="nope")


def test_randint_errors(backend):
    with pytest.raises(ValueError, match=r"random_randint: expected minval < maxval; received "
                                         r"minval=3, maxval=3"):
        ops.random_randint((2,), 3, 3)
    with pytest.raises(ValueError, match=r"random_randint: expected minval < maxval; received "
                                         r"minval=5, maxval=1"):
        ops.random_randint((2,), 5, 1)
    with pytest.raises(TypeError, match=r"random_randint: argument 'maxval' must be an int; "
                                        r"received 2.5"):
        ops.random_randint((2,), 0, 2.5)
    with pytest.raises(ValueError, match=r"random_randint: the range \[minval, maxval\) must "
                                         r"fit in int8 .*received \[0, 300\)"):
        ops.random_randint((2,), 0, 300, dtype="int8")
    with pytest.raises(ValueError, match=r"random_randint: maxval - minval must be at most "
                                         r"2\*\*53; received 18014398509481984"):
        ops.random_randint((2,), 0, 2**54, dtype="int64")


def test_bernoulli_and_seed_errors(backend):
    with pytest.raises(ValueError, match=r"random_bernoulli: argument 'p' must be in \[0, 1\]; "
                                         r"received 1.5"):
        ops.random_bernoulli((2,), p=1.5)
    with pytest.raises(TypeError, match=r"random_bernoulli: argument 'p' must be a Python "
                                        r"number; received None"):
        ops.random_bernoulli((2,), p=None)
    with pytest.raises(TypeError, match=r"random_uniform: argument 'seed' must be an int, a "
                                        r"lamina.random.SeedGenerator or None; received 'abc'"):
        ops.random_uniform((2,), seed="abc")
    with pytest.raises(TypeError, match=r"random_normal: argument 'seed' must be an int, .*"
                                        r"received True"):
        ops.random_normal((2,), seed=True)


# --------------------------------------------------------------------------- the op contract
def counter(value=0):
    return ops.convert_to_tensor(np.array(value, dtype="int64"))


def test_random_ops_are_stateful_and_not_differentiable():
    for name in ("random_uniform", "random_normal", "random_truncated_normal",
                 "random_bernoulli"):
        op = ops.OP_REGISTRY[name]
        assert op.stateful and not op.differentiable


def test_the_counter_is_an_input_tensor(backend):
    op = random_ops.RandomUniform
    a = op(counter(5), shape=(6,), dtype="float64", key=KEY)
    np.testing.assert_array_equal(a.numpy(), reference.uniform((6,), "float64", KEY, 5))
    b = op(counter(6), shape=(6,), dtype="float64", key=KEY)
    np.testing.assert_array_equal(b.numpy(), reference.uniform((6,), "float64", KEY, 6))


def test_forward_writes_into_out(backend):
    op = random_ops.RandomNormal
    out = backend.empty((2, 3), "float32")
    result = op.forward(backend, backend.asarray(np.array(2, dtype="int64")), out=out,
                        shape=(2, 3), dtype="float32", key=KEY)
    assert result is out
    np.testing.assert_array_equal(host(out), host(backend.random_normal((2, 3), "float32",
                                                                        KEY, 2)))


def test_op_spec_errors(backend):
    op = random_ops.RandomUniform
    with pytest.raises(DTypeError, match=r"random_uniform: argument 'counter' must be an int64 "
                                         r"scalar; received dtype int32"):
        op(ops.convert_to_tensor(0), shape=(2,), dtype="float32", key=KEY)
    with pytest.raises(ShapeError, match=r"random_uniform: argument 'counter' must be a "
                                         r"scalar; received shape \(1,\)"):
        op(ops.convert_to_tensor(np.zeros(1, dtype="int64")), shape=(2,), dtype="float32",
           key=KEY)
    with pytest.raises(DTypeError, match=r"random_normal: argument 'dtype' must be one of "
                                         r"\('float16', 'bfloat16', 'float32', 'float64'\); "
                                         r"received 'int64'"):
        random_ops.RandomNormal(counter(), shape=(2,), dtype="int64", key=KEY)
    with pytest.raises(ShapeError, match=r"random_uniform: a shape with unknown sizes needs a "
                                         r"'like' input to take them from; received shape "
                                         r"\(None, 2\)"):
        op(counter(), shape=(None, 2), dtype="float32", key=KEY)
    with pytest.raises(ShapeError, match=r"random_uniform: argument 'like' must be one tensor "
                                         r"of rank 2; received \(3,\)"):
        op(counter(), ops.convert_to_tensor(np.zeros(3)), shape=(None, 2), dtype="float32",
           key=KEY)


def test_unknown_sizes_come_from_like(backend):
    x = ops.convert_to_tensor(np.zeros((3, 2)))
    a = random_ops.RandomUniform(counter(1), x, shape=(None, 1), dtype="float64", key=KEY)
    assert a.shape == (3, 1)
    np.testing.assert_array_equal(a.numpy(), reference.uniform((3, 1), "float64", KEY, 1))


def test_symbolic_dropout_records_a_replayable_draw():
    """A traced dropout records the mask draw with the counter as an input; running the
    recorded node later on concrete values gives the eager mask of that counter."""
    x = SymbolicTensor((None, 4), "float32")
    y = ops.dropout(x, 0.5, seed=21)
    assert isinstance(y, SymbolicTensor) and y.shape == (None, 4)
    mask_node = y.node.inputs[1].node.inputs[0].node
    assert mask_node.op.name == "random_bernoulli"
    assert mask_node.inputs[1] is x
    backend = lamina.backend.get_backend("numpy")
    values = np.ones((3, 4), dtype="float32")
    replayed = mask_node.op.forward(backend, np.array(0, dtype="int64"), values,
                                    **mask_node.attrs)
    eager = ops.dropout(ops.convert_to_tensor(values), 0.5, seed=21).numpy()
    np.testing.assert_array_equal(replayed * 2.0, eager)
