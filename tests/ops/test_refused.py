"""Results Keras 3's symbolic shape rules accept but no backend computes (``refused``), and
the run-time size check ``check_size``: the symbolic shapes are Keras 3.15.1's (from its
``*StaticShapeTest`` / ``*DynamicShapeTest`` cases), and running such a result raises, in
eager and in graph mode alike, the typed error eager mode raises at once."""
import numpy as np
import pytest

import lamina
from lamina import ops
from lamina.errors import ArgumentTypeError, DTypeError, ShapeError
from lamina.ops.refused import refused
from lamina.ops.size_checks import check_size
from tests.harness import case, rand, run_case

KT = lamina.KerasTensor


def _refused_eagerly(x):
    """refuse_when_run on a concrete tensor: the error is raised at once."""
    with pytest.raises(ShapeError, match=r"^demo: refused$"):
        refused(ShapeError, "demo: refused", (x,), (x.shape, x.dtype))
    return x


CASES = [
    case("refuse_when_run", _refused_eagerly, None, [rand(2, 3)], grad=False, graph=False),
    case("check_size", lambda x: check_size(x, 0, 3, "too big: {size}") * 2.0,
         lambda x: x * 2.0, [rand(3, 2)]),
    case("check_size", lambda x: check_size(x, -1, 2, "not two: {size}", exact=True) + 1.0,
         lambda x: x + 1.0, [rand(3, 2)], label="exact"),
]


@pytest.mark.parametrize("c", CASES[1:], ids=str)
def test_check_size_forward_and_gradient(c):
    run_case(c)


def test_refused_op_runs_nothing_on_concrete_inputs():
    x = ops.convert_to_tensor(rand(2, 3))
    assert _refused_eagerly(x) is x
    symbolic = refused(DTypeError, "demo: no", (KT((None, 3)),), ((None, 7), "int32"))
    assert symbolic.shape == (None, 7) and symbolic.dtype == "int32"
    pair = refused(ShapeError, "demo: no", (KT((2,)),), [((2,), "float32"), ((), "bool")])
    assert [t.shape for t in pair] == [(2,), ()]


# (lamina call on KerasTensors, Keras 3.15.1's symbolic shape)
SHAPES = [
    (lambda: ops.psnr(KT((1, 2, 3)), KT((5, 6, 7)), max_val=224), ()),
    (lambda: ops.psnr(KT((None, 2, 3)), KT((None, 5, 6)), max_val=224), ()),
    (lambda: ops.polar(KT((1, 2)), KT((3, 4))), (1, 2)),
    (lambda: ops.layer_normalization(KT((2, 8, 16)), KT((2, 16)), KT((2, 16))), (2, 8, 16)),
    (lambda: ops.ctc_loss(KT((10, 3, 4)), KT((10, 3), "int32"), KT((10,), "int32"),
                          KT((10,), "int32")), (10,)),
    (lambda: ops.dot_product_attention(KT((2, 3, 8, 16)), KT((2, 4, 6, 16)),
                                       KT((2, 4, 6, 16))), (2, 3, 8, 16)),
    (lambda: ops.dot_product_attention(KT((None, None, 8, 16)), KT((None, None, 6, 16)),
                                       KT((None, None, 6, 16))), (None, None, 8, 16)),
    (lambda: ops.while_loop(lambda a: a < 10, lambda a: a + 1, KT((10,))), (10,)),
    (lambda: ops.while_loop(lambda a: a < 10, lambda a: a + 1, KT((None,))), (None,)),
    (lambda: ops.scatter(KT((5, 2)), KT((5,)), (4, 4)), (4, 4)),
    (lambda: ops.slice_update(KT((4, 4, 4)), KT((3,)), KT((2, 2, 2))), (4, 4, 4)),
    (lambda: ops.slice_update(KT((4, None)), KT((2,)), KT((2, 2))), (4, None)),
    (lambda: ops.slice(KT((3, 3)), KT((2,), "int32"), (-1, -1)), (None, None)),
    (lambda: ops.segment_sum(KT((None, 4)), KT((10,), "int32")), (None, 4)),
    (lambda: ops.segment_max(KT((10,)), KT((10,), "int32")), (None,)),
    (lambda: ops.segment_max(KT((5, 4)), KT((None,))), (None, 4)),
    (lambda: ops.segment_sum(KT((None, 4)), KT((10,), "int32"), num_segments=5), (5, 4)),
    (lambda: ops.image.gaussian_blur(KT((20, 20, 3)), KT((2,)), KT((2,))), (20, 20, 3)),
    (lambda: ops.image.scale_and_translate(KT((None, 20, 20, 3)), (None, 25, 25, 3), KT((2,)),
                                           KT((2,)), (1, 2), "linear"), (None, 25, 25, 3)),
]


