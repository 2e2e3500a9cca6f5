"""Whole recurrent sequences on oneDNN's RNN primitives: LSTM, GRU and the "linear before
reset" GRU (Keras's ``reset_after=True``), forward (training) and backward, one layer, one
direction, float32.

Why: a Keras LSTM/GRU run as a loop of small ops costs a few dozen kernel calls per time
step; oneDNN runs the whole sequence (all input projections in one GEMM, then the recurrent
GEMMs and fused gate arithmetic per step) in one call, forward and backward.

Arrays are described as Keras holds them, so no transposes run: the input (batch, time,
features) is oneDNN's ``ntc``; a Keras kernel (input_dim, gates*units) is ``ldigo`` with
one layer and one direction, in the gate order oneDNN expects (LSTM i, f, c~, o; GRU u=z,
r, o=h). The primitive reorders the weights into the packed layout it prefers on every call
(a few hundred KB). The LSTM bias (4*units) is ``ldgo`` as it is; the GRU bias is
(3*units); the linear-before-reset GRU's oneDNN bias is (u, r, o, u') =
(b_z + b'_z, b_r + b'_r, b_h, b'_h) built from Keras's (2, 3*units) input and recurrent
biases, and its gradient is split back.

The forward primitive (``forward_training``) writes a workspace (gates and states) that its
backward primitive reads: callers keep it as an extra output, a uint8 array of
:func:`workspace_bytes`. Both primitives are created together, once per (cell, time,
batch, features, units, direction), and kept in ``dnnl_lib``'s cache; a layer without
bias is given zeros (oneDNN's CPU RNNs take no bias-less case) and its bias gradient goes
to a scratch buffer. Where oneDNN is off or absent, the dtype is not float32 or oneDNN
refuses the case, the same functions run the reference kernels of ``rnn_reference.py``
(the layers then use their own step loop instead: they ask :func:`available` first).

oneDNN 3.2 reports ``ref`` for these training primitives (its GEMM-based RNN: one GEMM for
the input projections of all steps, then a GEMM and the gate arithmetic per step; on this
machine only ``forward_inference`` gets ``brgemm:avx512_core``), so this module does not
refuse ``ref`` implementations as the convolutions do: measured, it is 4x faster than the
numpy loop of ``rnn_reference.py`` and 2-3x faster than the layers' step loop.
"""
from __future__ import annotations

import threading

import numpy

from . import dnnl_lib as dl
from . import rnn_reference as reference

# cell -> (gates, oneDNN's bias gates, has a cell state); each has its own C functions,
# dnnl_{cell}_forward/backward_primitive_desc_create
CELLS = {"lstm": (4, 4, True), "gru": (3, 3, False), "lbr_gru": (3, 4, False)}
_F32 = dl.DATA_TYPES["float32"]
# A case whose per-step recurrent GEMM (2*N*H*G*H flops) is smaller than this runs on one
# OpenMP thread: its few-microsecond parallel regions, several per step, cost more in
# waking the passive second thread than they gain (2 cores, batch 32, 50 steps, best of 8,
# one -> two threads: LSTM(128) forward 3.0 -> 3.2 ms, backward 4.6 -> 6.1 ms; GRU(128)
# forward 1.9 -> 3.8 ms, backward 3.9 -> 8.9 ms; but LSTM(256), batch 64: forward 26 -> 20
# ms). The thread count only moves work between threads: eager and graph mode run each
# case with the same count, so they agree to the bit.
ONE_THREAD_FLOPS = 1 << 24


def available(backend, dtype="float32") -> bool:
    """Whether ``backend`` runs these kernels: oneDNN on and loaded, host arrays, float32."""
    return (bool(getattr(backend, "onednn", False)) and bool(backend.host_arrays)
            and str(dtype) == "float32" and dl.runtime() is not None)


def _md(rt, dims, strides=None):
    return dl.MemoryDesc(rt, dims, _F32, strides)


