"""What the trainer tests share: a fresh session per test and a small regression batch."""
import numpy as np

import lamina


def fresh_session():
    """``setup_function`` of a test module: no state left by the previous test (names,
    caches, the seed). Without free_memory's gc.collect(), which walked the whole test
    process's heap before each test (0.2-0.5 s each, about 50 s of the suite)."""
    lamina.backend.clear_session(free_memory=False)
    lamina.utils.set_random_seed(0)


def data(n=16, seed=0):
    """``n`` rows of 4 features and 3 regression targets."""
    rng = np.random.default_rng(seed)
    return (rng.standard_normal((n, 4)).astype("float32"),
            rng.standard_normal((n, 3)).astype("float32"))