@pytest.mark.parametrize("index", range(len(SHAPES)))
def test_symbolic_shapes_match_keras(index):
    call, shape = SHAPES[index]
    assert tuple(call().shape) == shape


# (a function of one float32 input of shape (2, 3), the error of running it)
RUNS = [
    (lambda x: ops.psnr(x, ops.reshape(x, (3, 2)), 1.0), ShapeError,
     r"psnr: arguments 'x1' and 'x2' must have the same shape; received \(2, 3\) and "
     r"\(3, 2\)"),
    (lambda x: ops.polar(x, ops.reshape(x, (3, 2))), ShapeError,
     r"polar: cannot broadcast 'abs_' and 'angle' together"),
    (lambda x: ops.while_loop(lambda a: a < 10, lambda a: a + 1, x), ShapeError,
     r"while_loop: cond must return a scalar; received shape \(2, 3\)"),
    (lambda x: ops.slice(x, ops.cast(x[0, :2], "int32"), (-1, 2)), ShapeError,
     r"slice: a size of -1 with tensor 'start_indices'"),
    (lambda x: ops.scatter(x[:, :2], x[:, 2], (4, 4)), DTypeError,
     r"scatter: argument 'indices' must be an integer tensor; received dtype float32"),
    (lambda x: ops.slice_update(x, x[0, :2], x[:1, :1]), DTypeError,
     r"slice_update: argument 'start_indices' must be an integer tensor"),
]
# values known only when run: eager mode computes with them, a traced result is refused
RUNS_AFTER_EAGER = [
    (lambda x: ops.segment_sum(x, ops.cast(x[:, 0], "int32")), ShapeError,
     r"segment_sum: argument 'num_segments' is required when tracing a graph"),
    (lambda x: ops.image.gaussian_blur(ops.reshape(x, (1, 2, 3, 1)), 3, x[0, :2] + 1.0),
     ArgumentTypeError, r"gaussian_blur: arguments 'kernel_size' and 'sigma' must be known"),
]


@pytest.mark.parametrize("index", range(len(RUNS) + len(RUNS_AFTER_EAGER)))
def test_running_a_refused_result_raises_in_eager_and_graph_mode(index):
    eager_computes = index >= len(RUNS)
    fn, error, message = (RUNS + RUNS_AFTER_EAGER)[index]
    x = np.zeros((2, 3), "float32")
    if eager_computes:
        assert fn(ops.convert_to_tensor(x)).shape[0] in (1, 2)
    else:
        with pytest.raises(error, match=message):      # eager, at once
            fn(ops.convert_to_tensor(x))
    inputs = lamina.Input(batch_shape=(2, 3))
    model = lamina.Model(inputs, fn(inputs))             # builds, as in Keras
    with pytest.raises(error, match=message):          # the functional model, eagerly
        model(x)
    with pytest.raises(error, match=message):          # and as a compiled graph
        lamina.jit(model)(x)


def test_while_loop_with_a_non_scalar_condition_raises_eagerly():
    with pytest.raises(ShapeError, match=r"while_loop: cond must return a scalar; received "
                                         r"shape \(3,\)"):
        ops.while_loop(lambda a: a < 10, lambda a: a + 1, ops.zeros((3,)))
    assert float(ops.while_loop(lambda a: a < 10, lambda a: a + 1, ops.zeros(()))) == 10.0


def test_check_size_raises_when_the_size_does_not_fit():
    with pytest.raises(ShapeError, match=r"^too big: 4$"):
        check_size(ops.zeros((4, 2)), 0, 3, "too big: {size}")
    x = lamina.Input(batch_shape=(None, 2))
    assert check_size(x, 0, 5, "no", exact=True).shape == (5, 2)
    model = lamina.Model(x, check_size(x, 0, 3, "too big: {size}") * 2.0)
    np.testing.assert_array_equal(model.predict(np.ones((3, 2)), verbose=0), 2 * np.ones((3, 2)))
    with pytest.raises(ShapeError, match=r"too big: 4"):
        lamina.jit(model)(np.ones((4, 2), "float32"))
