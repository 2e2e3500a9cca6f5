"""Fourier transforms with Keras's conventions: complex values travel as (real, imag)
pairs of float tensors. ``fft``/``ifft`` act on the last axis, ``fft2``/``ifft2`` on the last
two; ``rfft``/``irfft`` are compositions (zero imaginary part, Hermitian extension).

The discrete Fourier transform is linear, so its gradient is its adjoint: ``n * ifft`` for
``fft`` and ``fft / n`` for ``ifft`` (``n`` the number of points transformed).
"""
from __future__ import annotations

from ..errors import DTypeError, ShapeError, describe_shape
from .reshaping import concatenate
from .core import as_tensor, zeros_like
from .math import multiply, negative
from ..core.op import Op, Spec, register_op
from .replicate import flip, pad

__all__ = ["fft", "fft2", "ifft2", "rfft", "irfft"]

_ADJOINT = {"fft": "ifft", "ifft": "fft", "fft2": "ifft2", "ifft2": "fft2"}


@register_op
class FFT(Op):
    name = "fft"

    def output_spec(self, real, imag, kind):
        spec = Spec(tuple(real.shape), real.dtype)
        return spec, spec

    def forward(self, backend, real, imag, out=None, kind="fft"):
        return backend.fft(real, imag, kind)

    def gradient(self, ctx, g_real, g_imag):
        kind = ctx.attrs["kind"]
        shape = ctx.inputs[0].shape
        n = shape[-1] * (shape[-2] if kind.endswith("2") else 1)
        scale = float(n) if kind.startswith("f") else 1.0 / n
        real, imag = FFT(g_real, g_imag, kind=_ADJOINT[kind])
        return multiply(real, scale), multiply(imag, scale)


def complex_pair(op: str, x, min_rank: int = 1):
    """Check Keras's (real, imag) argument: two float tensors of one shape."""
    if not isinstance(x, (tuple, list)) or len(x) != 2:
        raise ValueError(f"{op}: argument 'x' must be a tuple of two tensors, the real and "
                         f"imaginary parts; received {type(x).__name__}")
    real, imag = as_tensor(op, x[0]), as_tensor(op, x[1])
    if tuple(real.shape) != tuple(imag.shape):
        raise ShapeError(f"{op}: the real and imaginary parts of 'x' must have the same "
                         f"shape; received {describe_shape(real.shape)} and "
                         f"{describe_shape(imag.shape)}")
    for part in (real, imag):
        if not part.dtype.startswith("float"):
            raise DTypeError(f"{op}: the real and imaginary parts of 'x' must be float "
                             f"tensors; received {real.dtype} and {imag.dtype}")
    if real.dtype != imag.dtype:
        raise DTypeError(f"{op}: the real and imaginary parts of 'x' must have one dtype; "
                         f"received {real.dtype} and {imag.dtype}")
    if real.ndim < min_rank:
        raise ShapeError(f"{op}: argument 'x' must have rank >= {min_rank}; received shape "
                         f"{describe_shape(real.shape)}")
    return real, imag


def fft(x):
    """The discrete Fourier transform along the last axis of ``x = (real, imag)``.

    Args:
        x: A pair ``(real, imag)`` of float tensors of one shape.

    Returns:
        A pair ``(real, imag)`` of ``x``'s shape.
    """
    return FFT(*complex_pair("fft", x), kind="fft")


def ifft(x):
    """The inverse of ``fft`` (not a Keras name; ``irfft`` and ``istft`` use it)."""
    return FFT(*complex_pair("ifft", x), kind="ifft")


def fft2(x):
    """The 2-D discrete Fourier transform over the last two axes of ``x = (real, imag)``.

    Args:
        x: A pair ``(real, imag)`` of float tensors of one shape.

    Returns:
        A pair ``(real, imag)`` of ``x``'s shape.
    """
    return FFT(*complex_pair("fft2", x, 2), kind="fft2")


def ifft2(x):
    """The inverse of ``fft2``.

    Args:
        x: A pair ``(real, imag)`` of float tensors of one shape.

    Returns:
        A pair ``(real, imag)`` of ``x``'s shape.
    """
    return FFT(*complex_pair("ifft2", x, 2), kind="ifft2")


def fit_last_axis(x, n: int):
    """``x`` cropped or zero-padded on its last axis to length ``n``."""
    size = x.shape[-1]
    if size > n:
        return x[..., :n]
    if size < n:
        return pad(x, [(0, 0)] * (x.ndim - 1) + [(0, n - size)])
    return x


def _length(op: str, fft_length, default: int) -> int:
    if fft_length is None:
        return default
    if not isinstance(fft_length, int) or isinstance(fft_length, bool) or fft_length < 1:
        raise ValueError(f"{op}: argument 'fft_length' must be a positive int; received "
                         f"{fft_length!r}")
    return fft_length


def rfft(x, fft_length=None):
    """The Fourier transform of a real ``x`` along its last axis, the non-negative
    frequencies only: ``(real, imag)`` with ``fft_length // 2 + 1`` entries (``x`` is cropped
    or zero-padded to ``fft_length`` first).

    Args:
        x: A real tensor.
        fft_length: The transform size; None means the length of the last axis.

    Returns:
        A pair ``(real, imag)`` with ``fft_length // 2 + 1`` entries on the last axis.
    """
    x = as_tensor("rfft", x)
    if not x.dtype.startswith("float") or x.ndim < 1:
        raise DTypeError(f"rfft: argument 'x' must be a float tensor of rank >= 1; received "
                         f"{x.dtype} of shape {describe_shape(x.shape)}")
    n = _length("rfft", fft_length, x.shape[-1])
    x = fit_last_axis(x, n)
    real, imag = FFT(x, zeros_like(x), kind="fft")
    bins = n // 2 + 1
    return real[..., :bins], imag[..., :bins]


def irfft(x, fft_length=None):
    """The inverse of ``rfft``: a real signal of ``fft_length`` samples (default
    ``2 * (bins - 1)``) from the non-negative frequencies ``x = (real, imag)``.

    Args:
        x: A pair ``(real, imag)`` of float tensors of one shape.
        fft_length: The length of the output; None means ``2 * (bins - 1)``.

    Returns:
        A real tensor with ``fft_length`` samples on the last axis.
    """
    real, imag = complex_pair("irfft", x)
    n = _length("irfft", fft_length, 2 * (real.shape[-1] - 1))
    bins = n // 2 + 1
    real, imag = fit_last_axis(real, bins), fit_last_axis(imag, bins)
    # the negative frequencies are the conjugates of the positive ones, mirrored
    tail = n - bins
    if tail > 0:
        real = concatenate([real, flip(real[..., 1:tail + 1], axis=-1)], axis=-1)
        imag = concatenate([imag, negative(flip(imag[..., 1:tail + 1], axis=-1))], axis=-1)
    return FFT(real, imag, kind="ifft")[0]
