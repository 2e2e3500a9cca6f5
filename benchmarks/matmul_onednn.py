"""oneDNN's matmul against OpenBLAS (numpy) per shape class, in one run after warm-up.

    python benchmarks/matmul_onednn.py [--repeats 20] [--rounds 3] [--no-models]

Shape classes: the Dense layers of the 784-512-512-10 MLP at batch 128 (forward ``x @ W``,
backward data ``g @ W.T`` with W.T a transposed view, backward weights ``x.T @ g``) and
batch-1 predict (forward), each class the sum of its three GEMMs. For each class:

- float32: oneDNN's float32 matmul / OpenBLAS's (``np.matmul``), with OpenBLAS on the one
  thread that thread_policy.py leaves it beside oneDNN, and on all cores;
- bfloat16: oneDNN's bfloat16 matmul (bfloat16 result) / what Lamina ran before
  (widen to float32, OpenBLAS, round: half_precision.py), and / OpenBLAS float32;
- int8 (exact int32): oneDNN's s8 matmul / what Lamina ran before (the float32 GEMM over
  int8 values: int8_matmul.py), and / OpenBLAS float32.

Then the models (unless --no-models): the int8-quantized MLP's predict at batch 128 and 1
(graph mode, ``predict_on_batch``) against float32's, with oneDNN's products on and off.
Rounds interleave all variants (a busy machine slows them alike); each figure is the best.
"""
from __future__ import annotations

import argparse
import time
import warnings

import numpy as np

from common import mlp  # (common also puts the repository on sys.path)

import lamina  # noqa: E402
from lamina.backend import blas_threads, dnnl_lib, dnnl_matmul  # noqa: E402

try:
    import ml_dtypes
    BF16 = np.dtype(ml_dtypes.bfloat16)
except ImportError:                                 # pragma: no cover
    BF16 = None

LAYERS = [(784, 512), (512, 512), (512, 10)]


def gemms(kind: str, batch: int):
    """(a_shape, b_shape, transposed) of the three GEMMs of a shape class."""
    out = []
    for k, n in LAYERS:
        if kind == "forward":
            out.append(((batch, k), (k, n), ""))
        elif kind == "backward data":        # g (batch, n) @ W.T (n, k), W.T a view
            out.append(((batch, n), (n, k), "b"))
        else:                                # x.T (k, batch) @ g (batch, n), x.T a view
            out.append(((k, batch), (batch, n), "a"))
    return out


CLASSES = [("batch 128 forward", "forward", 128),
           ("batch 128 backward data", "backward data", 128),
           ("batch 128 backward weights", "backward weights", 128),
           ("batch 1 forward (predict)", "forward", 1)]


def operands(rng, a_shape, b_shape, transposed, dtype):
    def make(shape, t):
        if dtype == np.int8:
            values = rng.integers(-127, 128, (shape[::-1] if t else shape)).astype(np.int8)
        else:
            values = rng.standard_normal(shape[::-1] if t else shape).astype(dtype)
        return values.T if t else values
    return make(a_shape, "a" in transposed), make(b_shape, "b" in transposed)


def variants(a32, b32, abf, bbf, ai, bi):
    """name -> a function running one GEMM."""
    m, n = a32.shape[0], b32.shape[1]
    c32 = np.empty((m, n), np.float32)
    out = {"openblas_f32": lambda: np.matmul(a32, b32, out=c32),
           "openblas_f32_all": lambda: all_blas_threads(lambda: np.matmul(a32, b32, out=c32)),
           "onednn_f32": lambda: dnnl_matmul.matmul(a32, b32, np.float32, c32, min_work=0)}
    if abf is not None:
        cbf = np.empty((m, n), BF16)
        out["widened_bf16"] = lambda: np.copyto(
            cbf, np.matmul(abf.astype(np.float32), bbf.astype(np.float32)), casting="unsafe")
        out["onednn_bf16"] = lambda: dnnl_matmul.matmul(abf, bbf, BF16, cbf, min_work=0)
    ci = np.empty((m, n), np.int32)
    out["float32_gemm_int8"] = lambda: np.copyto(
        ci, np.matmul(ai.astype(np.float32), bi.astype(np.float32)), casting="unsafe")
    out["onednn_int8"] = lambda: dnnl_matmul.matmul(ai, bi, np.int32, ci, min_work=0)
    return out


def all_blas_threads(fn):
    """``fn()`` with OpenBLAS on every core (thread_policy.py holds it at one beside oneDNN)."""
    functions = blas_threads.blas_functions()
    if not functions:
        return fn()
    get, set_ = functions
    before = get()
    set_(blas_threads.cores())
    try:
        return fn()
    finally:
        set_(before)


def best(fn, repeats: int) -> float:
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return min(times)


