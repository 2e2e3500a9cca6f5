"""Keras's test markers (``-p keras_markers``): ``requires_trainable_backend`` skips on the
backends that cannot train (numpy, openvino); neither JAX nor Lamina is one of them."""
import pytest


def pytest_configure(config):
    config.addinivalue_line("markers", "requires_trainable_backend: needs a trainer")
    config.addinivalue_line("markers", "large: a large test")


def pytest_collection_modifyitems(config, items):
    from keras.src.backend import backend
    if backend() in ("numpy", "openvino"):
        skip = pytest.mark.skip(reason="no trainer on this backend")
        for item in items:
            if "requires_trainable_backend" in item.keywords:
                item.add_marker(skip)
