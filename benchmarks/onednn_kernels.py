"""oneDNN's kernels against the numpy kernels, and NHWC against oneDNN's blocked layouts.

    python benchmarks/onednn_kernels.py [--repeats 20]

For the four convolutions of the VGG benchmark model (batch 64, 3x3, 'same') it times the
forward, backward-data and backward-weights kernels of the numpy backend with oneDNN on and
off, and oneDNN with its activations in the layout it prefers (``format_tag_any``, what a
layout pass would keep between oneDNN ops; reorders at the plan's boundaries not counted),
then max pooling 2x2 and its gradient, then a 3-D convolution (3x3x3 'same', NDHWC) as one
oneDNN primitive against its depth taps through oneDNN's 2-D convolutions (how Conv3D ran
before it was one op) and through the numpy kernels. Ratios are measured in one run, after
warm-up.
"""
import argparse
import time

import numpy as np

from lamina.backend import dnnl_conv, dnnl_lib as dl
from lamina.backend.numpy_backend import NumpyBackend

CONVS = [(64, 32, 32, 3, 32), (64, 32, 32, 32, 32), (64, 16, 16, 32, 64), (64, 16, 16, 64, 64)]
ARGS = ((1, 1), ((1, 1), (1, 1)), (1, 1), 1)


def timed(fn, repeats):
    for _ in range(3):
        fn()
    start = time.perf_counter()
    for _ in range(repeats):
        fn()
    return (time.perf_counter() - start) / repeats * 1e3