def kernels(repeats: int, rounds: int) -> None:
    rng = np.random.default_rng(0)
    table = {}
    for label, kind, batch in CLASSES:
        for a_shape, b_shape, t in gemms(kind, batch):
            a32, b32 = operands(rng, a_shape, b_shape, t, np.float32)
            abf, bbf = (a32.astype(BF16), b32.astype(BF16)) if BF16 is not None else (None,) * 2
            ai, bi = operands(rng, a_shape, b_shape, t, np.int8)
            table[(label, a_shape, b_shape)] = variants(a32, b32, abf, bbf, ai, bi)
    for fns in table.values():                 # warm-up: primitives made, caches hot
        for fn in fns.values():
            for _ in range(3):
                fn()
    seconds = {key: dict.fromkeys(fns, float("inf")) for key, fns in table.items()}
    for _ in range(rounds):
        for key, fns in table.items():
            for name, fn in fns.items():
                seconds[key][name] = min(seconds[key][name], best(fn, repeats))
    blas = blas_threads.blas_functions()
    print(f"OpenBLAS threads {blas[0]() if blas else '?'} (all: {blas_threads.cores()}); "
          f"oneDNN: OpenMP's")
    names = [n for n in ("openblas_f32", "openblas_f32_all", "onednn_f32", "widened_bf16",
                         "onednn_bf16", "float32_gemm_int8", "onednn_int8")
             if n in next(iter(seconds.values()))]
    print("per GEMM, us: " + " ".join(names) + "   [oneDNN's f32, bf16, int8 kernels]")
    for (label, a_shape, b_shape), times in seconds.items():
        impls = [dnnl_matmul.implementation(a_shape, b_shape, d, o) or "-" for d, o in
                 (("float32", "float32"), (BF16, BF16), ("int8", "int32")) if d is not None]
        figures = " ".join(f"{times[n] * 1e6:7.1f}" for n in names)
        print(f"  {label:27s} {a_shape!s:>11} @ {b_shape!s:11} {figures}   "
              f"[{', '.join(impls)}]")
    print("\nper shape class (sum of its 3 GEMMs); a ratio < 1: oneDNN faster")
    for label, _, _ in CLASSES:
        total = {}
        for (row_label, _, _), times in seconds.items():
            if row_label == label:
                for name, t in times.items():
                    total[name] = total.get(name, 0.0) + t

        def ratio(a, b):
            return f"{total[a] / total[b]:5.2f}" if a in total and b in total else "  -  "
        print(f"  {label:27s} f32 onednn/openblas {ratio('onednn_f32', 'openblas_f32')} "
              f"(/all threads {ratio('onednn_f32', 'openblas_f32_all')}) | bf16 "
              f"onednn/widened {ratio('onednn_bf16', 'widened_bf16')}, /f32 "
              f"{ratio('onednn_bf16', 'openblas_f32')} | int8 onednn/f32-gemm "
              f"{ratio('onednn_int8', 'float32_gemm_int8')}, /f32 "
              f"{ratio('onednn_int8', 'openblas_f32')}")


def models(repeats: int, rounds: int) -> None:
    rng = np.random.default_rng(1)
    backend = lamina.backend.get_backend("numpy")
    lamina.utils.set_random_seed(0)
    float_model = mlp(lamina)
    int8_model = lamina.Sequential.from_config(float_model.get_config())
    int8_model.set_weights(float_model.get_weights())
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        int8_model.quantize("int8")
    runs = {}
    for batch in (128, 1):
        x = rng.standard_normal((batch, 784)).astype(np.float32)
        for name, model in (("float32", float_model), ("int8", int8_model)):
            for onednn in (True, False):
                runs[(batch, name, onednn)] = (model, x, onednn)
    seconds = dict.fromkeys(runs, float("inf"))
    saved = backend.onednn

    def call(model, x, onednn):
        backend.onednn = onednn
        try:
            model.predict_on_batch(x)
        finally:
            backend.onednn = saved
    for key, args in runs.items():
        for _ in range(3):
            call(*args)
    for _ in range(rounds):
        for key, args in runs.items():
            seconds[key] = min(seconds[key], best(lambda: call(*args), repeats))
    print("\nMLP 784-512-512-10 predict_on_batch (graph mode), best of rounds:")
    for batch in (128, 1):
        f32 = seconds[(batch, "float32", True)]
        for name in ("float32", "int8"):
            for onednn in (True, False):
                t = seconds[(batch, name, onednn)]
                print(f"  batch {batch:3d} {name:7s} oneDNN matmul {'on ' if onednn else 'off'}"
                      f" {t * 1e3:7.3f} ms  {t / f32:5.2f}x float32")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--repeats", type=int, default=20)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--no-models", action="store_true")
    args = parser.parse_args()
    if dnnl_lib.runtime() is None:
        print("oneDNN's library is absent or turned off (LAMINA_ONEDNN=0): nothing to compare")
        return
    flags = dnnl_matmul.cpu_flags()
    print("CPU: " + " ".join(f for f in ("avx512_bf16", "amx_bf16", "amx_int8", "avx512_vnni",
                                          "avx_vnni") if f in flags)
          + f"; native bf16 {dnnl_matmul.native_bf16()}, exact int8 {dnnl_matmul.exact_int8()}")
    kernels(args.repeats, args.rounds)
    if not args.no_models:
        models(args.repeats, args.rounds)


if __name__ == "__main__":
    main()
