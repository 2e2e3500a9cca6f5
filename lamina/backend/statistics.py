"""Kernels for cumulative sums and products, quantiles and counting (histogram, bincount,
digitize), written against an array module ``xp`` (numpy or cupy).

Every kernel keeps the dtype Lamina's op promised: numpy's cumsum of int32 would give the
platform's int64, its quantile of float32 can come back as float64, and it warns on an
all-NaN slice where Keras silently gives NaN.
"""
from __future__ import annotations

import warnings


def cumulative(xp, fn: str, x, axis: int):
    """``cumsum`` or ``cumprod`` along ``axis``, in ``x``'s dtype."""
    return getattr(xp, fn)(x, axis=axis, dtype=x.dtype)


def quantile(backend, x, q, axis, method: str, keepdims: bool, ignore_nan: bool):
    """numpy's (nan)quantile of ``x`` at ``q`` (a float or a tuple of floats) over ``axis``
    (None or a tuple), in ``x``'s dtype; an all-NaN slice gives NaN without a warning.

    Where ``backend``'s array module lacks the function or the method (older CuPy has no
    ``nanquantile`` nor "inverted_cdf"; a backend of host arrays is numpy itself), the
    quantile is computed on the host by numpy and copied back."""
    xp = backend.xp
    name = "nanquantile" if ignore_nan else "quantile"
    fn = getattr(xp, name, None)
    on_host = fn is None or (method == "inverted_cdf" and not backend.host_arrays)
    data = x
    if on_host:
        import numpy
        fn, data = getattr(numpy, name), backend.to_host(x)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        result = fn(data, list(q) if isinstance(q, tuple) else q, axis=axis, method=method,
                    keepdims=keepdims)
    return xp.asarray(result, dtype=x.dtype)


def histogram(xp, x, bins: int, lo, hi):
    """Counts (int32) of the 1-D ``x`` in ``bins`` equal bins over ``[lo, hi]`` (the last
    bin closed), as numpy's histogram."""
    counts, _ = xp.histogram(x, bins=bins, range=(float(lo), float(hi)))
    return counts.astype("int32")


def bincount(xp, x, weights, length: int, dtype: str):
    """Occurrences of each value ``0..length-1`` in the non-negative integers ``x`` (1-D,
    or 2-D: one count per row), weighted by ``weights`` when given, in ``dtype``."""
    if x.ndim == 1:
        out = xp.bincount(x, weights=weights, minlength=length)
        return out[:length].astype(dtype)
    rows = xp.arange(x.shape[0])[:, None] * length
    flat = (x + rows).reshape(-1)
    w = None if weights is None else weights.reshape(-1)
    out = xp.bincount(flat, weights=w, minlength=x.shape[0] * length)
    return out.reshape(x.shape[0], length).astype(dtype)


def digitize(xp, x, bins):
    """The index (int32) of the bin of ``bins`` (monotonic) each element of ``x`` is in."""
    return xp.digitize(x, bins).astype("int32")