class _Sequence:
    """The primitives of one (cell, T, N, C, H, reverse) case."""

    def __init__(self, rt, cell, t, n, c, h, reverse):
        xp = numpy                        # oneDNN's CPU engine reads host memory only
        self.rt, self.xp, self.cell, self.shape = rt, xp, cell, (t, n, c, h)
        g, gb, self.has_c = CELLS[cell]
        self.gates = g
        self.direction = dl.RNN_RIGHT2LEFT if reverse else dl.RNN_LEFT2RIGHT
        self.one_thread = 2 * n * h * g * h < ONE_THREAD_FLOPS
        # dl.use_threads: one thread or every core
        self.work = 0 if self.one_thread else dl.SMALL_WORK
        self._keep = []                               # descriptors the primitives use
        self.src = self._d((t, n, c), (c, t * c, 1))          # (batch, time, C) as ntc
        self.dst = self._d((t, n, h), (h, t * h, 1))
        self.state = self._d((1, 1, n, h), (n * h, n * h, h, 1))
        self.user_wl = self._d((1, 1, c, g, h), (c * g * h, c * g * h, g * h, h, 1))
        self.user_wi = self._d((1, 1, h, g, h), (h * g * h, h * g * h, g * h, h, 1))
        self.bias = self._d((1, 1, gb, h), (gb * h, gb * h, h, 1))   # CPU RNNs need one
        self.attr = dl.Attr(rt)
        wl, wi = self._d((1, 1, c, g, h)), self._d((1, 1, h, g, h))
        self.fwd_pd = dl.PrimitiveDesc(rt, lambda pd: self._create(
            pd, dl.FORWARD_TRAINING, [self.src, self.state, wl, wi, self.bias, self.dst,
                                      self.state]), f"{cell} forward")
        args = ["src", "src_iter", "weights", "weights_iter", "bias", "dst", "dst_iter",
                "workspace"] + (["src_iter_c", "dst_iter_c"] if self.has_c else [])
        self.forward = dl.Primitive(rt, self.fwd_pd, args, xp,
                                    {"weights": self.user_wl, "weights_iter": self.user_wi},
                                    check_impl=False, work=self.work)
        self.workspace_bytes = self.fwd_pd.arg_size(dl.ARGS["workspace"])
        # made with the forward: a case runs on oneDNN both ways or not at all, so a
        # workspace is always read by the implementation that wrote it
        self.backward = self._make_backward()
        self._lock = threading.Lock()
        # oneDNN's bias where Keras's is not it (the LBR GRU's (4, H), zeros for a layer
        # without bias) and the bias gradient that Keras's does not take as it is
        self._zeros = xp.zeros((gb, h), "float32")
        self._zero_grads = {}                 # shape -> zeros, for output gradients not given
        self._bias = xp.empty((gb, h), "float32")
        self._dbias = xp.empty((gb, h), "float32")

    def _d(self, dims, strides=None):
        md = _md(self.rt, dims, strides)
        self._keep.append(md)
        return md

    def _h(self, md):
        return None if md is None else md.handle

    def _create(self, pd, prop, mds, diff=None, hint=None):
        """``mds`` = [src, src_iter, weights_layer, weights_iter, bias, dst, dst_iter] (the
        LSTM's peephole/projection absent, its c states shaped like h); ``diff`` the same
        list of gradients for the backward primitive."""
        lib, rt, h = self.rt.lib, self.rt, self._h
        src, it, wl, wi, b, dst, dit = mds
        flags = 0 if diff is None else dl.RNN_DIFF_WEIGHTS_OVERWRITE
        if self.has_c:
            fwd = [h(src), h(it), h(it), h(wl), h(wi), None, None, h(b), h(dst), h(dit), h(dit)]
            if diff is None:
                return lib.dnnl_lstm_forward_primitive_desc_create(
                    pd, rt.engine, prop, self.direction, *fwd, flags, self.attr.handle)
            dsrc, dit_, dwl, dwi, db, ddst, ddit = diff
            bwd = [h(dsrc), h(dit_), h(dit_), h(dwl), h(dwi), None, None, h(db), h(ddst),
                   h(ddit), h(ddit)]
            return lib.dnnl_lstm_backward_primitive_desc_create(
                pd, rt.engine, prop, self.direction, *fwd, *bwd, flags, hint,
                self.attr.handle)
        fwd = [h(m) for m in mds]
        if diff is None:
            return getattr(lib, f"dnnl_{self.cell}_forward_primitive_desc_create")(
                pd, rt.engine, prop, self.direction, *fwd, flags, self.attr.handle)
        return getattr(lib, f"dnnl_{self.cell}_backward_primitive_desc_create")(
            pd, rt.engine, prop, self.direction, *fwd, *[h(m) for m in diff], flags, hint,
            self.attr.handle)

    def _make_backward(self):
        t, n, c, h = self.shape
        g = self.gates
        wl, wi = self._d((1, 1, c, g, h)), self._d((1, 1, h, g, h))
        dwl, dwi = self._d((1, 1, c, g, h)), self._d((1, 1, h, g, h))
        mds = [self.src, self.state, wl, wi, self.bias, self.dst, self.state]
        diff = [self.src, self.state, dwl, dwi, self.bias, self.dst, self.state]
        pd = dl.PrimitiveDesc(self.rt, lambda p: self._create(
            p, dl.BACKWARD, mds, diff, self.fwd_pd.handle), f"{self.cell} backward")
        args = ["src", "src_iter", "weights", "weights_iter", "bias", "dst", "dst_iter",
                "workspace", "diff_src", "diff_src_iter", "diff_weights", "diff_weights_iter",
                "diff_bias", "diff_dst", "diff_dst_iter"]
        if self.has_c:
            args += ["src_iter_c", "dst_iter_c", "diff_src_iter_c", "diff_dst_iter_c"]
        layouts = {"weights": self.user_wl, "weights_iter": self.user_wi,
                   "diff_weights": self.user_wl, "diff_weights_iter": self.user_wi}
        return dl.Primitive(self.rt, pd, args, self.xp, layouts,
                            outputs=("diff_weights", "diff_weights_iter"), check_impl=False,
                            work=self.work)

    def zeros(self, shape):
        """Zeros of ``shape`` (read-only for oneDNN), made once."""
        if shape not in self._zero_grads:
            self._zero_grads[shape] = self.xp.zeros(shape, "float32")
        return self._zero_grads[shape]

    def onednn_bias(self, bias):
        """Keras's bias as oneDNN's: zeros for none; the LBR GRU's (2, 3H) input and
        recurrent biases become (u, r, o, u') = (b_z + b'_z, b_r + b'_r, b_h, b'_h)."""
        if bias is None:
            return self._zeros
        if self.cell != "lbr_gru":
            return self.xp.ascontiguousarray(bias)
        h = self.shape[3]
        b4 = self._bias
        self.xp.add(bias[0, :2 * h], bias[1, :2 * h], out=b4[:2].reshape(-1))
        b4[2] = bias[0, 2 * h:]
        b4[3] = bias[1, 2 * h:]
        return b4


