"""Framing and short-time Fourier transforms, as Keras 3 computes them:
``extract_sequences``, ``stft`` and ``istft`` (compositions of gathers, pads and the FFT).

``stft`` frames the signal (reflect-padded by ``fft_length // 2`` on each side when
``center``), multiplies each frame by the window (zero-padded to ``fft_length``, centred)
and returns ``rfft`` of the frames as (real, imag) of shape (..., frames, fft_length//2+1).
``istft`` inverts it: ``irfft`` of each frame times the window, overlap-added and divided by
the overlap-added squared window (scipy's ``istft``, which Keras's numpy backend calls).
"""
from __future__ import annotations

import math

from ..errors import DTypeError, ShapeError, describe_shape
from .reshaping import reshape, stack
from .core import as_tensor, convert_to_tensor, ones_like
from .fft import complex_pair, irfft, rfft
from .indexing import take
from .math import add, divide, multiply
from .where_clip import where
from .compare import greater
from .replicate import pad
from .merge_axes import merge_axes
from .size_checks import check_size

__all__ = ["extract_sequences", "stft", "istft"]


def _positive(op: str, arg: str, value) -> int:
    if not isinstance(value, int) or isinstance(value, bool) or value < 1:
        raise ValueError(f"{op}: argument `{arg}` must be a positive integer; received "
                         f"{value!r}")
    return value


