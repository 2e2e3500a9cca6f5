"""Dense + bias + ReLU: oneDNN's matmul primitive with the bias and a ReLU post-op against
what the numpy backend runs (``dnnl_sgemm``, then the bias add and ``y * (y > 0)`` in
place: graph mode's ``dense_bias_act`` step).

    python benchmarks/dense_postops.py [--repeats 200]

For the MLP's layers (784-512-512-10) at batch 1, 32, 128 and 512, float32, it prints the
time of each way and their ratio, measured in one run after warm-up, and the largest
difference between their results relative to the output's scale (the bias is added to the
finished sum in both; the post-op's summation order is the matmul primitive's).
"""
import argparse
import time

import numpy as np

from lamina.backend import dnnl_lib as dl
from lamina.backend.numpy_backend import NumpyBackend

LAYERS = [(784, 512, "relu"), (512, 512, "relu"), (512, 10, "linear")]
BATCHES = (1, 32, 128, 512)


def postop_primitive(rt, m, k, n, relu):
    f32 = dl.DATA_TYPES["float32"]
    src = dl.MemoryDesc(rt, (m, k), f32, (k, 1))
    wei = dl.MemoryDesc(rt, (k, n), f32, (n, 1))
    bias = dl.MemoryDesc(rt, (1, n), f32, (n, 1))
    dst = dl.MemoryDesc(rt, (m, n), f32, (n, 1))
    attr = dl.Attr(rt, post_ops=[(dl.ELTWISE["relu"], 0.0, 0.0)] if relu else ())
    pd = dl.PrimitiveDesc(rt, lambda h: rt.lib.dnnl_matmul_primitive_desc_create(
        h, rt.engine, src.handle, wei.handle, bias.handle, dst.handle, attr.handle),
        "matmul with post-ops")
    return dl.Primitive(rt, pd, ("src", "weights", "bias", "dst"), np, work=m * k * n)


def best(fn, repeats):
    for _ in range(5):
        fn()
    times = []
    for _ in range(3):
        start = time.perf_counter()
        for _ in range(repeats):
            fn()
        times.append((time.perf_counter() - start) / repeats)
    return min(times) * 1e6


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=200)
    args = parser.parse_args()
    rt = dl.runtime()
    if rt is None:
        raise SystemExit("oneDNN is not loaded (LAMINA_ONEDNN=0, or not Linux x86-64)")
    backend = NumpyBackend()
    rng = np.random.default_rng(0)
    print(f"{'layer':<18}{'batch':>6}{'sgemm+epilogue us':>19}{'post-op us':>12}"
          f"{'ratio':>8}{'max diff':>11}")
    for k, n, act in LAYERS:
        w = (rng.standard_normal((k, n)) / np.sqrt(k)).astype("float32")
        b = rng.standard_normal(n).astype("float32")
        for m in BATCHES:
            x = rng.standard_normal((m, k)).astype("float32")
            y1, y2 = np.empty((m, n), "float32"), np.empty((m, n), "float32")
            relu = act == "relu"
            primitive = postop_primitive(rt, m, k, n, relu)
            b2 = b.reshape(1, n)

            def ours():
                backend.matmul(x, w, out=y1)
                np.add(y1, b, out=y1)
                if relu:
                    np.multiply(y1, np.greater(y1, 0), out=y1)

            def fused():
                primitive(src=x, weights=w, bias=b2, dst=y2)
            t_ours, t_fused = best(ours, args.repeats), best(fused, args.repeats)
            diff = float(np.abs(y1 - y2).max() / max(np.abs(y1).max(), 1e-30))
            print(f"{f'{k}x{n} {act}':<18}{m:>6}{t_ours:>19.1f}{t_fused:>12.1f}"
                  f"{t_ours / t_fused:>7.2f}x{diff:>11.1e}")


if __name__ == "__main__":
    main()
