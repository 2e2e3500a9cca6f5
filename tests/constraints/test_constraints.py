"""MaxNorm, MinMaxNorm, NonNeg, UnitNorm: hand-computed projections, names and configs."""
import numpy as np
import pytest

import lamina
from lamina import constraints, ops
from lamina.backend import epsilon
from lamina.constraints import Constraint, MaxNorm, MinMaxNorm, NonNeg, UnitNorm
from lamina.saving import UnknownObjectError

# Columns (3, 4) and (0, -1): norms 5 and 1 along axis 0; rows norms 3 and sqrt(17).
W = np.array([[3.0, 0.0], [4.0, -1.0]])


def _apply(constraint, w=W):
    return constraint(ops.convert_to_tensor(w, dtype="float64")).numpy()


def test_max_norm(backend):
    out = MaxNorm(2.0)(ops.convert_to_tensor(W, dtype="float32"))
    assert out.backend is backend and out.dtype == "float32"
    expected = np.array([[3 * 2 / (5 + epsilon()), 0.0],
                         [4 * 2 / (5 + epsilon()), -1 / (1 + epsilon())]])
    np.testing.assert_allclose(out.numpy(), expected, rtol=1e-6)
    np.testing.assert_allclose(_apply(MaxNorm(2.0)), expected, rtol=1e-12)


def test_max_norm_other_axes():
    rows = _apply(MaxNorm(3.0, axis=1))
    np.testing.assert_allclose(rows[0], W[0] * 3 / (3 + epsilon()), rtol=1e-12)
    np.testing.assert_allclose(rows[1], W[1] * 3 / (np.sqrt(17) + epsilon()), rtol=1e-12)
    whole = _apply(MaxNorm(1.0, axis=[0, 1]))
    np.testing.assert_allclose(whole, W / (np.sqrt(26) + epsilon()), rtol=1e-12)


def test_min_max_norm():
    out = _apply(MinMaxNorm(2.0, 3.0, rate=0.5))
    # column 0: norm 5 -> 0.5 * 3 + 0.5 * 5 = 4; column 1: norm 1 -> 0.5 * 2 + 0.5 * 1 = 1.5
    expected = np.array([[3 * 4 / (5 + epsilon()), 0.0],
                         [4 * 4 / (5 + epsilon()), -1.5 / (1 + epsilon())]])
    np.testing.assert_allclose(out, expected, rtol=1e-12)
    strict = _apply(MinMaxNorm(2.0, 3.0))
    np.testing.assert_allclose(np.linalg.norm(strict, axis=0), [3.0, 2.0], rtol=1e-6)


def test_unit_norm():
    np.testing.assert_allclose(_apply(UnitNorm()), W / (np.array([5.0, 1.0]) + epsilon()),
                               rtol=1e-12)
    rows = _apply(UnitNorm(axis=1))
    np.testing.assert_allclose(np.linalg.norm(rows, axis=1), [1.0, 1.0], rtol=1e-6)


def test_non_neg(backend):
    out = NonNeg()(ops.convert_to_tensor([[-1.0, 2.0], [0.0, -3.5]]))
    np.testing.assert_array_equal(out.numpy(), [[0.0, 2.0], [0.0, 0.0]])


def test_zero_vectors_stay_zero_without_nans():
    zeros = np.zeros((3, 2))
    for constraint in (MaxNorm(), MinMaxNorm(), UnitNorm()):
        np.testing.assert_array_equal(_apply(constraint, zeros), zeros)


def test_variables_and_host_data_are_accepted():
    v = lamina.Variable(W)
    np.testing.assert_allclose(MaxNorm(2.0)(v).numpy()[:, 1], [0.0, -1.0], atol=1e-6)
    np.testing.assert_allclose(UnitNorm()([3.0, 4.0]).numpy(), [0.6, 0.8], rtol=1e-6)
    np.testing.assert_array_equal(Constraint()([1.0, -1.0]).numpy(), [1.0, -1.0])