def _sequence(cell, x_shape, h, reverse):
    """The case's primitives (made once; None where oneDNN is absent or refuses it)."""
    rt = dl.runtime()
    if rt is None or cell not in CELLS:
        return None
    n, t, c = x_shape
    if min(n, t, c, h) <= 0:
        return None
    key = ("rnn", cell, t, n, c, h, bool(reverse))
    return dl.cached(key, lambda: _Sequence(rt, cell, t, n, c, h, reverse))


def workspace_bytes(cell, x_shape, units, dtype="float32", reverse=False) -> int:
    """Bytes of the workspace that :func:`rnn_forward` writes for inputs of ``x_shape``
    (batch, time, features) and ``dtype``: enough for oneDNN's (float32, where the library
    loads) and for the reference kernels', whichever runs."""
    size = reference.workspace_bytes(cell, numpy.dtype(dtype).itemsize, x_shape, units)
    if str(dtype) == "float32" and dl.runtime() is not None:
        seq = _sequence(cell, tuple(x_shape), units, reverse)
        if seq is not None:
            size = max(size, seq.workspace_bytes)
    return size


def _onednn_case(backend, cell, x, recurrent_kernel, reverse):
    """The case's primitives where oneDNN runs it on ``backend``, else None."""
    if not available(backend, x.dtype):
        return None
    return _sequence(cell, x.shape, recurrent_kernel.shape[0], reverse)


def _out(xp, out, shape, dtype="float32"):
    if (out is not None and out.dtype == dtype and tuple(out.shape) == tuple(shape)
            and out.flags.c_contiguous):
        return out
    return xp.empty(shape, dtype)


def _states(array):
    return array if array.flags.c_contiguous else array.copy()


