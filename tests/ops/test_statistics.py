"""Statistics ops: cumulative sums/products, quantiles, descriptive statistics and counting
(lamina/ops/cumulative.py, quantiles.py, statistics.py, counting.py), against numpy and the
numbers Keras 3.15.1 (JAX backend, float32) gives."""
import numpy as np
import pytest

from lamina import ops
from lamina.errors import DTypeError, ShapeError
from tests.harness import case, distinct, rand, run_case

_XI = np.array([[1, 5, 2], [4, 0, 3]], np.int32)
_NZ = rand(3, 4, low=0.5, high=1.5) * np.where(rand(3, 4) > 0, 1.0, -1.0)


def _trapz_x(y):
    return np.trapezoid(y, x=np.array([0.0, 0.5, 2.0, 2.5]))


CASES = [
    # cumulative
    case("cumsum", lambda x: ops.cumsum(x, axis=1), lambda x: np.cumsum(x, axis=1),
         [rand(3, 4)], second_order=True),
    case("cumsum", ops.cumsum, np.cumsum, [rand(2, 3)], label="flat"),
    case("cumsum", ops.cumsum, lambda x: np.cumsum(x).astype(np.int32), [_XI], grad=False,
         label="int"),
    case("cumprod", lambda x: ops.cumprod(x, axis=0), lambda x: np.cumprod(x, axis=0),
         [_NZ], second_order=True),
    case("cumprod", lambda x: ops.cumprod(x, axis=1), lambda x: np.cumprod(x, axis=1),
         [np.array([[0.5, 0.0, -1.5, 2.0, 0.0, 0.7], [1.2, -0.8, 0.0, 0.0, 1.1, 0.9]])],
         label="zeros"),
    case("cumprod", lambda x: ops.cumprod(x, axis=-1), lambda x: np.cumprod(x, axis=-1),
         [_XI], grad=False, label="int"),
    case("nancumsum", lambda x: ops.nancumsum(x, axis=1), lambda x: np.nancumsum(x, axis=1),
         [np.array([[np.nan, 5.0, 2.0], [np.nan, np.nan, np.nan]])], grad=False),
    case("nancumsum", lambda x: ops.nancumsum(x, axis=1), lambda x: np.nancumsum(x, axis=1),
         [rand(2, 3)], label="gradient"),
    case("nancumprod", ops.nancumprod, np.nancumprod,
         [np.array([[np.nan, 5.0, 2.0], [np.nan, -1.5, np.nan]])], grad=False),
    case("nancumprod", ops.nancumprod, np.nancumprod, [_NZ], label="gradient"),
    case("trapezoid", ops.trapezoid, np.trapezoid, [rand(3, 4)]),
    case("trapezoid", lambda y: ops.trapezoid(y, dx=0.25, axis=0),
         lambda y: np.trapezoid(y, dx=0.25, axis=0), [rand(3, 4)], label="dx"),
    case("trapezoid", lambda y: ops.trapezoid(y, x=[0.0, 0.5, 2.0, 2.5]), _trapz_x,
         [rand(3, 4)], label="x"),
    case("trapezoid", ops.trapezoid, np.trapezoid, [rand(2, 4), rand(2, 4)], label="x-tensor"),
    # quantiles
    case("quantile", lambda x: ops.quantile(x, 0.3, axis=1), lambda x: np.quantile(x, 0.3, 1),
         [distinct(3, 5)]),
    case("quantile", lambda x: ops.quantile(x, [0.25, 0.9]), lambda x: np.quantile(x, [0.25, 0.9]),
         [distinct(3, 4)], label="many-q"),
    *[case("quantile", lambda x, m=m: ops.quantile(x, 0.35, axis=0, method=m, keepdims=True),
           lambda x, m=m: np.quantile(x, 0.35, axis=0, method=m, keepdims=True),
           [distinct(5, 3)], label=m)
      for m in ("lower", "higher", "midpoint", "nearest", "inverted_cdf")],
    case("quantile", lambda x: ops.quantile(x, 0.5, axis=1),
         lambda x: np.quantile(x, 0.5, axis=1),
         [np.array([[1.0, 2.0, 2.0, 3.0], [0.5, 0.5, 0.5, -1.0]])], grad=False,
         label="ties"),
    case("percentile", lambda x: ops.percentile(x, 30.0, axis=(0, 2)),
         lambda x: np.percentile(x, 30.0, axis=(0, 2)), [distinct(2, 3, 4)]),
    case("median", ops.median, np.median, [distinct(3, 4)]),
    case("median", lambda x: ops.median(x, axis=1, keepdims=True),
         lambda x: np.median(x, axis=1, keepdims=True), [distinct(3, 5)], label="axis"),
    case("nanquantile", lambda x: ops.nanquantile(x, 0.4, axis=1),
         lambda x: np.nanquantile(x, 0.4, axis=1),
         [np.array([[np.nan, 0.5, -1.0, 2.0], [0.1, 0.7, np.nan, np.nan]])]),
    case("nanpercentile", lambda x: ops.nanpercentile(x, [10.0, 75.0], axis=0),
         lambda x: np.nanpercentile(x, [10.0, 75.0], axis=0),
         [np.array([[np.nan, 0.5], [0.3, np.nan], [0.9, -0.2]])]),
    case("nanmedian", lambda x: ops.nanmedian(x, axis=1), lambda x: np.nanmedian(x, axis=1),
         [np.array([[np.nan, 0.5, -1.0], [0.1, 0.7, 0.2]])]),
    # descriptive statistics
    case("amax", lambda x: ops.amax(x, axis=0), lambda x: np.amax(x, axis=0), [distinct(3, 4)]),
    case("amin", lambda x: ops.amin(x, axis=1, keepdims=True),
         lambda x: np.amin(x, axis=1, keepdims=True), [distinct(3, 4)]),
    case("ptp", lambda x: ops.ptp(x, axis=1), lambda x: np.ptp(x, axis=1), [distinct(3, 4)]),
    case("ptp", ops.ptp, np.ptp, [_XI], grad=False, label="int"),
    case("average", ops.average, np.average, [rand(3, 4)]),
    case("average", lambda x, w: ops.average(x, axis=1, weights=w),
         lambda x, w: np.average(x, axis=1, weights=w),
         [rand(3, 4), rand(4, low=0.5, high=2.0)], label="weights-1d"),
    case("average", lambda x, w: ops.average(x, weights=w),
         lambda x, w: np.average(x, weights=w),
         [rand(3, 4), rand(3, 4, low=0.5, high=2.0)], label="weights-full"),
    case("count_nonzero", lambda x: ops.count_nonzero(x, axis=0),
         lambda x: np.count_nonzero(x, axis=0).astype(np.int32),
         [np.array([[0.0, 1.5, 0.0], [2.0, -1.0, 0.0]])], grad=False),
    case("corrcoef", ops.corrcoef, np.corrcoef, [rand(3, 5)]),
    case("corrcoef", ops.corrcoef, np.corrcoef, [rand(6)], grad=False, label="1d"),
    *[case("correlate", lambda a, v, m=m: ops.correlate(a, v, mode=m),
           lambda a, v, m=m: np.correlate(a, v, mode=m), [rand(6), rand(3)], label=m)
      for m in ("valid", "same", "full")],
    case("correlate", ops.correlate, np.correlate, [rand(2), rand(4)], label="swapped"),
    case("allclose", ops.allclose, np.allclose, [rand(3), rand(3)], grad=False),
    case("allclose", lambda a: ops.allclose(a, a + 1e-9), lambda a: np.allclose(a, a + 1e-9),
         [rand(3)], grad=False, label="close"),
    # counting
    case("histogram", lambda x: ops.histogram(x, bins=4),
         lambda x: tuple(v.astype(np.float32) if i == 0 else v
                         for i, v in enumerate(np.histogram(x, bins=4))),
         [rand(20)], grad=False),
    case("histogram", lambda x: ops.histogram(x, bins=3, range=(-0.5, 0.5))[0],
         lambda x: np.histogram(x, bins=3, range=(-0.5, 0.5))[0].astype(np.float32),
         [rand(20)], grad=False, label="range"),
    case("bincount", ops.bincount, lambda x: np.bincount(x).astype(np.int32),
         [np.array([1, 5, 2, 4, 0, 3, 3], np.int32)], grad=False, graph=False),
    case("bincount", lambda x, w: ops.bincount(x, weights=w, minlength=9),
         lambda x, w: np.bincount(x, weights=w, minlength=9),
         [np.array([1, 5, 2, 4, 0, 3, 3], np.int32), rand(7)], grad=False, graph=False,
         label="weights"),
    case("digitize", ops.digitize, lambda x, b: np.digitize(x, b).astype(np.int32),
         [rand(10), np.array([-0.5, 0.0, 0.5])], grad=False),
]


