"""RandomUniform, RandomNormal, TruncatedNormal: statistics, seeding and argument checks."""
import numpy as np
import pytest

import lamina
from lamina.errors import DTypeError
from lamina.initializers import RandomNormal, RandomUniform, TruncatedNormal
from lamina.random import SeedGenerator

SHAPE = (400, 500)          # 200k values: the mean is known to about 0.002 standard deviations


def test_random_uniform_statistics(backend):
    values = RandomUniform(-0.5, 1.5, seed=1)(SHAPE).numpy()
    assert values.dtype == np.float32 and values.shape == SHAPE
    assert values.min() >= -0.5 and values.max() < 1.5
    assert values.min() < -0.49 and values.max() > 1.49
    assert abs(values.mean() - 0.5) < 0.01
    assert abs(values.std() - 2 / np.sqrt(12)) < 0.01


def test_random_uniform_defaults():
    values = RandomUniform(seed=2)(SHAPE).numpy()
    assert -0.05 <= values.min() and values.max() < 0.05
    assert abs(values.std() - 0.1 / np.sqrt(12)) < 0.001


def test_random_normal_statistics(backend):
    values = RandomNormal(mean=1.0, stddev=2.0, seed=3)(SHAPE, dtype="float64").numpy()
    assert values.dtype == np.float64
    assert abs(values.mean() - 1.0) < 0.02
    assert abs(values.std() - 2.0) < 0.02
    assert abs(RandomNormal(seed=3)(SHAPE).numpy().std() - 0.05) < 0.001


def test_truncated_normal_statistics(backend):
    values = TruncatedNormal(mean=-1.0, stddev=0.5, seed=4)(SHAPE).numpy()
    assert values.min() >= -2.0 - 1e-6 and values.max() <= 1e-6
    assert abs(values.mean() + 1.0) < 0.01
    # a unit normal cut at +-2 has standard deviation 0.8796
    assert abs(values.std() - 0.5 * 0.87962566) < 0.005


@pytest.mark.parametrize("cls", [RandomUniform, RandomNormal, TruncatedNormal])
def test_int_seed_gives_the_same_values_every_call(cls, backend):
    init = cls(seed=7)
    first = init((5, 6)).numpy()
    np.testing.assert_array_equal(init((5, 6)).numpy(), first)
    np.testing.assert_array_equal(cls(seed=7)((5, 6)).numpy(), first)
    assert not np.array_equal(cls(seed=8)((5, 6)).numpy(), first)


@pytest.mark.parametrize("cls", [RandomUniform, RandomNormal, TruncatedNormal])
def test_unseeded_draws_differ_and_set_seed_reproduces_them(cls):
    init = cls()
    lamina.random.set_seed(11)
    a, b = init((4, 4)).numpy(), init((4, 4)).numpy()
    assert not np.array_equal(a, b)
    lamina.random.set_seed(11)
    np.testing.assert_array_equal(cls()((4, 4)).numpy(), a)
    np.testing.assert_array_equal(init((4, 4)).numpy(), b)


def test_seed_generator_seeds_advance():
    init = RandomNormal(seed=SeedGenerator(5))
    a, b = init((3,)).numpy(), init((3,)).numpy()
    assert not np.array_equal(a, b)
    np.testing.assert_array_equal(RandomNormal(seed=SeedGenerator(5))((3,)).numpy(), a)


def test_seed_generator_config_round_trip():
    config = RandomUniform(seed=SeedGenerator(9)).get_config()
    assert config["seed"]["class_name"] == "SeedGenerator"
    assert config["seed"]["config"]["seed"] == 9
    rebuilt = RandomUniform.from_config(config)
    assert isinstance(rebuilt.seed, SeedGenerator)
    np.testing.assert_array_equal(rebuilt((3,)).numpy(),
                                  RandomUniform(seed=SeedGenerator(9))((3,)).numpy())


def test_configs():
    assert RandomUniform(-1, 2, seed=3).get_config() == {"seed": 3, "minval": -1.0,
                                                         "maxval": 2.0}
    assert RandomNormal().get_config() == {"seed": None, "mean": 0.0, "stddev": 0.05}
    assert TruncatedNormal(1.0, 0.1, 4).get_config() == {"seed": 4, "mean": 1.0,
                                                         "stddev": 0.1}


def test_random_initializers_need_float_dtypes():
    with pytest.raises(DTypeError, match=r"RandomUniform: argument 'dtype' must be a float "
                                         r"dtype \('float16', 'bfloat16', 'float32', 'float64'\); "
                                         r"received 'int32'"):
        RandomUniform()((2,), dtype="int32")
    assert RandomNormal(seed=1)((2,), dtype="float16").dtype == "float16"


def test_argument_errors():
    with pytest.raises(TypeError, match="RandomNormal: argument 'seed' must be an int, a "
                                        "lamina.random.SeedGenerator or None; received 'x'"):
        RandomNormal(seed="x")
    with pytest.raises(TypeError, match="TruncatedNormal: argument 'seed' must be an int"):
        TruncatedNormal(seed=True)
    with pytest.raises(ValueError, match=r"RandomUniform: argument 'minval' \(1.0\) must not "
                                         r"exceed 'maxval' \(0.0\)"):
        RandomUniform(1.0, 0.0)
    with pytest.raises(ValueError, match="RandomNormal: argument 'stddev' must be >= 0.0; "
                                         "received -1.0"):
        RandomNormal(stddev=-1)
    with pytest.raises(TypeError, match="TruncatedNormal: argument 'mean' must be a number; "
                                        "received None of type NoneType"):
        TruncatedNormal(mean=None)
    with pytest.raises(ValueError, match="RandomUniform: argument 'maxval' must be finite; "
                                         "received inf"):
        RandomUniform(maxval=float("inf"))
