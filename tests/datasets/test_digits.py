import numpy as np
import pytest

from lamina.datasets import digits


def test_load_data_is_a_fixed_stratified_split():
    (x_train, y_train), (x_test, y_test) = digits.load_data()
    assert x_train.shape[1:] == (8, 8) and x_train.dtype == np.uint8
    assert len(x_train) + len(x_test) == 1797
    assert abs(len(x_test) - 0.2 * 1797) < 10
    train_counts, test_counts = np.bincount(y_train), np.bincount(y_test)
    np.testing.assert_allclose(test_counts / (train_counts + test_counts), 0.2, atol=0.01)
    (x2, _), _ = digits.load_data()
    np.testing.assert_array_equal(x_train, x2)
    assert x_train.max() == 16


def test_bad_fraction_is_rejected():
    with pytest.raises(ValueError, match="'test_fraction' must be in \\(0, 1\\); received 1.5"):
        digits.load_data(test_fraction=1.5)
