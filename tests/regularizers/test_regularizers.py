"""L1, L2, L1L2, OrthogonalRegularizer: hand-computed values, gradients, names, configs."""
import numpy as np
import pytest

import lamina
from lamina import ops, regularizers
from lamina.errors import ShapeError
from lamina.regularizers import L1, L1L2, L2, OrthogonalRegularizer, Regularizer
from lamina.saving import UnknownObjectError
from tests.harness import case, check_forward, check_gradient, rand, rand_away_from

W = [[1.0, -2.0], [3.0, 0.5]]            # sum |w| = 6.5, sum w^2 = 14.25


def test_hand_computed_values(backend):
    w = ops.convert_to_tensor(W)
    assert L1()(w).shape == ()
    np.testing.assert_allclose(L1()(w).numpy(), 0.065, rtol=1e-6)
    np.testing.assert_allclose(L2()(w).numpy(), 0.1425, rtol=1e-6)        # no 1/2 factor
    np.testing.assert_allclose(L1(0.5)(w).numpy(), 3.25, rtol=1e-6)
    np.testing.assert_allclose(L1L2(0.1, 0.2)(w).numpy(), 0.65 + 2.85, rtol=1e-6)
    np.testing.assert_allclose(L1L2(l2=0.2)(w).numpy(), 2.85, rtol=1e-6)
    assert L1L2()(w).numpy() == 0.0
    assert L1()(w).dtype == "float32" and L1()(w).backend is backend


def test_orthogonal_regularizer_rows_and_columns():
    w = ops.convert_to_tensor(W, dtype="float64")
    # rows (1, -2)/sqrt(5) and (3, 0.5)/sqrt(9.25): cosine 2 / sqrt(46.25), one pair
    rows = 2 / np.sqrt(5 * 9.25)
    np.testing.assert_allclose(OrthogonalRegularizer(1.0)(w).numpy(), rows, rtol=1e-12)
    # columns (1, 3)/sqrt(10) and (-2, 0.5)/sqrt(4.25): cosine -0.5 / sqrt(42.5)
    cols = 0.5 / np.sqrt(42.5)
    np.testing.assert_allclose(OrthogonalRegularizer(0.1, "columns")(w).numpy(), 0.1 * cols,
                               rtol=1e-12)


def test_orthogonal_regularizer_is_the_mean_absolute_cosine():
    w = rand(5, 3)
    unit = w / np.linalg.norm(w, axis=1, keepdims=True)
    cos = unit @ unit.T
    mean_abs = np.abs(cos[~np.eye(5, dtype=bool)]).mean()
    got = OrthogonalRegularizer(2.0)(ops.convert_to_tensor(w)).numpy()
    np.testing.assert_allclose(got, 2.0 * mean_abs, rtol=1e-12)
    assert OrthogonalRegularizer()(ops.convert_to_tensor(np.eye(4))).numpy() == 0.0
    assert OrthogonalRegularizer()(ops.ones((1, 4))).numpy() == 0.0       # no pairs


def _np_orthogonal(w, factor=0.3):
    unit = w / np.sqrt(np.maximum((w ** 2).sum(axis=1, keepdims=True), 1e-7))
    cos = unit @ unit.T
    n = w.shape[0]
    return factor * 0.5 * np.abs(cos * (1 - np.eye(n))).sum() / (n * (n - 1) / 2)


GRADIENT_CASES = [
    case("L1", lambda w: L1(0.3)(w), lambda w: 0.3 * np.abs(w).sum(),
         [rand_away_from(3, 4)]),
    case("L2", lambda w: L2(0.3)(w), lambda w: 0.3 * (w ** 2).sum(), [rand(3, 4)]),
    case("L1L2", lambda w: L1L2(0.2, 0.4)(w),
         lambda w: 0.2 * np.abs(w).sum() + 0.4 * (w ** 2).sum(), [rand_away_from(2, 5)]),
    case("OrthogonalRegularizer", lambda w: OrthogonalRegularizer(0.3)(w), _np_orthogonal,
         [rand(4, 3)]),
]


@pytest.mark.parametrize("c", GRADIENT_CASES, ids=str)
def test_values_and_gradients_against_numpy(c):
    check_forward(c)
    check_gradient(c)


def test_gradient_reaches_a_variable():
    v = lamina.Variable(W)
    with lamina.GradientTape() as tape:
        loss = L1L2(0.5, 0.25)(v)
    np.testing.assert_allclose(tape.gradient(loss, v).numpy(),
                               0.5 * np.sign(W) + 0.5 * np.array(W), rtol=1e-6)


def test_host_data_is_accepted():
    np.testing.assert_allclose(L2(1.0)([1.0, 2.0]).numpy(), 5.0)


