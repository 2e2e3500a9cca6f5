"""erf without scipy: checked against the C library's erf (math.erf) on dense grids."""
import math

import numpy as np
import pytest

from lamina.backend import special

_erf = np.vectorize(math.erf)


def run_erf(backend, x, out=None):
    xp = backend.xp
    result = special.erf(xp, xp.asarray(x), out=out)
    return backend.to_host(result)


def float64_grid():
    rng = np.random.default_rng(0)
    dense = np.linspace(-7.0, 7.0, 140_001)
    boundaries = np.array([0.84375, 1.25, 1 / 0.35, 6.0])
    near = np.concatenate([np.nextafter(boundaries, 0), boundaries,
                           np.nextafter(boundaries, np.inf)])
    tiny = np.geomspace(1e-300, 1e-3, 400)
    return np.concatenate([dense, rng.uniform(-6.5, 6.5, 20_000), near, -near, tiny, -tiny])


def test_float64_matches_math_erf_to_round_off(backend):
    x = float64_grid()
    y = run_erf(backend, x)
    assert y.dtype == np.float64
    relative = np.abs(y - _erf(x)) / np.abs(_erf(x)).clip(np.finfo(np.float64).tiny)
    worst = relative.argmax()
    assert relative[worst] < 1e-14, f"relative error {relative[worst]:.3g} at x = {x[worst]!r}"


def test_tiny_and_subnormal_values_keep_erf_x_equal_to_2x_over_sqrt_pi(backend):
    x = np.array([5e-324, 1e-310, 1e-200, 1e-20, 1e-9, -1e-20])
    y = run_erf(backend, x)
    np.testing.assert_allclose(y, x * 2 / math.sqrt(math.pi), rtol=1e-15, atol=1e-323)
    assert run_erf(backend, np.array([0.0]))[0] == 0.0
    assert np.signbit(run_erf(backend, np.array([-0.0]))[0])


def test_large_values_saturate_and_specials_propagate(backend):
    x = np.array([6.0, 9.0, 30.0, 1e300, np.inf, -6.0, -1e300, -np.inf, np.nan])
    y = run_erf(backend, x)
    np.testing.assert_array_equal(y[:8], [1.0, 1.0, 1.0, 1.0, 1.0, -1.0, -1.0, -1.0])
    assert np.isnan(y[8])


def test_erf_is_odd_exactly(backend):
    x = np.linspace(0, 6, 6001)
    np.testing.assert_array_equal(run_erf(backend, -x), -run_erf(backend, x))


@pytest.mark.parametrize("dtype, rtol", [("float32", 6e-8), ("float16", 5e-4)])
def test_lower_precisions_are_rounded_once_from_float64(dtype, rtol, backend):
    x = np.linspace(-5.0, 5.0, 4001).astype(dtype)
    y = run_erf(backend, x)
    assert y.dtype == dtype
    reference = _erf(x.astype(np.float64))
    np.testing.assert_allclose(y.astype(np.float64), reference, rtol=rtol,
                               atol=float(np.finfo(dtype).tiny))
    # correctly rounded from the float64 value: equal to rounding math.erf's result
    assert np.mean(y == reference.astype(dtype)) > 0.999


def test_writes_into_out_and_accepts_any_layout(backend):
    xp = backend.xp
    x = np.linspace(-3, 3, 24).reshape(4, 6)
    out = xp.empty((6, 4), dtype="float64")
    result = special.erf(xp, xp.asarray(x).T, out=out)
    assert result is out
    np.testing.assert_allclose(backend.to_host(out), _erf(x.T), rtol=1e-15)
    scalar = special.erf(xp, xp.asarray(0.5))
    assert scalar.shape == ()
    np.testing.assert_allclose(float(scalar), math.erf(0.5), rtol=1e-15)


def test_integer_input_gives_float64(backend):
    y = run_erf(backend, np.array([0, 1, -2], dtype=np.int32))
    assert y.dtype == np.float64
    np.testing.assert_allclose(y, _erf(np.array([0.0, 1.0, -2.0])), rtol=1e-15)


def test_backend_unary_routes_erf_here(backend):
    xp = backend.xp
    x = np.linspace(-2, 2, 9)
    np.testing.assert_allclose(backend.to_host(backend.unary("erf", xp.asarray(x))), _erf(x),
                               rtol=1e-14)