def rnn_forward(backend, cell, x, h0, c0, kernel, recurrent_kernel, bias, reverse=False,
                out=None):
    """The whole sequence: ``(y (N, T, H), h_T, [c_T,] workspace)``, into ``out`` (a
    tuple of arrays) where given; on oneDNN where it runs the case, else the reference."""
    n, t, _ = x.shape
    h = recurrent_kernel.shape[0]
    xp, outs = backend.xp, list(out) if out is not None else [None] * (3 + (cell == "lstm"))
    if outs[-1] is None:            # the size output_spec promises, whichever implementation
        outs[-1] = xp.empty((workspace_bytes(cell, x.shape, h, x.dtype, reverse),), "uint8")
    seq = _onednn_case(backend, cell, x, recurrent_kernel, reverse)
    if seq is None:
        return reference.forward(backend, cell, x, h0, c0, kernel, recurrent_kernel, bias,
                                 reverse, outs)
    y = _out(xp, outs[0], (n, t, h))
    h_t = _out(xp, outs[1], (n, h))
    c_t = _out(xp, outs[2], (n, h)) if seq.has_c else None
    ws = outs[-1]
    c = xp.ascontiguousarray
    arrays = dict(src=c(x), src_iter=_states(h0), weights=c(kernel),
                  weights_iter=c(recurrent_kernel), dst=y, dst_iter=h_t, workspace=ws)
    if seq.has_c:
        arrays.update(src_iter_c=_states(c0), dst_iter_c=c_t)
    with seq._lock:
        seq.forward(bias=seq.onednn_bias(bias), **arrays)
    results = (y, h_t, c_t, ws) if seq.has_c else (y, h_t, ws)
    return _finish(results, outs)


def rnn_backward(backend, cell, x, h0, c0, kernel, recurrent_kernel, bias, y, h_t, c_t, ws,
                 dy, dh_t, dc_t, reverse=False, out=None):
    """Gradients ``(dx, dh0, [dc0,] dkernel, drecurrent_kernel[, dbias])`` of the sequence
    from the forward's results and workspace, by the implementation that wrote it; an
    output gradient given as None is zero."""
    seq = _onednn_case(backend, cell, x, recurrent_kernel, reverse)
    if seq is None:
        return reference.backward(backend, cell, x, h0, c0, kernel, recurrent_kernel, bias,
                                  y, h_t, c_t, ws, dy, dh_t, dc_t, reverse, out)
    n, t, _ = x.shape
    h = recurrent_kernel.shape[0]
    xp = backend.xp
    dy = seq.zeros((n, t, h)) if dy is None else dy
    dh_t = seq.zeros((n, h)) if dh_t is None else dh_t
    dc_t = seq.zeros((n, h)) if dc_t is None and seq.has_c else dc_t
    shapes = [x.shape, h0.shape] + ([h0.shape] if seq.has_c else []) + \
        [kernel.shape, recurrent_kernel.shape] + ([bias.shape] if bias is not None else [])
    outs = list(out) if out is not None else [None] * len(shapes)
    grads = [_out(xp, o, s) for o, s in zip(outs, shapes)]
    nb = bias is not None
    c = xp.ascontiguousarray
    arrays = dict(src=c(x), src_iter=_states(h0), weights=c(kernel),
                  weights_iter=c(recurrent_kernel), dst=c(y), dst_iter=_states(h_t),
                  workspace=ws, diff_src=grads[0], diff_src_iter=grads[1],
                  diff_weights=grads[-2 - nb], diff_weights_iter=grads[-1 - nb],
                  diff_dst=c(dy), diff_dst_iter=_states(dh_t))
    if seq.has_c:
        arrays.update(src_iter_c=_states(c0), dst_iter_c=_states(c_t),
                      diff_src_iter_c=grads[2], diff_dst_iter_c=_states(dc_t))
    direct = nb and cell != "lbr_gru"             # Keras's bias gradient is oneDNN's
    with seq._lock:
        seq.backward(bias=seq.onednn_bias(bias),
                     diff_bias=grads[-1] if direct else seq._dbias, **arrays)
        if nb and not direct:
            _split_lbr_bias(seq._dbias, grads[-1], h)
    return _finish(tuple(grads), out)


def _split_lbr_bias(d4, dbias, h):
    """oneDNN's (u, r, o, u') bias gradient as Keras's (2, 3H) input/recurrent ones."""
    dbias[0, :2 * h] = d4[:2].reshape(-1)
    dbias[1, :2 * h] = d4[:2].reshape(-1)
    dbias[0, 2 * h:] = d4[2]
    dbias[1, 2 * h:] = d4[3]


def _finish(results, out):
    if out is None:
        return results
    for r, o in zip(results, out):
        if o is not None and r is not o:
            o[...] = r
    return tuple(o if o is not None else r for r, o in zip(results, out))


def implementation(cell, x_shape, units, reverse=False):
    """oneDNN's names for the implementations of the case's forward and backward
    primitives (for reports), or None where oneDNN does not run it."""
    seq = _sequence(cell, tuple(x_shape), units, reverse)
    return None if seq is None else (seq.forward.implementation,
                                     seq.backward.implementation)