@pytest.mark.parametrize("name, cls", sorted(regularizers.ALL_OBJECTS.items()))
def test_every_name_resolves(name, cls):
    assert type(regularizers.get(name)) is cls


def test_keras_names_and_aliases():
    assert regularizers.l1 is L1 and regularizers.l2 is L2
    assert regularizers.l1_l2 is L1L2
    assert regularizers.orthogonal_regularizer is OrthogonalRegularizer
    assert regularizers.get("l1").l1 == 0.01 and regularizers.get("L2").l2 == 0.01
    assert isinstance(regularizers.get("l1_l2"), L1L2)


@pytest.mark.parametrize("reg", [L1(0.2), L2(0.3), L1L2(0.1, 0.0),
                                 OrthogonalRegularizer(0.5, "columns")],
                         ids=lambda r: type(r).__name__)
def test_config_round_trip(reg):
    config = regularizers.serialize(reg)
    assert config["module"] == "keras.regularizers"
    assert config["class_name"] == type(reg).__name__
    rebuilt = regularizers.get(config)
    assert type(rebuilt) is type(reg) and rebuilt.get_config() == reg.get_config()


def test_configs_match_keras():
    assert L1L2(l2=0.1).get_config() == {"l1": 0.0, "l2": 0.1}
    # Keras holds these two factors as float32 tensors and writes them back rounded
    assert OrthogonalRegularizer().get_config() == {"factor": 0.009999999776482582,
                                                    "mode": "rows"}
    assert L1(0.001).get_config() == {"l1": 0.0010000000474974513}
    keras_file = {"module": "keras.regularizers", "class_name": "L2",
                  "config": {"l2": 0.001}, "registered_name": None}
    assert regularizers.get(keras_file).l2 == 0.001


def test_none_defaults_as_in_keras():
    assert L1(None).l1 == 0.01 and L2(None).l2 == 0.01
    assert L1L2(None, None).get_config() == {"l1": 0.0, "l2": 0.0}


def test_get_passes_instances_and_callables():
    assert regularizers.get(None) is None
    reg = L2()
    assert regularizers.get(reg) is reg

    def penalty(w):
        return ops.sum(w)
    assert regularizers.get(penalty) is penalty
    assert isinstance(regularizers.get(L1), L1)


def test_base_class():
    assert Regularizer()(ops.ones((2,))).numpy() == 0.0
    with pytest.raises(NotImplementedError, match="Regularizer does not implement "
                                                  r"get_config\(\)"):
        Regularizer().get_config()
    assert repr(L1L2(0.1, 0.2)) == "L1L2(l1=0.1, l2=0.2)"


def test_argument_errors():
    with pytest.raises(ValueError, match="L1: argument 'l1' must be a non-negative, finite "
                                         "number; received -0.1"):
        L1(-0.1)
    with pytest.raises(ValueError, match="L2: argument 'l2' must be a non-negative, finite "
                                         "number; received inf"):
        L2(float("inf"))
    with pytest.raises(TypeError, match="L1L2: argument 'l1' must be a non-negative number; "
                                        "received '0.1' of type str"):
        L1L2(l1="0.1")
    with pytest.raises(ValueError, match="OrthogonalRegularizer: argument 'factor' must be "
                                         "a non-negative"):
        OrthogonalRegularizer(factor=float("nan"))
    # Keras's exact texts (its tests compare the whole message).
    with pytest.raises(ValueError) as info:
        OrthogonalRegularizer(mode="cols")
    assert str(info.value) == ('Invalid value for argument `mode`. Expected one of '
                               '{"rows", "columns"}. Received: mode=cols')
    with pytest.raises(ShapeError) as info:
        OrthogonalRegularizer()(ops.ones((2, 2, 2)))
    assert str(info.value) == ("Inputs to OrthogonalRegularizer must have rank 2. Received: "
                               "inputs.shape=(2, 2, 2)")
    with pytest.raises(ShapeError, match=r"inputs.shape=\(4,\)$"):
        OrthogonalRegularizer(mode="columns")(ops.ones((4,)))


def test_lookup_errors():
    with pytest.raises(UnknownObjectError, match=r"regularizers.get: unknown regularizer "
                                                 r"'l3' \(argument 'identifier'\); Lamina's "
                                                 r"built-in regularizers are 'L1', 'L1L2'"):
        regularizers.get("l3")
    with pytest.raises(UnknownObjectError, match="Lamina's built-in regularizers are"):
        regularizers.deserialize({"class_name": "L3", "config": {}})
    with pytest.raises(TypeError, match="regularizers.get: could not interpret regularizer "
                                        "identifier 0.01"):
        regularizers.get(0.01)
