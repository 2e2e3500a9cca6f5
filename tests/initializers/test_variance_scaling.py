"""VarianceScaling and its presets: Keras's fans, scales and distributions."""
import math

import numpy as np
import pytest

from lamina.initializers import (GlorotNormal, GlorotUniform, HeNormal, HeUniform,
                                 LecunNormal, LecunUniform, VarianceScaling, compute_fans)


@pytest.mark.parametrize("shape, fans", [
    ((), (1, 1)),
    ((7,), (7, 7)),
    ((64, 10), (64, 10)),                       # Dense kernel (in, out)
    ((5, 8, 16), (40, 80)),                     # Conv1D kernel (width, in, out)
    ((3, 3, 16, 32), (144, 288)),               # Conv2D kernel (h, w, in, out)
    ((5, 7, 2, 3, 4), (210, 280)),              # Conv3D kernel
])
def test_compute_fans(shape, fans):
    assert compute_fans(shape) == fans


# (initializer, shape, kind, limit of the uniform or variance of the normal)
PRESETS = [
    (GlorotUniform, (300, 500), "uniform", math.sqrt(6 / 800)),
    (GlorotUniform, (3, 3, 64, 128), "uniform", math.sqrt(6 / (9 * 64 + 9 * 128))),
    (HeUniform, (400, 300), "uniform", math.sqrt(6 / 400)),
    (LecunUniform, (400, 300), "uniform", math.sqrt(3 / 400)),
    (GlorotNormal, (300, 500), "normal", 2 / 800),
    (HeNormal, (3, 3, 32, 64), "normal", 2 / (9 * 32)),
    (LecunNormal, (400, 300), "normal", 1 / 400),
]


@pytest.mark.parametrize("cls, shape, kind, target", PRESETS,
                         ids=[f"{p[0].__name__}{p[1]}" for p in PRESETS])
def test_preset_statistics(cls, shape, kind, target, backend):
    values = cls(seed=3)(shape).numpy().astype(np.float64)
    assert abs(values.mean()) < 0.01 * values.std()
    if kind == "uniform":
        assert np.abs(values).max() <= target
        assert np.abs(values).max() > 0.99 * target
        assert abs(values.std() - target / math.sqrt(3)) < 0.01 * target
    else:
        # truncated at two standard deviations of the draw, whose variance is corrected
        cut = 2 * math.sqrt(target) / 0.87962566103423978
        assert np.abs(values).max() <= cut * (1 + 1e-6)
        assert abs(values.var() - target) < 0.02 * target


def test_variance_per_mode():
    shape = (20, 60)
    assert VarianceScaling(2.0, "fan_in").variance(shape) == 2.0 / 20
    assert VarianceScaling(2.0, "fan_out").variance(shape) == 2.0 / 60
    assert VarianceScaling(2.0, "fan_avg").variance(shape) == 2.0 / 40
    assert VarianceScaling(2.0, "fan_in").variance((0, 5)) == 2.0     # fans below 1 -> 1


def test_untruncated_normal_and_uniform():
    normal = VarianceScaling(4.0, "fan_out", "untruncated_normal", seed=1)((50, 400)).numpy()
    assert abs(normal.std() - math.sqrt(4 / 400)) < 0.002
    assert np.abs(normal).max() > 3.5 * math.sqrt(4 / 400)          # no truncation
    uniform = VarianceScaling(3.0, "fan_avg", "uniform", seed=1)((100, 500)).numpy()
    assert np.abs(uniform).max() <= math.sqrt(9 / 300)


def test_normal_means_truncated_normal_as_in_keras():
    assert VarianceScaling(distribution="normal").distribution == "truncated_normal"
    assert VarianceScaling(distribution="Uniform").distribution == "uniform"


def test_seeded_presets_repeat_and_differ_from_each_other():
    a = GlorotUniform(seed=5)((10, 10)).numpy()
    np.testing.assert_array_equal(GlorotUniform(seed=5)((10, 10)).numpy(), a)
    assert not np.array_equal(GlorotUniform(seed=6)((10, 10)).numpy(), a)


def test_configs():
    assert GlorotUniform(seed=2).get_config() == {"seed": 2, "input_axes": None,
                                                  "output_axes": None}
    assert HeNormal().get_config() == {"seed": None, "input_axes": None, "output_axes": None}
    assert VarianceScaling(0.5, "fan_avg", "uniform", 1).get_config() == {
        "seed": 1, "scale": 0.5, "mode": "fan_avg", "distribution": "uniform",
        "input_axes": None, "output_axes": None}


def test_input_and_output_axes_choose_the_fans():
    init = VarianceScaling(1.0, "fan_in", "uniform", seed=0, input_axes=[0, 1],
                           output_axes=[2])
    assert init.variance((2, 3, 5)) == 1.0 / 6
    init = VarianceScaling(1.0, "fan_out", "uniform", seed=0, input_axes=[0, 1],
                           output_axes=[2])
    assert init.variance((2, 3, 5)) == 1.0 / 5
    rebuilt = LecunNormal.from_config({"seed": 4})
    assert (rebuilt.scale, rebuilt.mode, rebuilt.distribution, rebuilt.seed) == (
        1.0, "fan_in", "truncated_normal", 4)


def test_argument_errors():
    # Keras's phrases lead (its random_initializers_test.py matches them), then what was
    # received and expected.
    with pytest.raises(ValueError, match="VarianceScaling: Argument `scale` must be positive "
                                         "float; received scale=0.0"):
        VarianceScaling(scale=0)
    with pytest.raises(ValueError, match="VarianceScaling: Argument `scale` must be positive "
                                         "float; received scale=-1.0"):
        VarianceScaling(scale=-1)
    with pytest.raises(ValueError, match=r"VarianceScaling: Invalid `mode` argument: 'fan'; "
                                         r"expected one of \('fan_in', 'fan_out', 'fan_avg'\)"):
        VarianceScaling(mode="fan")
    with pytest.raises(ValueError, match=r"VarianceScaling: Invalid `distribution` argument: "
                                         r"'gamma'; expected one of \('truncated_normal', "
                                         r"'untruncated_normal', 'uniform'\) \(or 'normal', "
                                         r"meaning 'truncated_normal'\)"):
        VarianceScaling(distribution="gamma")
    with pytest.raises(ValueError, match="VarianceScaling: Invalid `distribution` argument: 3; "
                                         "expected one of"):
        VarianceScaling(distribution=3)
