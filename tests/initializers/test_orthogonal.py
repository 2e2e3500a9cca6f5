"""Orthogonal: orthonormal rows or columns, Keras's sign convention, gains and errors."""
import numpy as np
import pytest

import lamina
from lamina.errors import ShapeError
from lamina.initializers import Orthogonal
from lamina.initializers.orthogonal import orthonormal_columns


@pytest.mark.parametrize("shape", [(50, 50), (256, 64), (100, 33)])
def test_tall_matrices_get_orthonormal_columns(shape, backend):
    q = Orthogonal(seed=1)(shape).numpy().astype(np.float64)
    assert q.shape == shape
    np.testing.assert_allclose(q.T @ q, np.eye(shape[1]), atol=2e-6)


def test_wide_matrices_get_orthonormal_rows(backend):
    q = Orthogonal(seed=2)((64, 256)).numpy().astype(np.float64)
    np.testing.assert_allclose(q @ q.T, np.eye(64), atol=2e-6)


def test_conv_kernels_are_read_as_matrices():
    q = Orthogonal(seed=3)((3, 3, 8, 16)).numpy().astype(np.float64).reshape(72, 16)
    np.testing.assert_allclose(q.T @ q, np.eye(16), atol=2e-6)


def test_gain_scales_the_matrix():
    q = Orthogonal(gain=2.0, seed=4)((30, 20), dtype="float64").numpy()
    np.testing.assert_allclose(q.T @ q, 4 * np.eye(20), atol=1e-12)


def test_matches_lapack_q_with_keras_sign_convention():
    # Keras: q, r = qr(normal draw); q *= sign(diag(r)). Same draw, same Q.
    a = lamina.random.normal((120, 70), dtype="float64", seed=5).numpy()
    q, r = np.linalg.qr(a)
    expected = q * np.sign(np.diag(r))
    got = Orthogonal(seed=5)((120, 70), dtype="float64").numpy()
    np.testing.assert_allclose(got, expected, atol=1e-12)
    wide = Orthogonal(seed=5)((70, 120), dtype="float64").numpy()
    np.testing.assert_allclose(wide, expected.T, atol=1e-12)


def test_orthonormal_columns_across_several_blocks():
    a = lamina.random.normal((300, 100), dtype="float64", seed=6)
    q = orthonormal_columns(a).numpy()
    np.testing.assert_allclose(q.T @ q, np.eye(100), atol=1e-12)


def test_dtypes():
    half = Orthogonal(seed=7)((40, 20), dtype="float16")
    assert half.dtype == "float16"
    q = half.numpy().astype(np.float64)
    np.testing.assert_allclose(q.T @ q, np.eye(20), atol=3e-3)
    assert Orthogonal(seed=7)((4, 4)).dtype == "float32"


def test_seeding():
    a = Orthogonal(seed=8)((6, 6)).numpy()
    np.testing.assert_array_equal(Orthogonal(seed=8)((6, 6)).numpy(), a)
    lamina.random.set_seed(3)
    b = Orthogonal()((6, 6)).numpy()
    lamina.random.set_seed(3)
    np.testing.assert_array_equal(Orthogonal()((6, 6)).numpy(), b)


def test_empty_shapes_give_zeros():
    assert Orthogonal()((0, 4)).shape == (0, 4)


def test_config():
    assert Orthogonal(0.5, seed=2).get_config() == {"seed": 2, "gain": 0.5}


def test_errors():
    with pytest.raises(ShapeError, match=r"Orthogonal: the shape must have rank >= 2 \(it is "
                                         r"read as a matrix\); received shape \(5,\) of "
                                         r"rank 1"):
        Orthogonal()((5,))
    with pytest.raises(TypeError, match="Orthogonal: argument 'gain' must be a number"):
        Orthogonal(gain="1")