@pytest.mark.parametrize("c", CASES, ids=str)
def test_forward_and_gradient(c, backend):
    run_case(c)


def _t(values, dtype="float32"):
    return ops.convert_to_tensor(np.array(values, dtype))


def test_matches_keras(backend):
    # the right-hand sides are what keras.ops gave for the same inputs
    xi = ops.convert_to_tensor(_XI)
    y = ops.cumsum(xi)
    assert y.dtype == "int32" and y.numpy().tolist() == [1, 6, 8, 12, 12, 15]
    assert ops.cumsum(ops.greater(xi, 1), axis=1).numpy().tolist() == [[0, 1, 2], [1, 1, 2]]
    assert ops.cumprod(ops.cast(xi, "int8"), axis=0).dtype == "int8"
    assert ops.cumsum(xi, dtype="float32").dtype == "float32"
    assert ops.count_nonzero(ops.cast(xi, "float32"), axis=(0, 1)).numpy() == 5
    assert ops.median(xi).dtype == "float32" and float(ops.median(xi).numpy()) == 2.5
    q = ops.quantile(ops.cast(xi, "float32"), [0.25, 0.5], axis=1).numpy().tolist()
    assert q == [[1.5, 1.5], [2.0, 3.0]]
    p = ops.percentile(ops.cast(xi, "float32"), 30.0, axis=0).numpy()
    np.testing.assert_allclose(p, [1.899999976158142, 1.4999998807907104, 2.3000001907348633],
                               rtol=1e-6)
    # ("nearest" at an exact half: JAX rounds down to 1.0, numpy and Keras's numpy backend
    # round half to even, 2.0; Lamina follows numpy)
    for method, value in [("linear", 1.5), ("lower", 1.0), ("higher", 2.0),
                          ("midpoint", 1.5), ("nearest", 2.0)]:
        assert float(ops.quantile(xi, 0.3, method=method).numpy()) == value
    w = ops.average(ops.cast(xi, "float32"), axis=1, weights=_t([1.0, 2.0, 3.0])).numpy()
    np.testing.assert_allclose(w, [2.8333334922790527, 2.1666667461395264], rtol=1e-6)
    c = ops.corrcoef(_t([[1.0, 2.0, 4.0], [2.0, 1.0, 0.5], [3, 3, 3.1]])).numpy()
    np.testing.assert_allclose(c[0], [1.0, -0.9285714626312256, 0.9449111819267273], rtol=1e-5)
    np.testing.assert_allclose(ops.correlate(_t([1.0, 2.0, 3.0, 4.0]), _t([0.5, 1.0, 2.0]),
                                             mode="same").numpy(), [5.0, 8.5, 12.0, 5.5])
    assert ops.correlate(_t([1, 2, 3], "int32"), _t([1, 1], "int32")).dtype == "float32"
    counts, edges = ops.histogram(ops.convert_to_tensor(np.array([1, 5, 2, 4, 0, 3, 3],
                                                                 np.int32)), bins=4)
    assert counts.dtype == "float32" and counts.numpy().tolist() == [2.0, 1.0, 2.0, 2.0]
    assert edges.dtype == "float32" and edges.numpy().tolist() == [0.0, 1.25, 2.5, 3.75, 5.0]
    counts, edges = ops.histogram(_t([2.0, 2.0]), bins=2)
    assert counts.numpy().tolist() == [0.0, 2.0] and edges.numpy().tolist() == [1.5, 2.0, 2.5]
    b = ops.bincount(ops.convert_to_tensor(np.array([[1, 5, 2], [4, 0, 3]], np.int32)))
    assert b.numpy().tolist() == [[0, 1, 1, 0, 0, 1], [1, 0, 0, 1, 1, 0]]
    d = ops.digitize(_t([0.5, 1.0, 2.5, 7.0]), _t([3.0, 2.0, 1.0]))
    assert d.dtype == "int32" and d.numpy().tolist() == [3, 2, 1, 0]
    assert bool(ops.allclose(_t([np.nan]), _t([np.nan]), equal_nan=True).numpy())
    assert ops.trapezoid(xi).numpy().tolist() == [6.5, 3.5]
    bools = ops.greater(xi, 1)
    assert ops.amin(bools).dtype == "bool" and not bool(ops.amin(bools).numpy())
    assert ops.amax(bools, axis=0).numpy().tolist() == [True, True, True]
    assert ops.amax(xi, axis=0).numpy().tolist() == [4, 5, 3]


