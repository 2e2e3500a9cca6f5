"""A generator yielding SciPy sparse matrices as ``x`` (Keras's ``sparse_generator``):
Lamina densifies them when the batch goes to the device, so predict and evaluate give
the dense input's numbers."""
import numpy as np
import pytest

from lamina import layers, models
from lamina.data_adapters.device_batch import is_scipy_sparse, to_device

sparse = pytest.importorskip("scipy.sparse")

X = np.array([[0.0, 2.0, 0.0, 0.0], [1.0, 0.0, 0.0, 3.0]], "float32")
Y = np.array([[1.0, 0.0, 0.0], [0.0, 1.0, 1.0]], "float32")


def _model():
    model = models.Sequential([layers.Input((4,)),
                               layers.Dense(3, kernel_initializer="ones")])
    model.compile(loss="mse")
    return model


def test_to_device_densifies_scipy_matrices():
    assert is_scipy_sparse(sparse.csr_matrix(X)) and not is_scipy_sparse(X)
    x, y = to_device((sparse.coo_matrix(X), Y, None))
    np.testing.assert_array_equal(np.asarray(x), X)
    assert str(x.dtype) == "float32"


@pytest.mark.parametrize("run_eagerly", [True, False])
def test_predict_and_evaluate_on_sparse_batches(run_eagerly):
    model = _model()
    model.run_eagerly = run_eagerly
    batches = lambda: ((sparse.csr_matrix(X), Y) for _ in range(3))   # noqa: E731
    out = model.predict(batches(), verbose=0)
    np.testing.assert_allclose(out, np.tile([[2.0] * 3, [4.0] * 3], (3, 1)))
    loss = model.evaluate(batches(), verbose=0)
    np.testing.assert_allclose(loss, np.mean((np.array([[2.0] * 3, [4.0] * 3]) - Y) ** 2),
                               rtol=1e-6)
