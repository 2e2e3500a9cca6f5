"""keras.random's gamma, beta, binomial, categorical and shuffle: the moments of large draws
match the distributions', int seeds repeat, SeedGenerators advance, and graph mode draws
what eager draws."""
import numpy as np
import pytest

import lamina
from lamina import random
from lamina.errors import ShapeError

N = 40000


def _moments(t):
    v = np.asarray(t.numpy(), dtype="float64")
    return v.mean(), v.var()


def test_gamma_moments_and_dtype():
    draw = random.gamma((N,), 2.5, seed=1)
    assert draw.dtype == "float32" and draw.shape == (N,)
    mean, var = _moments(draw)
    assert abs(mean - 2.5) < 0.05 and abs(var - 2.5) < 0.1      # Gamma(k, 1): k and k
    per_column = random.gamma((N, 2), np.array([0.5, 4.0]), dtype="float64", seed=2).numpy()
    np.testing.assert_allclose(per_column.mean(axis=0), [0.5, 4.0], rtol=0.05)


def test_beta_moments():
    mean, var = _moments(random.beta((N,), 2.0, 5.0, seed=3))
    assert abs(mean - 2 / 7) < 0.01 and abs(var - 10 / (49 * 8)) < 0.003


def test_binomial_moments_and_default_floatx():
    draw = random.binomial((N,), 10, 0.3, seed=4)
    assert draw.dtype == "float32"
    mean, var = _moments(draw)
    assert abs(mean - 3.0) < 0.05 and abs(var - 2.1) < 0.08
    assert set(np.unique(draw.numpy())) <= set(range(11))
    assert random.binomial((3,), 5, 0.5, dtype="int32", seed=4).dtype == "int32"


def test_categorical_frequencies_follow_softmax():
    probs = np.array([[0.2, 0.8, 0.0], [0.5, 0.25, 0.25]])
    logits = np.log(np.maximum(probs, 1e-30))
    draw = random.categorical(logits, N, seed=5)
    assert draw.dtype == "int32" and draw.shape == (2, N)
    for row, p in zip(draw.numpy(), probs):
        np.testing.assert_allclose(np.bincount(row, minlength=3) / N, p, atol=0.01)


def test_shuffle_permutes_along_an_axis_and_int_seeds_repeat():
    x = np.arange(24.0).reshape(6, 4)
    a = random.shuffle(x, seed=6).numpy()
    assert sorted(map(tuple, a)) == sorted(map(tuple, x)) and not np.array_equal(a, x)
    np.testing.assert_array_equal(a, random.shuffle(x, seed=6).numpy())
    b = random.shuffle(x, axis=1, seed=6).numpy()
    np.testing.assert_array_equal(np.sort(b, axis=1), x)


def test_shuffle_is_differentiable_as_a_gather():
    x = lamina.ops.convert_to_tensor(np.arange(5.0))
    with lamina.GradientTape() as tape:
        tape.watch(x)
        y = lamina.ops.sum(random.shuffle(x, seed=1) * np.arange(5.0))
    grad = tape.gradient(y, x).numpy()
    np.testing.assert_array_equal(np.sort(grad), np.arange(5.0))


@pytest.mark.parametrize("draw", [
    lambda s: random.gamma((5,), 1.5, seed=s),
    lambda s: random.beta((5,), 1.5, 2.0, seed=s),
    lambda s: random.binomial((5,), 8, 0.4, seed=s),
    lambda s: random.categorical(np.zeros((2, 3)), 4, seed=s),
    lambda s: random.shuffle(np.arange(7.0), seed=s),
], ids=["gamma", "beta", "binomial", "categorical", "shuffle"])
def test_graph_draws_what_eager_draws_and_generators_advance(draw):
    eager_gen, graph_gen = random.SeedGenerator(11), random.SeedGenerator(11)
    step = lamina.jit(lambda: draw(graph_gen))
    first, second = draw(eager_gen).numpy(), draw(eager_gen).numpy()
    np.testing.assert_array_equal(step().numpy(), first)
    np.testing.assert_array_equal(step().numpy(), second)


def test_bad_arguments_name_the_function_and_argument():
    with pytest.raises(ShapeError, match=r"categorical: argument 'logits' must have shape "
                                         r"\(batch, classes\); received shape \(3,\)"):
        random.categorical(np.zeros(3), 2, seed=1)
    with pytest.raises(ValueError, match=r"categorical: argument 'num_samples' must be a "
                                         r"non-negative int; received -1"):
        random.categorical(np.zeros((1, 3)), -1)
    with pytest.raises(ValueError, match=r"shuffle: argument 'axis' must be an int in "
                                         r"\[-2, 2\); received 2"):
        random.shuffle(np.zeros((2, 3)), axis=2)
    with pytest.raises(ShapeError, match=r"random_gamma: a parameter of shape \(3,\) does not "
                                         r"broadcast to the draw's shape \(2,\)"):
        random.gamma((2,), np.ones(3), seed=1)
    with pytest.raises(TypeError, match=r"SeedGenerator: Unrecognized keyword arguments "
                                        r"\['sead'\]"):
        random.SeedGenerator(sead=1)
