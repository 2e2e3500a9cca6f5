"""NaN-ignoring reductions (lamina/ops/nan_reductions.py) against numpy, with gradients on
data holding NaNs, and the all-NaN results Keras 3.15.1 gives."""
import warnings

import numpy as np
import pytest

from lamina import ops
from tests.harness import case, distinct, run_case

_NANS = np.array([[np.nan, 0.5, -1.0, 0.25], [0.1, np.nan, 0.7, -0.3], [0.9, 0.2, -0.6, 0.4]])
_XI = np.array([[1, 5, 2], [4, 0, 3]], np.int32)


def quiet(fn):
    """numpy's nan* functions warn on all-NaN slices; the references run without that."""
    def run(*args):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)
            return fn(*args)
    return run


def _with_nans():
    x = distinct(3, 4)
    x[0, 0] = x[1, 2] = np.nan
    return x


CASES = [
    case("nansum", ops.nansum, np.nansum, [_NANS]),
    case("nansum", lambda x: ops.nansum(x, axis=1, keepdims=True),
         lambda x: np.nansum(x, axis=1, keepdims=True), [_NANS], label="axis"),
    case("nansum", ops.nansum, lambda x: np.sum(x).astype(np.int32), [_XI], grad=False,
         label="int"),
    case("nanmean", lambda x: ops.nanmean(x, axis=0), lambda x: np.nanmean(x, axis=0),
         [_NANS]),
    case("nanmean", ops.nanmean, lambda x: np.float32(np.mean(x)), [_XI], grad=False,
         label="int"),
    case("nanmax", lambda x: ops.nanmax(x, axis=1), lambda x: np.nanmax(x, axis=1),
         [_with_nans()]),
    case("nanmin", lambda x: ops.nanmin(x, axis=0), lambda x: np.nanmin(x, axis=0),
         [_with_nans()]),
    case("nanmax", lambda x: ops.nanmax(x, axis=1), quiet(lambda x: np.nanmax(x, axis=1)),
         [np.array([[np.nan, np.nan], [1.0, np.nan]])], grad=False, label="all-nan"),
    case("nanprod", lambda x: ops.nanprod(x, axis=1), lambda x: np.nanprod(x, axis=1),
         [_NANS]),
    case("nanprod", ops.nanprod, lambda x: np.prod(x).astype(np.int32),
         [np.array([True, False])], grad=False, label="bool"),
    case("nanvar", lambda x: ops.nanvar(x, axis=1), lambda x: np.nanvar(x, axis=1), [_NANS]),
    case("nanvar", ops.nanvar, np.nanvar, [_NANS], label="all-axes"),
    case("nanstd", lambda x: ops.nanstd(x, axis=0, keepdims=True),
         lambda x: np.nanstd(x, axis=0, keepdims=True), [_NANS]),
    case("nanargmax", lambda x: ops.nanargmax(x, axis=1),
         lambda x: np.nanargmax(x, axis=1).astype(np.int32), [_NANS], grad=False),
    case("nanargmax", ops.nanargmax, lambda x: np.int32(np.nanargmax(x)), [_NANS], grad=False,
         label="flat"),
    case("nanargmin", lambda x: ops.nanargmin(x, axis=0, keepdims=True),
         lambda x: np.nanargmin(x, axis=0, keepdims=True).astype(np.int32), [_NANS],
         grad=False),
]


@pytest.mark.parametrize("c", CASES, ids=str)
def test_forward_and_gradient(c, backend):
    run_case(c)


def test_all_nan_slices_match_keras(backend):
    x = ops.convert_to_tensor(np.array([[np.nan, 5, 2], [np.nan, np.nan, np.nan]], np.float32))
    expected = {   # keras.ops.<name>(x, axis=1), Keras 3.15.1 (JAX)
        "nanargmax": [1, -1], "nanargmin": [2, -1], "nanmax": [5.0, np.nan],
        "nanmin": [2.0, np.nan], "nanmean": [3.5, np.nan], "nanmedian": [3.5, np.nan],
        "nanprod": [10.0, 1.0], "nanstd": [1.5, np.nan], "nansum": [7.0, 0.0],
        "nanvar": [2.25, np.nan]}
    with warnings.catch_warnings():
        warnings.simplefilter("error")           # and no RuntimeWarning on the way
        for name, values in expected.items():
            y = getattr(ops, name)(x, axis=1)
            assert y.dtype == ("int32" if "arg" in name else "float32"), name
            np.testing.assert_array_equal(y.numpy(), values, err_msg=name)
    xi = ops.convert_to_tensor(_XI)
    assert ops.nanargmax(xi, axis=1).numpy().tolist() == [1, 0]
    assert ops.nanmax(xi).dtype == "int32" and int(ops.nanmax(xi).numpy()) == 5
    assert ops.nansum(ops.convert_to_tensor(_XI > 1)).numpy() == 4
