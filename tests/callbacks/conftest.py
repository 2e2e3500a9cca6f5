"""Fixtures of the callback tests: a fresh session per test and floatx as a parameter."""
import pytest

import lamina


@pytest.fixture(autouse=True)
def _fresh_session():
    lamina.backend.clear_session()
    lamina.utils.set_random_seed(0)


@pytest.fixture(params=["float32", "float64"])
def floatx(request):
    """Run the test with this default float dtype (weights, optimizer state)."""
    previous = lamina.backend.floatx()
    lamina.backend.set_floatx(request.param)
    yield request.param
    lamina.backend.set_floatx(previous)