def test_conv_kernels_are_normed_over_all_but_the_last_axis():
    kernel = np.random.default_rng(0).normal(size=(3, 3, 4, 5)) * 10
    out = _apply(MaxNorm(1.0, axis=[0, 1, 2]), kernel)
    np.testing.assert_allclose(np.sqrt((out ** 2).sum(axis=(0, 1, 2))), np.ones(5), rtol=1e-6)


@pytest.mark.parametrize("name, cls", sorted(constraints.ALL_OBJECTS.items()))
def test_every_name_resolves(name, cls):
    assert type(constraints.get(name)) is cls


def test_module_aliases():
    assert constraints.max_norm is MaxNorm and constraints.min_max_norm is MinMaxNorm
    assert constraints.non_neg is NonNeg and constraints.unit_norm is UnitNorm


@pytest.mark.parametrize("constraint", [MaxNorm(3, axis=[0, 1]), MinMaxNorm(0.5, 2.0, 0.3, 1),
                                        NonNeg(), UnitNorm(axis=-1)],
                         ids=lambda c: type(c).__name__)
def test_config_round_trip(constraint):
    config = constraints.serialize(constraint)
    assert config["module"] == "keras.constraints"
    assert config["class_name"] == type(constraint).__name__
    rebuilt = constraints.get(config)
    assert type(rebuilt) is type(constraint)
    assert rebuilt.get_config() == constraint.get_config()


def test_configs_match_keras():
    assert MaxNorm().get_config() == {"max_value": 2, "axis": 0}
    assert MinMaxNorm().get_config() == {"min_value": 0.0, "max_value": 1.0, "rate": 1.0,
                                         "axis": 0}
    assert NonNeg().get_config() == {} and UnitNorm().get_config() == {"axis": 0}
    assert MaxNorm(axis=(0, 1)).get_config()["axis"] == [0, 1]
    assert repr(MaxNorm()) == "MaxNorm(max_value=2, axis=0)"


def test_get_passes_none_instances_and_callables():
    assert constraints.get(None) is None
    c = NonNeg()
    assert constraints.get(c) is c

    def clip(w):
        return ops.clip(w, -1, 1)
    assert constraints.get(clip) is clip


def test_argument_errors():
    with pytest.raises(ValueError, match="MaxNorm: argument 'max_value' must be >= 0; "
                                         "received -1"):
        MaxNorm(-1)
    with pytest.raises(TypeError, match="MaxNorm: argument 'max_value' must be a number; "
                                        "received None of type NoneType"):
        MaxNorm(None)
    with pytest.raises(ValueError, match=r"MinMaxNorm: argument 'rate' must be in \[0, 1\]; "
                                         r"received 1.5"):
        MinMaxNorm(rate=1.5)
    with pytest.raises(ValueError, match="MinMaxNorm: argument 'max_value' must be >= 2.0; "
                                         "received 1.0"):
        MinMaxNorm(min_value=2.0, max_value=1.0)
    with pytest.raises(TypeError, match="UnitNorm: argument 'axis' must be an int or a list "
                                        "of ints; received 'rows'"):
        UnitNorm(axis="rows")
    with pytest.raises(TypeError, match=r"MaxNorm: argument 'axis' must be an int or a list "
                                        r"of ints; received \[\]"):
        MaxNorm(axis=[])


def test_lookup_errors():
    with pytest.raises(UnknownObjectError, match=r"constraints.get: unknown constraint "
                                                 r"'maxnorm' \(argument 'identifier'\); "
                                                 r"did you mean 'max_norm'\? Lamina's built-in "
                                                 r"constraints are 'Constraint', 'MaxNorm'"):
        constraints.get("maxnorm")
    with pytest.raises(TypeError, match="constraints.get: could not interpret constraint "
                                        "identifier 2"):
        constraints.get(2)