def blocked_forward(rt, x, w, y_shape):
    """The forward primitive with src/dst in oneDNN's chosen layout (buffers of its size)."""
    dtype = dl.DATA_TYPES["float32"]
    n, h, wd, c = x.shape
    src = dl.MemoryDesc(rt, (n, c, h, wd), dtype)
    dst = dl.MemoryDesc(rt, (y_shape[0], y_shape[3], y_shape[1], y_shape[2]), dtype)
    wei = dnnl_conv._filter(rt, w.shape, 1, dtype, True)
    geometry, attr = dnnl_conv._geometry(*ARGS[:3]), dl.Attr(rt)
    pd = dl.PrimitiveDesc(rt, lambda h: rt.lib.dnnl_convolution_forward_primitive_desc_create(
        h, rt.engine, dl.FORWARD_TRAINING, dl.CONVOLUTION_DIRECT, src.handle, wei.handle,
        None, dst.handle, *geometry, attr.handle), "blocked forward")
    prim = dl.Primitive(rt, pd, ("src", "weights", "dst"), np,
                        {"weights": dnnl_conv._filter(rt, w.shape, 1, dtype)})
    bx = np.zeros(prim.sizes["src"] // 4, "float32")
    by = np.zeros(prim.sizes["dst"] // 4, "float32")
    return lambda: prim(src=bx, weights=w, dst=by)


VOLUME = (8, 16, 32, 32, 16, 32)          # batch, depth, height, width, in, out
ARGS_3D = ((1, 1, 1), ((1, 1), (1, 1), (1, 1)), (1, 1, 1), 1)


class TapsOnOneDNN(NumpyBackend):
    """3-D convolutions as depth taps over oneDNN's 2-D convolutions."""

    def dnnl_conv(self, x, *args, **kwargs):
        return None if x.ndim == 5 else super().dnnl_conv(x, *args, **kwargs)

    def dnnl_conv_backprop_input(self, dy, *args, **kwargs):
        return None if dy.ndim == 5 else super().dnnl_conv_backprop_input(dy, *args, **kwargs)

    def dnnl_conv_backprop_filter(self, x, *args, **kwargs):
        return None if x.ndim == 5 else super().dnnl_conv_backprop_filter(x, *args, **kwargs)


def volumes(on, off, rng, repeats):
    n, d, h, wd, c, o = VOLUME
    x = rng.standard_normal((n, d, h, wd, c)).astype("float32")
    w = rng.standard_normal((3, 3, 3, c, o)).astype("float32")
    dy = rng.standard_normal((n, d, h, wd, o)).astype("float32")
    taps = TapsOnOneDNN()
    print(f"\n3-D convolution {VOLUME[1:]}, batch {n}: numpy taps ms, oneDNN 2-D taps ms, "
          f"one oneDNN 3-D primitive ms")
    for name, kernel in {
            "forward": lambda b: b.conv3d(x, w, *ARGS_3D),
            "backward data": lambda b: b.conv3d_backprop_input(dy, w, x.shape, *ARGS_3D),
            "backward weights": lambda b: b.conv3d_backprop_filter(x, dy, w.shape, *ARGS_3D)
            }.items():
        t_off, t_taps, t_on = (timed(lambda: kernel(b), repeats) for b in (off, taps, on))
        print(f"  {name:<18}{t_off:9.2f}{t_taps:9.2f}{t_on:9.2f}   one primitive "
              f"{t_taps / t_on:.2f}x the 2-D taps")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=20)
    args = parser.parse_args()
    rt = dl.runtime()
    if rt is None:
        raise SystemExit("oneDNN is not loaded (LAMINA_ONEDNN=0, or not Linux x86-64)")
    on, off = NumpyBackend(), NumpyBackend()
    off.onednn = False
    rng = np.random.default_rng(0)
    totals = {"numpy": 0.0, "onednn": 0.0}
    print(f"{'convolution':<26}{'kernel':<16}{'numpy ms':>10}{'oneDNN ms':>11}{'ratio':>8}"
          f"{'blocked ms':>12}")
    for n, h, wd, c, o in CONVS:
        x = rng.standard_normal((n, h, wd, c)).astype("float32")
        w = rng.standard_normal((3, 3, c, o)).astype("float32")
        dy = rng.standard_normal((n, h, wd, o)).astype("float32")
        kernels = {
            "forward": lambda b: b.conv2d(x, w, *ARGS),
            "backward data": lambda b: b.conv2d_backprop_input(dy, w, x.shape, *ARGS),
            "backward weights": lambda b: b.conv2d_backprop_filter(x, dy, w.shape, *ARGS)}
        for name, kernel in kernels.items():
            if name == "backward data" and c == 3:
                continue                     # the first layer's input gradient is pruned
            t_off = timed(lambda: kernel(off), args.repeats)
            t_on = timed(lambda: kernel(on), args.repeats)
            totals["numpy"] += t_off
            totals["onednn"] += t_on
            blocked = (f"{timed(blocked_forward(rt, x, w, dy.shape), args.repeats):12.2f}"
                       if name == "forward" else "")
            print(f"{str((h, wd, c, o)):<26}{name:<16}{t_off:10.2f}{t_on:11.2f}"
                  f"{t_off / t_on:7.2f}x{blocked}")
    print(f"{'all convolutions':<42}{totals['numpy']:10.2f}{totals['onednn']:11.2f}"
          f"{totals['numpy'] / totals['onednn']:7.2f}x")
    # The filters are reordered into each primitive's layout on every call (dnnl_lib's
    # Primitive): what that costs against the convolutions.
    reorders = 0.0
    for _, _, _, c, o in CONVS:
        w = rng.standard_normal((3, 3, c, o)).astype("float32")
        prim = dl.CACHE[("conv", (64,) + CONVS[0][1:3] + (c,), w.shape,
                                 (64,) + CONVS[0][1:3] + (o,), 3, *ARGS, False, False)] \
            if c in (3, 32) and o == 32 else None
        if prim is None or "weights" not in prim._reorders:
            continue
        reorder, buffer, _ = prim._reorders["weights"]
        reorders += timed(lambda: reorder(src=w, dst=buffer), args.repeats)
    print(f"filter reorders of the 32x32 convolutions: {reorders * 1e3:.1f} us per step")
    x = rng.standard_normal((64, 32, 32, 32)).astype("float32")
    pool = ((2, 2), (2, 2), ((0, 0), (0, 0)))
    y = on.pool2d(x, "max", *pool)
    dy = rng.standard_normal(y.shape).astype("float32")
    for name, kernel in {"max pool": lambda b: b.pool2d(x, "max", *pool),
                         "max pool gradient": lambda b: b.max_pool2d_backprop(x, y, dy, *pool)
                         }.items():
        t_off, t_on = timed(lambda: kernel(off), args.repeats), timed(lambda: kernel(on),
                                                                      args.repeats)
        print(f"{'(32, 32, 32)':<26}{name:<16}{t_off:10.2f}{t_on:11.2f}{t_off / t_on:7.2f}x")
    volumes(on, off, rng, max(args.repeats // 4, 2))


if __name__ == "__main__":
    main()
