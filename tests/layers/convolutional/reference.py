"""Slow, obvious numpy references for the convolution layer tests (NHWC, explicit pads).

The 'same' pads are *not* computed here: each test writes TensorFlow's pads by hand, so
the convention (odd padding element after the input) is checked, not re-derived.
"""
import numpy as np


def conv2d(x, k, strides=(1, 1), pads=((0, 0), (0, 0)), dilation=(1, 1), groups=1):
    """Cross-correlation of x (n, h, w, c) with k (kh, kw, c // groups, f)."""
    x = np.pad(x.astype(np.float64), ((0, 0), *pads, (0, 0)))
    kh, kw, cg, f = k.shape
    (sh, sw), (dh, dw) = strides, dilation
    oh = (x.shape[1] - (kh - 1) * dh - 1) // sh + 1
    ow = (x.shape[2] - (kw - 1) * dw - 1) // sw + 1
    fg = f // groups
    y = np.zeros((x.shape[0], oh, ow, f))
    for g in range(groups):
        xs, ks = x[..., g * cg:(g + 1) * cg], k[..., g * fg:(g + 1) * fg]
        for i in range(kh):
            for j in range(kw):
                patch = xs[:, i * dh:i * dh + (oh - 1) * sh + 1:sh,
                           j * dw:j * dw + (ow - 1) * sw + 1:sw]
                y[..., g * fg:(g + 1) * fg] += patch @ ks[i, j]
    return y


def conv1d(x, k, stride=1, pads=(0, 0), dilation=1, groups=1):
    y = conv2d(x[:, None], k[None], (1, stride), ((0, 0), pads), (1, dilation), groups)
    return y[:, 0]


def depthwise_conv2d(x, k, strides=(1, 1), pads=((0, 0), (0, 0)), dilation=(1, 1)):
    """Output channel c * dm + m: input channel c with k[:, :, c, m]."""
    c, dm = k.shape[2:]
    outs = [conv2d(x[..., ci:ci + 1], k[:, :, ci:ci + 1, m:m + 1], strides, pads, dilation)
            for ci in range(c) for m in range(dm)]
    return np.concatenate(outs, axis=-1)


def conv2d_transpose_scatter(x, k, strides, out_hw, crop_before=(0, 0), dilation=(1, 1)):
    """Each input pixel adds ``x[p, q] * k`` into the output at (p*s + i*d, q*s + j*d);
    the full result is then cut to ``out_hw`` starting at ``crop_before`` (zeros where the
    output reaches past the full result). ``k`` is (kh, kw, filters, in)."""
    n, h, w, _ = x.shape
    kh, kw, f, _ = k.shape
    (sh, sw), (dh, dw) = strides, dilation
    full = np.zeros((n, (h - 1) * sh + (kh - 1) * dh + 1 + out_hw[0],
                     (w - 1) * sw + (kw - 1) * dw + 1 + out_hw[1], f))
    for p in range(h):
        for q in range(w):
            for i in range(kh):
                for j in range(kw):
                    full[:, p * sh + i * dh, q * sw + j * dw] += x[:, p, q] @ k[i, j].T
    t, l = crop_before
    return full[:, t:t + out_hw[0], l:l + out_hw[1]]
