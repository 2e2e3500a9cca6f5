"""Fixtures of the callback tests: a fresh session per test and floatx as a parameter."""
import pytest

import lamina


@pytest.fixture(autouse=True)
def _fresh_session():
    # free_memory=False: only the names and caches are reset. Its gc.collect() walked the
    # whole test process's heap before every test, 0.25 s each and 44 s of the suite.
    lamina.backend.clear_session(free_memory=False)
    lamina.utils.set_random_seed(0)


@pytest.fixture(params=["float32", "float64"])
def floatx(request):
    """Run the test with this default float dtype (weights, optimizer state)."""
    previous = lamina.backend.floatx()
    lamina.backend.set_floatx(request.param)
    yield request.param
    lamina.backend.set_floatx(previous)
