"""Whole-sequence LSTM and GRU kernels written against ``xp`` (numpy or cupy), any float
dtype: the reference behind ``lstm_sequence``/``gru_sequence`` where oneDNN does not run
(float64, a GPU backend, oneDNN off or refusing), with the same inputs, outputs and
gradients as ``dnnl_rnn.py``.

Why a second implementation: the fused ops must compute on every backend and dtype they
are given (the op harness checks them in float64 against central differences), while the
layers only emit them where oneDNN runs them (elsewhere a layer's own step loop is at
least as fast as this loop). The forward saves what its backward reads in the workspace,
a uint8 array (viewed as the dtype): the activated gates of every step, and the LSTM's
cell states or the reset-after GRU's recurrent candidate term.

Conventions (Keras's): ``x`` (N, T, C); kernels (C, G*H) and (H, G*H) with gates LSTM
i, f, c, o and GRU z, r, h; ``y[:, t]`` is the output at input position ``t`` (with
``reverse`` time runs from T-1 down to 0, as oneDNN's right-to-left direction).
"""
from __future__ import annotations

# cell -> (gates, extra per-step columns in the workspace, in units of H)
_LAYOUT = {"lstm": (4, 1), "gru": (3, 0), "lbr_gru": (3, 1)}


def workspace_bytes(cell, dtype_size, x_shape, units) -> int:
    n, t, _ = x_shape
    gates, extra = _LAYOUT[cell]
    return t * n * (gates + extra) * units * dtype_size


def _views(ws, cell, dtype, n, t, h):
    gates, extra = _LAYOUT[cell]
    flat = ws[:t * n * (gates + extra) * h * dtype.itemsize].view(dtype)
    g = flat[:t * n * gates * h].reshape(t, n, gates * h)
    e = flat[t * n * gates * h:].reshape(t, n, h) if extra else None
    return g, e


def _order(t, reverse):
    return list(range(t - 1, -1, -1)) if reverse else list(range(t))


def _sigmoid(xp, a):
    # 1 / (1 + exp(-a)) without overflow warnings for large negative a
    return xp.exp(-xp.logaddexp(0, -a))


def forward(backend, cell, x, h0, c0, kernel, recurrent_kernel, bias, reverse=False,
            out=None):
    """``(y, h_T, [c_T,] workspace)`` of the whole sequence."""
    xp = backend.xp
    n, t, c = x.shape
    h = recurrent_kernel.shape[0]
    dtype = x.dtype
    nbytes = workspace_bytes(cell, dtype.itemsize, x.shape, h)
    outs = list(out) if out is not None else [None] * (4 if cell == "lstm" else 3)
    ws = outs[-1] if outs[-1] is not None else xp.empty((nbytes,), "uint8")
    y = outs[0] if outs[0] is not None else xp.empty((n, t, h), dtype)
    gates, extra = _views(ws, cell, dtype, n, t, h)
    bias_in = bias if bias is None or cell != "lbr_gru" else bias[0]
    xw = (x.reshape(-1, c) @ kernel).reshape(n, t, -1)
    if bias_in is not None:
        xw += bias_in
    h_prev, c_prev = h0, c0
    for s in _order(t, reverse):
        g = gates[s]
        if cell == "lstm":
            xp.add(xw[:, s], h_prev @ recurrent_kernel, out=g)
            g[:, :2 * h] = _sigmoid(xp, g[:, :2 * h])
            g[:, 3 * h:] = _sigmoid(xp, g[:, 3 * h:])
            g[:, 2 * h:3 * h] = xp.tanh(g[:, 2 * h:3 * h])
            i, f, cc, o = (g[:, k * h:(k + 1) * h] for k in range(4))
            c_prev = extra[s] = f * c_prev + i * cc
            h_prev = o * xp.tanh(c_prev)
        else:
            h_prev = _gru_step(xp, cell, xw[:, s], h_prev, recurrent_kernel, bias, g,
                               None if extra is None else extra[s], h)
        y[:, s] = h_prev
    results = [y, h_prev.copy()] + ([c_prev.copy()] if cell == "lstm" else []) + [ws]
    return _into(results, outs)


