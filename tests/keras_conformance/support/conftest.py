"""The ``conftest`` module Keras's tests import (``from conftest import skip_if_backend``);
Keras keeps it at its repository's root, outside the wheel. On this folder's path in both
the baseline run and Lamina's."""
import pytest


def _backend() -> str:
    from keras.src.backend import backend     # the shim's under Lamina, Keras's on JAX
    return backend()


def skip_if_backend(given_backend, reason):
    return pytest.mark.skipif(_backend() == given_backend, reason=reason)
