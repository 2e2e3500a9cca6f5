"""The fuzzers' seeds and numba's elementwise-chain kernels (lamina/backend/numba_chain.py).

A fuzzer seed trains 3-5 steps. A plan's chain starts compiling on the worker thread at
its 3rd run and takes 0.1-0.5 s, so on a machine whose kernel cache is empty (CI's clean
clone) the kernel was almost never ready before the seed ended: the kernels were compiled
for nothing (629 of the suite's 1,102 compiles, 110 s of its CPU time), and the next test
waited for them. Kernels found on disk still load as before (milliseconds, from the first
run: a warm machine runs them). Beyond that, which path ran was a race.

Now the path is chosen per seed: every twentieth seed (0, 20, 40, ...) compiles its
chains as soon as they run, on the test's own thread, so every later run of a chain is
its compiled kernel and the seed compares compiled graph chains (and the eager
optimizer's compiled updates) against eager; the other seeds start no compile. Compiled
kernels give numpy's bits by construction (tests/backend/test_numba_chain.py proves it
per step)."""
import pytest

from lamina.backend import numba_chain

NEVER = 1 << 62
COMPILED_EVERY = 20


@pytest.fixture(autouse=True)
def _chain_kernels_per_seed(request, monkeypatch):
    if not request.module.__name__.rpartition(".")[2].startswith("test_fuzz"):
        return
    params = getattr(request.node, "callspec", None)
    seed = params.params.get("seed") if params is not None else None
    if isinstance(seed, int) and seed % COMPILED_EVERY == 0:
        monkeypatch.setattr(numba_chain, "BACKGROUND_AFTER", 1)
        monkeypatch.setattr(numba_chain, "COMPILE_AFTER", 1)
        monkeypatch.setattr(numba_chain, "_compile_in_background",
                            lambda key: numba_chain.kernel(*key))
    else:
        monkeypatch.setattr(numba_chain, "BACKGROUND_AFTER", NEVER)
        monkeypatch.setattr(numba_chain, "COMPILE_AFTER", NEVER)