def _gru_step(xp, cell, xw, h_prev, u, bias, g, rec_h, h):
    """One GRU step; fills ``g`` with (z, r, hh) and ``rec_h`` with h U_h + b'_h."""
    if cell == "lbr_gru":
        hu = h_prev @ u
        if bias is not None:
            hu += bias[1]
        g[:, :2 * h] = _sigmoid(xp, xw[:, :2 * h] + hu[:, :2 * h])
        rec_h[...] = hu[:, 2 * h:]
        g[:, 2 * h:] = xp.tanh(xw[:, 2 * h:] + g[:, h:2 * h] * rec_h)
    else:
        g[:, :2 * h] = _sigmoid(xp, xw[:, :2 * h] + h_prev @ u[:, :2 * h])
        g[:, 2 * h:] = xp.tanh(xw[:, 2 * h:] + (g[:, h:2 * h] * h_prev) @ u[:, 2 * h:])
    z, hh = g[:, :h], g[:, 2 * h:]
    return z * h_prev + (1 - z) * hh


def backward(backend, cell, x, h0, c0, kernel, recurrent_kernel, bias, y, h_t, c_t, ws,
             dy, dh_t, dc_t, reverse=False, out=None):
    """``(dx, dh0, [dc0,] dkernel, drecurrent_kernel[, dbias])`` from the forward's
    outputs and workspace (an output gradient given as None is zero)."""
    xp = backend.xp
    n, t, c = x.shape
    h = recurrent_kernel.shape[0]
    dtype = x.dtype
    dy = xp.zeros((n, t, h), dtype) if dy is None else dy
    dh_t = xp.zeros((n, h), dtype) if dh_t is None else dh_t
    dc_t = xp.zeros((n, h), dtype) if dc_t is None and cell == "lstm" else dc_t
    gates, extra = _views(ws, cell, dtype, n, t, h)
    u = recurrent_kernel
    dxw = xp.empty(gates.shape, dtype)                                 # (T, N, G*H)
    du = xp.zeros_like(u)
    db_rec = xp.zeros((3 * h,), dtype) if cell == "lbr_gru" else None
    dh_next = xp.array(dh_t, dtype=dtype)
    dc_next = xp.array(dc_t, dtype=dtype) if cell == "lstm" else None
    order = _order(t, reverse)
    for k in range(t - 1, -1, -1):
        s = order[k]
        h_prev = y[:, order[k - 1]] if k else h0
        g, da = gates[s], dxw[s]
        dh = dy[:, s] + dh_next
        if cell == "lstm":
            i, f, cc, o = (g[:, j * h:(j + 1) * h] for j in range(4))
            c_prev = extra[order[k - 1]] if k else c0
            tc = xp.tanh(extra[s])
            dc = dc_next + dh * o * (1 - tc * tc)
            da[:, :h] = dc * cc * i * (1 - i)
            da[:, h:2 * h] = dc * c_prev * f * (1 - f)
            da[:, 2 * h:3 * h] = dc * i * (1 - cc * cc)
            da[:, 3 * h:] = dh * tc * o * (1 - o)
            dc_next = dc * f
            du += h_prev.T @ da
            dh_next = da @ u.T
            continue
        z, r, hh = g[:, :h], g[:, h:2 * h], g[:, 2 * h:]
        da_h = dh * (1 - z) * (1 - hh * hh)
        dh_prev = dh * z
        da[:, :h] = dh * (h_prev - hh) * z * (1 - z)
        da[:, 2 * h:] = da_h
        if cell == "lbr_gru":
            da[:, h:2 * h] = da_h * extra[s] * r * (1 - r)
            dhu = xp.concatenate([da[:, :2 * h], da_h * r], axis=1)
            du += h_prev.T @ dhu
            db_rec += dhu.sum(axis=0)
            dh_next = dh_prev + dhu @ u.T
        else:
            d_rh = da_h @ u[:, 2 * h:].T
            da[:, h:2 * h] = d_rh * h_prev * r * (1 - r)
            du[:, 2 * h:] += (r * h_prev).T @ da_h
            du[:, :2 * h] += h_prev.T @ da[:, :2 * h]
            dh_next = dh_prev + d_rh * r + da[:, :2 * h] @ u[:, :2 * h].T
    flat = dxw.transpose(1, 0, 2).reshape(n * t, -1)                  # (N*T, G*H)
    dx = (flat @ kernel.T).reshape(n, t, c)
    dkernel = x.reshape(-1, c).T @ flat
    results = [dx, dh_next] + ([dc_next] if cell == "lstm" else []) + [dkernel, du]
    if bias is not None:
        db_in = flat.sum(axis=0)
        results.append(xp.stack([db_in, db_rec]) if cell == "lbr_gru" else db_in)
    outs = list(out) if out is not None else [None] * len(results)
    return _into(results, outs)


def _into(results, outs):
    final = []
    for r, o in zip(results, outs):
        if o is not None and o is not r:
            o[...] = r
            r = o
        final.append(r)
    return tuple(final)
