"""Fixtures of the applications tests."""
import pytest

from lamina import initializers
from lamina.layers import initial_values


@pytest.fixture
def no_initial_draws(monkeypatch):
    """Every weight starts as zeros and no initializer runs, for the tests that read only a
    model's structure (layer names, classes, weight shapes, parameter counts): the random
    draws of VGG19's 144M initial values alone take seconds."""
    zeros = initializers.Zeros()
    monkeypatch.setattr(initial_values, "draw",
                        lambda initializer, shape, dtype: zeros(shape, dtype=dtype))
