"""Shared fixtures: the backend as a parameter (cupy cases skip without a GPU)."""
import zlib

import pytest

import lamina
from lamina.autograd import eager
from lamina.backend import numba_chain

BACKENDS = ["numpy", pytest.param("cupy", marks=pytest.mark.gpu)]


def cupy_unavailable_reason():
    try:
        lamina.backend.get_backend("cupy")
    except (ImportError, RuntimeError) as exc:
        return str(exc).splitlines()[0]
    return None


def pytest_configure(config):
    """Byte-compile Lamina and the tests once, in the process that starts the run (not in
    each pytest-xdist worker). The suite starts many Python processes (resume jobs, MPI
    ranks, data workers, examples), each importing Lamina: from source that is 680
    modules compiled again, 1.5-1.9 s, against 0.55 s from bytecode. Where
    PYTHONDONTWRITEBYTECODE is set (as on the build machine) nothing else writes the
    ``__pycache__`` files, and the SIGKILL resume tests alone took 45 s instead of 28.
    compileall writes them whatever that variable says, next to the sources as Python
    itself would; a tree that cannot be written is left as it is."""
    if hasattr(config, "workerinput"):       # a pytest-xdist worker: its controller did it
        return
    import compileall
    import os
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    for folder in (os.path.dirname(lamina.__file__), os.path.join(root, "tests")):
        # one process: 2 s from nothing, 0.03 s when up to date (a pool of 2: 2 s and 0.27 s)
        compileall.compile_dir(folder, quiet=2)


@pytest.fixture(params=BACKENDS)
def backend(request):
    """Run the test with this backend active; yields the Backend object."""
    if request.param == "cupy":
        reason = cupy_unavailable_reason()
        if reason:
            pytest.skip(f"cupy backend unavailable: {reason}")
    with lamina.backend.use(request.param) as b:
        yield b


@pytest.fixture
def numpy_kernels():
    """The numpy backend with oneDNN's kernels off for the test (its own kernels run)."""
    backend = lamina.backend.get_backend("numpy")
    saved, backend.onednn = backend.onednn, False
    yield backend
    backend.onednn = saved


@pytest.fixture(autouse=True)
def _no_kernel_compiling():
    """Each test starts with no numba kernel compiling on Lamina's worker thread (a plan's
    chains compile in the background). numba's compiler enters warnings.catch_warnings(),
    which swaps the warnings module's global state and is not thread-safe: a compile that
    an earlier test left running can unhook this test's pytest.warns ("DID NOT WARN", seen
    in pytest-xdist's test order). Nothing waits when no compile is pending."""
    numba_chain.wait_for_compiles(300)


# numba's elementwise-chain kernels (lamina/backend/numba_chain.py) in the tests. As
# configured for use, a plan's chain starts compiling on a worker thread at its 3rd run
# (0.1-0.5 s a kernel) and an eager program compiles at its 8th call. A test runs a few
# steps, so the kernel was rarely ready before the test ended, the next test waited for it
# (above), and which path a test ran was a race. With an empty kernel cache, as on CI's
# clean clone, the suite compiled 741 kernels; a run that timed each compile found the
# fuzzers' seeds alone compiling 629, for 110 s of CPU.
# Now each test takes one path, fixed by its id: one test in COMPILED_SHARE (a fuzzer seed:
# one in FUZZ_COMPILED_SHARE, by seed) compiles each chain at its first run on the test's
# own thread, so the rest of the test runs the compiled kernels; the others compile and
# load none (as configured, a kernel found in the disk cache loads on the worker thread at
# a chain's first run: waiting for those loads took 12% of the fuzzer's time on a machine
# whose cache was warm), so a test's path does not depend on the machine's cache either.
# Compiled kernels give numpy's bits by construction (tests/backend/test_numba_chain.py,
# per step). Tests of the compiling itself keep the configured thresholds: marker
# ``chain_kernels_as_configured``.
COMPILED_SHARE = 8
FUZZ_COMPILED_SHARE = 20
_NEVER = 1 << 62


@pytest.fixture(autouse=True)
def _chain_kernels(request, monkeypatch):
    if request.node.get_closest_marker("chain_kernels_as_configured"):
        return
    params = getattr(request.node, "callspec", None)
    seed = params.params.get("seed") if params is not None else None
    if request.module.__name__.rpartition(".")[2].startswith("test_fuzz") and \
            isinstance(seed, int):
        compiled = seed % FUZZ_COMPILED_SHARE == 0
    else:
        compiled = zlib.crc32(request.node.nodeid.encode()) % COMPILED_SHARE == 0
    if compiled:
        monkeypatch.setattr(numba_chain, "BACKGROUND_AFTER", 1)
        monkeypatch.setattr(numba_chain, "COMPILE_AFTER", 1)
        monkeypatch.setattr(numba_chain, "_compile_in_background",
                            lambda key: numba_chain.kernel(*key))
    else:
        monkeypatch.setattr(numba_chain, "BACKGROUND_AFTER", _NEVER)
        monkeypatch.setattr(numba_chain, "COMPILE_AFTER", _NEVER)
        monkeypatch.setattr(numba_chain, "_on_disk", lambda key: False)


@pytest.fixture(autouse=True, scope="session")
def _strict_ops():
    """Check every forward result against its op's output_spec during the tests."""
    eager.check_forward_against_spec = True
    yield
    eager.check_forward_against_spec = False


def pytest_terminal_summary(terminalreporter):
    """One line per distinct skip reason (hundreds of GPU cases skip for the same one)."""
    reasons = {}
    for report in terminalreporter.stats.get("skipped", []):
        reason = report.longrepr[2] if isinstance(report.longrepr, tuple) else str(report.longrepr)
        reasons[reason] = reasons.get(reason, 0) + 1
    for reason, count in sorted(reasons.items(), key=lambda item: -item[1]):
        terminalreporter.write_line(f"skipped {count}: {reason}")
