"""Hinge, squared hinge, categorical hinge, KL divergence and Poisson: hand-computed values,
the 0/1 -> -1/1 label conversion and clipping."""
import math

import numpy as np
import pytest

from lamina import ops
from lamina.graph import SymbolicTensor
from lamina.losses import (CategoricalHinge, Hinge, KLDivergence, Poisson, SquaredHinge,
                           categorical_hinge, hinge, kl_divergence, poisson, squared_hinge)

Y_PRED = [[0.3, 0.8, -0.5], [1.5, -0.2, 0.4]]


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_hinge_with_binary_labels(dtype, backend):
    y_pred = ops.convert_to_tensor(Y_PRED, dtype=dtype)
    # labels 0/1 become -1/1: margins [[1.3, 0.2, 1.5], [0, 0.8, 1.4]]
    out = hinge([[0, 1, 1], [1, 0, 0]], y_pred)
    assert out.dtype == dtype
    np.testing.assert_allclose(out.numpy(), [1.0, 2.2 / 3], rtol=1e-6)
    np.testing.assert_allclose(squared_hinge([[0, 1, 1], [1, 0, 0]], y_pred).numpy(),
                               [(1.69 + 0.04 + 2.25) / 3, (0.64 + 1.96) / 3], rtol=1e-6)
    np.testing.assert_allclose(Hinge()([[0, 1, 1], [1, 0, 0]], y_pred).numpy(),
                               (1.0 + 2.2 / 3) / 2, rtol=1e-6)


def test_hinge_keeps_signed_labels():
    # already -1/1: the same margins as above
    np.testing.assert_allclose(hinge([[-1, 1, 1], [1, -1, -1]], Y_PRED).numpy(),
                               [1.0, 2.2 / 3], rtol=1e-6)
    np.testing.assert_allclose(SquaredHinge(reduction="sum")([[-1.0]], [[-2.0]]).numpy(), 0.0)


def test_hinge_conversion_works_while_tracing():
    out = Hinge()(SymbolicTensor((None, 3), "float32"), SymbolicTensor((None, 3), "float32"))
    assert isinstance(out, SymbolicTensor) and out.shape == ()


def test_categorical_hinge():
    # row 1: pos = 0.8, neg = max(0.3, 0, -0.5) = 0.3 -> 0.5; row 2: pos 1.5, neg 0.4 -> 0
    y_true = [[0, 1, 0], [1, 0, 0]]
    np.testing.assert_allclose(categorical_hinge(y_true, Y_PRED).numpy(), [0.5, 0.0],
                               rtol=1e-6)
    np.testing.assert_allclose(CategoricalHinge()(y_true, Y_PRED, [2.0, 1.0]).numpy(), 0.5,
                               rtol=1e-6)


def test_kl_divergence():
    y_true = [[0.2, 0.8], [0.5, 0.5]]
    y_pred = [[0.4, 0.6], [0.9, 0.1]]
    expected = [0.2 * math.log(0.5) + 0.8 * math.log(0.8 / 0.6),
                0.5 * math.log(0.5 / 0.9) + 0.5 * math.log(5.0)]
    np.testing.assert_allclose(kl_divergence(y_true, y_pred).numpy(), expected, rtol=1e-6)
    np.testing.assert_allclose(KLDivergence()(y_true, y_pred).numpy(), sum(expected) / 2,
                               rtol=1e-6)
    # zeros are clipped to 1e-7: a zero label contributes 1e-7 * log(1e-7 / p) ~ 0
    np.testing.assert_allclose(kl_divergence([[0.0, 1.0]], [[0.5, 0.5]]).numpy(),
                               [1e-7 * math.log(2e-7) + math.log(2)], rtol=1e-6)


def test_poisson():
    y_true = [[1.0, 0.0], [3.0, 2.0]]
    y_pred = [[0.5, 2.0], [1.0, 4.0]]
    expected = [(0.5 - math.log(0.5) + 2.0) / 2, (1.0 - 0.0 + 4.0 - 2 * math.log(4.0)) / 2]
    np.testing.assert_allclose(poisson(y_true, y_pred).numpy(), expected, rtol=1e-6)
    np.testing.assert_allclose(Poisson(reduction="sum")(y_true, y_pred).numpy(), sum(expected),
                               rtol=1e-6)
    # y_pred = 0 uses log(epsilon), not log(0)
    np.testing.assert_allclose(poisson([[1.0]], [[0.0]]).numpy(), [-math.log(1e-7)], rtol=1e-5)