def extract_sequences(x, sequence_length, sequence_stride):
    """Frames of ``sequence_length`` samples every ``sequence_stride`` samples along the
    last axis: shape (..., num_frames, sequence_length).

    Args:
        x: Input tensor (or anything ``convert_to_tensor`` accepts).
        sequence_length: The length of each frame.
        sequence_stride: The step between frames.

    Returns:
        Frames of shape (..., num_frames, sequence_length).
    """
    op = "extract_sequences"
    x = as_tensor(op, x)
    length = _positive(op, "sequence_length", sequence_length)
    stride = _positive(op, "sequence_stride", sequence_stride)
    if x.ndim < 1:
        raise ShapeError(f"{op}: argument 'x' must have at least one axis (the samples); "
                         f"received shape {describe_shape(x.shape)}")
    if x.shape[-1] is None:
        # an unknown number of samples: sample k of every frame is a strided slice that
        # stops where the last whole frame ends; no frames when x is shorter than one
        return stack([x[..., k:(k + 1 - length) or None:stride] for k in range(length)],
                     axis=-1)
    frames = max((x.shape[-1] - length) // stride + 1, 0)     # Keras: none when too short
    index = [[f * stride + k for k in range(length)] for f in range(frames)]
    index = convert_to_tensor(index, dtype="int32") if frames else \
        reshape(convert_to_tensor([], dtype="int32"), (0, length))
    return take(x, index, axis=x.ndim - 1)


def _window_values(op: str, window, sequence_length: int, fft_length: int):
    """The window zero-padded (centred) to ``fft_length``: Python floats for a named
    window or None (ones over all ``fft_length`` samples), else a tensor."""
    if window is None:
        return [1.0] * fft_length        # Keras: ones over the whole fft_length
    if isinstance(window, str):
        if window not in ("hann", "hamming"):
            raise ValueError(f"{op}: If a string is passed to `window`, it must be one of "
                             f"'hann', 'hamming'; received {window!r}")
        a = 0.5 if window == "hann" else 0.54
        # scipy's get_window: the periodic (DFT-even) window
        values = [a - (1 - a) * math.cos(2 * math.pi * i / sequence_length)
                  for i in range(sequence_length)]
    else:
        values = None
    left = (fft_length - sequence_length) // 2
    right = fft_length - sequence_length - left
    if values is not None:
        return [0.0] * left + values + [0.0] * right
    win = as_tensor(op, window)
    if win.ndim != 1 or win.shape[0] != sequence_length:
        raise ShapeError(f"{op}: The shape of `window` must be equal to [sequence_length] = "
                         f"({sequence_length},); received shape {describe_shape(win.shape)}")
    return pad(win, [(left, right)])


def _check_lengths(op, sequence_length, sequence_stride, fft_length):
    _positive(op, "sequence_length", sequence_length)
    _positive(op, "sequence_stride", sequence_stride)
    _positive(op, "fft_length", fft_length)
    if fft_length < sequence_length:
        raise ValueError(f"{op}: `fft_length` must equal or be larger than `sequence_length`; "
                         f"received sequence_length={sequence_length}, "
                         f"fft_length={fft_length}")


def stft(x, sequence_length, sequence_stride, fft_length, window="hann", center=True):
    """The short-time Fourier transform of a real signal along its last axis: (real, imag),
    each of shape (..., num_frames, fft_length // 2 + 1).

    Args:
        x: A real signal, samples on the last axis.
        sequence_length: The length of each frame (the window length).
        sequence_stride: The step between frames.
        fft_length: The FFT size; at least ``sequence_length``.
        window: "hann" (the default), "hamming", a 1-D tensor of length ``sequence_length``,
            or None (no window).
        center: Whether the signal is padded so frame t is centred at ``t *
            sequence_stride``. Defaults to True.

    Returns:
        A pair ``(real, imag)``, each (..., num_frames, fft_length // 2 + 1).
    """
    op = "stft"
    x = as_tensor(op, x)
    if x.dtype not in ("float32", "float64"):
        raise DTypeError(f"{op}: argument 'x' must be `float32` or `float64`; received "
                         f"{x.dtype}")
    _check_lengths(op, sequence_length, sequence_stride, fft_length)
    if center:
        half = fft_length // 2
        x = pad(x, [(0, 0)] * (x.ndim - 1) + [(half, half)], mode="reflect")
    win = _window_values(op, window, sequence_length, fft_length)
    frames = extract_sequences(x, fft_length, sequence_stride)
    frames = multiply(frames, convert_to_tensor(win, dtype=x.dtype)
                      if isinstance(win, list) else win)
    return rfft(frames, fft_length)


def overlap_add(frames, stride: int):
    """Sum of frames (..., num_frames, length) placed every ``stride`` samples:
    (..., (num_frames - 1) * stride + length). The adjoint of ``extract_sequences``.
    Any of the sizes but ``length`` may be unknown."""
    count, length = frames.shape[-2], frames.shape[-1]
    lead = tuple(frames.shape[:-2])
    chunks = -(-length // stride)
    flat = lead + ((count * stride) if count is not None else -1,)
    frames = pad(frames, [(0, 0)] * (len(lead) + 1) + [(0, chunks * stride - length)])
    result = None
    for r in range(chunks):
        # chunk r of every frame, laid end to end, lands r * stride samples later
        piece = frames[..., r * stride:(r + 1) * stride]
        # two unknown sizes (frames and a leading one): merged with the sizes when run
        piece = merge_axes(piece, -2) if count is None and None in lead else \
            reshape(piece, flat)
        placed = pad(piece, [(0, 0)] * len(lead) + [(r * stride, (chunks - 1 - r) * stride)])
        result = placed if result is None else add(result, placed)
    excess = chunks * stride - length
    return result[..., :-excess] if excess else result


def istft(x, sequence_length, sequence_stride, fft_length, length=None, window="hann",
          center=True):
    """The inverse of ``stft`` from ``x = (real, imag)`` of shape (..., frames, bins):
    the real signal, ``length`` samples long when given.

    Args:
        x: A pair ``(real, imag)`` of float tensors of one shape. Shape (..., frames, bins).
        sequence_length: The length of each frame (the window length).
        sequence_stride: The step between frames.
        fft_length: The FFT size; at least ``sequence_length``.
        length: Optional length to crop or pad the signal to.
        window: "hann" (the default), "hamming", a 1-D tensor of length ``sequence_length``,
            or None (no window).
        center: Whether the signal is padded so frame t is centred at ``t *
            sequence_stride``. Defaults to True.

    Returns:
        The real signal.
    """
    op = "istft"
    real, imag = complex_pair(op, x, 2)
    _check_lengths(op, sequence_length, sequence_stride, fft_length)
    win = _window_values(op, window, sequence_length, fft_length)
    win_t = convert_to_tensor(win, dtype=real.dtype) if isinstance(win, list) else win
    frames = irfft((real, imag), fft_length)
    signal = overlap_add(multiply(frames, win_t), sequence_stride)
    squared = multiply(win_t, win_t)
    # ones of shape (num_frames, 1), the number of frames possibly unknown
    per_frame = ones_like(real[(0,) * (real.ndim - 2)][:, :1])
    norm = overlap_add(multiply(squared, per_frame), sequence_stride)
    safe = where(greater(norm, 1e-10), norm, convert_to_tensor(1.0, dtype=real.dtype))
    signal = divide(signal, safe)
    if window is None:
        # Keras's numpy backend divides by the stride where a window's sum would cancel
        # scipy's scaling by ``fft_length``
        signal = multiply(signal, fft_length / sequence_stride)
    start = fft_length // 2 if center else 0
    if length is not None:
        cut = signal[..., start:start + length]
        if cut.shape[-1] != length:     # too few samples: refused now, or when run if the
            cut = check_size(cut, -1, length, f"istft: the signal has {{size}} samples after "
                             f"{start}, fewer than length={length}", exact=True)
        return cut
    if center and start:
        return signal[..., start:-start]
    return signal
