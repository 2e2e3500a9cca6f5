"""Direct (im2col + GEMM) vs Winograd F(2,3) conv2d forward on the VGG-style shapes.

    python benchmarks/winograd.py [repeats]

Prints, per shape and dtype, the best-of-N time of each path and direct/Winograd (>1 means
Winograd is faster), with the OpenBLAS environment it ran under. Under
``OPENBLAS_NUM_THREADS=1`` both paths run on one thread and are timed in process CPU time,
a measure of work that a loaded machine (other processes taking the cores) disturbs little.
"""
from __future__ import annotations

import os
import sys

import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

import lamina.backend.winograd as winograd_module
from lamina.backend.numpy_backend import NumpyBackend

SINGLE = os.environ.get("OPENBLAS_NUM_THREADS") == "1"
if SINGLE:
    winograd_module._threads = lambda: 1
_clock = time.process_time if SINGLE else time.perf_counter


def _time(fn) -> float:
    start = _clock()
    fn()
    return _clock() - start

# (batch, height, width, in channels, out channels): 3x3 'same', stride 1.
SHAPES = [(64, 32, 32, 32, 32), (64, 16, 16, 64, 64), (64, 32, 32, 3, 32),
          (64, 8, 8, 64, 64), (64, 32, 32, 16, 16)]


def run(repeats: int) -> None:
    print("OPENBLAS_CORETYPE=%s OPENBLAS_L2_SIZE=%s load average %.2f, %s" % (
        os.environ.get("OPENBLAS_CORETYPE", "unset"),
        os.environ.get("OPENBLAS_L2_SIZE", "unset"), os.getloadavg()[0],
        "one thread, CPU time" if SINGLE else "default threads, wall time"))
    backend = NumpyBackend()
    rng = np.random.default_rng(0)
    pads = ((1, 1), (1, 1))
    for dtype in (np.float32, np.float64):
        for n, h, w, c, k in SHAPES:
            x = rng.standard_normal((n, h, w, c)).astype(dtype)
            f = (rng.standard_normal((3, 3, c, k)) / np.sqrt(9 * c)).astype(dtype)
            y = np.empty((n, h, w, k), dtype=dtype)

            def direct():
                y[...] = backend.conv2d(x, f, (1, 1), pads, (1, 1), 1)

            def winograd():
                backend._winograd_conv2d(x, f, pads, y)

            backend.winograd = False
            direct(), winograd()
            # Alternated, so that load from other processes falls on both alike.
            pairs = [(_time(direct), _time(winograd)) for _ in range(repeats)]
            t_direct, t_wino = min(p[0] for p in pairs), min(p[1] for p in pairs)
            print(f"{np.dtype(dtype).name:8s} {n}x{h}x{w}x{c}->{k}: direct {t_direct * 1e3:7.2f} ms"
                  f"  winograd {t_wino * 1e3:7.2f} ms  ratio {t_direct / t_wino:5.2f}x")


if __name__ == "__main__":
    run(int(sys.argv[1]) if len(sys.argv) > 1 else 10)