def test_errors(backend):
    x = _t([[1.0, 2.0], [3.0, 4.0]])
    with pytest.raises(ValueError, match=r"quantile: argument 'q' must be in \[0, 1\]; "
                                         r"received 1.5"):
        ops.quantile(x, 1.5)
    with pytest.raises(ValueError, match=r"percentile: argument 'q' must be in \[0, 100\]"):
        ops.percentile(x, 130.0)
    with pytest.raises(ValueError, match="quantile: argument 'method' must be one of"):
        ops.quantile(x, 0.3, method="foo")
    with pytest.raises(TypeError, match="quantile: argument 'q' must be a number or a 1-D"):
        ops.quantile(x, "half")
    with pytest.raises(ShapeError, match="median: argument 'x' must have at least one "
                                         "dimension"):
        ops.median(_t(1.0))
    with pytest.raises(ShapeError, match="average: argument 'axis' must be given when "
                                         "'weights' and 'x' differ in shape"):
        ops.average(x, weights=_t([1.0, 2.0]))
    with pytest.raises(ShapeError, match="average: argument 'weights' must have the shape "
                                         "of 'x' or be 1-D"):
        ops.average(x, axis=0, weights=_t([1.0, 2.0, 3.0]))
    with pytest.raises(ShapeError, match="corrcoef: argument 'x' must be 1-D or 2-D"):
        ops.corrcoef(ops.zeros((2, 2, 2)))
    with pytest.raises(ValueError, match="correlate: argument 'mode' must be one of"):
        ops.correlate(_t([1.0, 2.0]), _t([1.0]), mode="foo")
    with pytest.raises(ShapeError, match="correlate: argument 'x2' must be 1-D"):
        ops.correlate(_t([1.0, 2.0]), x)
    with pytest.raises(ShapeError, match=r"histogram: argument 'x' must be 1-D; received "
                                         r"shape \(2, 2\)"):
        ops.histogram(x)
    with pytest.raises(ValueError, match="histogram: argument 'bins' must be a positive int"):
        ops.histogram(_t([1.0]), bins=0)
    with pytest.raises(ValueError, match="histogram: argument 'range' must be None or a pair"):
        ops.histogram(_t([1.0]), range=5)
    with pytest.raises(ValueError, match="histogram: argument 'range' must have lower <= "
                                         "upper"):
        ops.histogram(_t([1.0]), range=(2, 1))
    ints = ops.convert_to_tensor(np.array([1, 2], np.int32))
    with pytest.raises(DTypeError, match="bincount: argument 'x' must be an integer tensor; "
                                         "received dtype float32"):
        ops.bincount(_t([1.0]))
    with pytest.raises(ValueError, match="bincount: sparse=True is not supported"):
        ops.bincount(ints, sparse=True)
    with pytest.raises(ValueError, match="bincount: argument 'x' must hold non-negative "
                                         "integers; received a minimum of -1"):
        ops.bincount(ops.convert_to_tensor(np.array([-1, 2], np.int32)))
    with pytest.raises(ValueError, match="bincount: argument 'minlength' must be a "
                                         "non-negative int"):
        ops.bincount(ints, minlength=-1)
    with pytest.raises(ShapeError, match="bincount: argument 'x' must be 1-D or 2-D"):
        ops.bincount(ops.convert_to_tensor(np.zeros((1, 1, 1), np.int32)))
    with pytest.raises(ShapeError, match="bincount: argument 'weights' must have the shape"):
        ops.bincount(ints, weights=_t([1.0]))
    with pytest.raises(ShapeError, match="digitize: argument 'bins' must be 1-D"):
        ops.digitize(_t([1.0]), x)


def test_symbolic_limits(backend):
    import lamina

    def counts(x):
        return ops.bincount(x)
    with pytest.raises(TypeError, match="bincount: the result's length depends on the "
                                        "values of 'x'"):
        lamina.jit(counts)(ops.convert_to_tensor(np.array([1, 2], np.int32)))

    def q(x, level):
        return ops.quantile(x, level)
    with pytest.raises(TypeError, match="quantile: argument 'q' must be concrete"):
        lamina.jit(q)(_t([1.0, 2.0]), _t(0.5))
