"""The pytest plugin of Lamina's conformance run (``-p lamina_shim``): installs the import
shim before collection, imports each Keras test module through it under its own dotted name
(``keras.src.ops.nn_test``), and bounds each test's time."""
import os
import signal

import pytest

TIME_LIMIT_S = int(os.environ.get("LAMINA_CONFORMANCE_TEST_LIMIT", "120"))


def pytest_configure(config):
    from tests.keras_conformance import shim
    shim.install()


class ShimmedModule(pytest.Module):
    def _getobj(self):
        import importlib
        parts = self.path.with_suffix("").parts
        dotted = ".".join(parts[len(parts) - 1 - parts[::-1].index("keras"):])
        return importlib.import_module(dotted)


def pytest_pycollect_makemodule(module_path, parent):
    if module_path.name.endswith("_test.py"):
        return ShimmedModule.from_parent(parent, path=module_path)
    return None


class TestTookTooLong(Exception):
    pass


def _alarm(signum, frame):
    raise TestTookTooLong(f"timeout: the test ran over {TIME_LIMIT_S} s")


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_call(item):
    previous = signal.signal(signal.SIGALRM, _alarm)
    signal.alarm(TIME_LIMIT_S)
    try:
        yield
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)
