"""``MelSpectrogram``: power spectrograms on the mel scale, in decibels (Keras 3)."""
from __future__ import annotations

import math

from ... import ops
from ...initializers.stft import STFT, window_values
from ..layer import Layer

_MEL_BREAK_HZ = 700.0
_MEL_HIGH_Q = 1127.0


def hertz_to_mel(hertz: float) -> float:
    return _MEL_HIGH_Q * math.log(1.0 + hertz / _MEL_BREAK_HZ)


def mel_weight_matrix(num_mel_bins, num_spectrogram_bins, sampling_rate, lower_hz,
                      upper_hz) -> list:
    """Keras's (HTK) ``[num_spectrogram_bins, num_mel_bins]`` triangular filters, peak 1,
    the DC bin zeroed (as rows of Python floats)."""
    nyquist = sampling_rate / 2.0
    step = nyquist / (num_spectrogram_bins - 1)
    low, high = hertz_to_mel(lower_hz), hertz_to_mel(upper_hz)
    edges = [low + (high - low) * i / (num_mel_bins + 1) for i in range(num_mel_bins + 2)]
    rows = [[0.0] * num_mel_bins]
    for b in range(1, num_spectrogram_bins):
        mel = hertz_to_mel(b * step)
        rows.append([max(0.0, min((mel - edges[m]) / (edges[m + 1] - edges[m]),
                                  (edges[m + 2] - mel) / (edges[m + 2] - edges[m + 1])))
                     for m in range(num_mel_bins)])
    return rows


def _reflect(x, width: int):
    """numpy's 'reflect' padding of the last axis (slices, so an unknown batch is fine)."""
    if width == 0:
        return x
    left = ops.flip(x[:, 1:width + 1], axis=1)
    right = ops.flip(x[:, -width - 1:-1], axis=1)
    return ops.concatenate([left, x, right], axis=1)


class MelSpectrogram(Layer):
    """Keras 3's ``MelSpectrogram`` of ``(batch, samples)`` (or ``(samples,)``) signals:
    ``(batch, num_mel_bins, frames)``.

    The signal is reflect-padded by ``fft_length // 2`` at both ends (centred frames);
    frames of ``fft_length`` samples every ``sequence_stride`` are multiplied by a periodic
    ``window`` of ``sequence_length`` samples centred in the frame and Fourier transformed
    (``fft_length // 2 + 1`` bins); ``|X| ** mag_exp`` goes through the HTK mel filters
    between ``min_freq`` and ``max_freq`` (default ``sampling_rate / 2``); with
    ``power_to_db`` the result is ``10 log10(max(S, min_power) / max(|ref_power|,
    min_power))`` clipped below at ``max - top_db`` (the maximum over the whole batch, as
    Keras). No weights: the DFT kernels and filters are constants.

    Args:
        fft_length: Frame size of the FFT, in samples.
        sequence_stride: Samples between the starts of successive frames.
        sequence_length: Window length in samples; None means ``fft_length``.
        window: Window function: 'hann', 'hamming', an array of ``sequence_length`` values, or
            None.
        sampling_rate: Sampling rate of the signal, in Hz.
        num_mel_bins: Number of mel bands.
        min_freq: Lowest frequency of the mel filters, in Hz.
        max_freq: Highest frequency of the mel filters, in Hz; None: ``sampling_rate / 2``.
        power_to_db: Whether to convert the power to decibels.
        top_db: With ``power_to_db``, values more than ``top_db`` below the maximum are clipped.
        mag_exp: Exponent applied to the magnitude (2: power spectrum).
        min_power: Smallest power before the log (avoids log of zero).
        ref_power: Reference power of 0 dB.
    """

    def __init__(self, fft_length=2048, sequence_stride=512, sequence_length=None,
                 window="hann", sampling_rate=16000, num_mel_bins=128, min_freq=20.0,
                 max_freq=None, power_to_db=True, top_db=80.0, mag_exp=2.0, min_power=1e-10,
                 ref_power=1.0, **kwargs):
        super().__init__(**kwargs)
        name = self.name
        for arg, value in (("fft_length", fft_length), ("sequence_stride", sequence_stride),
                           ("num_mel_bins", num_mel_bins)):
            if isinstance(value, bool) or not isinstance(value, int) or value <= 0:
                raise ValueError(f"{name}: argument '{arg}' must be a positive int; "
                                 f"received {value!r}")
        self.fft_length, self.sequence_stride = fft_length, sequence_stride
        self.sequence_length = sequence_length or fft_length
        if self.fft_length < self.sequence_length:
            raise ValueError(f"{name}: argument `fft_length` must be greater than or equal "
                             f"to `sequence_length`; received sequence_length="
                             f"{self.sequence_length}, fft_length={fft_length}")
        if isinstance(window, str) and window not in ("hann", "hamming"):
            raise ValueError(f"{name}: argument 'window' must be 'hann', 'hamming', None or "
                             f"an array of sequence_length values; received {window!r}")
        self.window, self.sampling_rate, self.num_mel_bins = window, sampling_rate, num_mel_bins
        self.min_freq = min_freq
        self.max_freq = max_freq or int(sampling_rate / 2)
        self.power_to_db, self.top_db, self.mag_exp = power_to_db, top_db, mag_exp
        self.min_power, self.ref_power = min_power, ref_power
        self._constants = None

    def _kernels(self):
        """(real DFT kernel, imaginary DFT kernel, mel filters), float64, made once."""
        if self._constants is None:
            length, fft = self.sequence_length, self.fft_length
            bins = fft // 2 + 1
            if self.window is None:
                window = ops.ones((length,), "float64")
            elif isinstance(self.window, str):
                window = window_values(self.window, length, periodic=True)
            else:
                window = ops.cast(ops.convert_to_tensor(self.window), "float64")
            left = (fft - length) // 2
            window = ops.reshape(ops.pad(window, ((left, fft - length - left),)), (fft, 1, 1))
            real, imag = (ops.multiply(STFT(side, None, None)((fft, 1, bins), "float64"),
                                       window) for side in ("real", "imag"))
            mel = ops.convert_to_tensor(mel_weight_matrix(
                self.num_mel_bins, bins, self.sampling_rate, self.min_freq, self.max_freq))
            self._constants = (real, imag, ops.cast(mel, "float64"))
        return self._constants

    def call(self, inputs):
        dtype = self.compute_dtype if self.compute_dtype in ("float32", "float64") \
            else "float32"
        x = ops.cast(inputs, dtype)
        single = len(x.shape) == 1
        if single:
            x = ops.expand_dims(x, 0)
        half = self.fft_length // 2
        x = _reflect(x, half)
        x = ops.expand_dims(x, -1)                                   # (batch, samples, 1)
        real, imag, mel = (ops.cast(k, dtype) for k in self._kernels())
        re = ops.conv1d(x, real, strides=self.sequence_stride)       # (batch, frames, bins)
        im = ops.conv1d(x, imag, strides=self.sequence_stride)
        spec = ops.power(ops.sqrt(ops.add(ops.square(re), ops.square(im))), self.mag_exp)
        out = ops.tensordot(spec, mel, axes=1)                       # (batch, frames, mels)
        if self.power_to_db:
            out = self._decibels(out)
        out = ops.swapaxes(out, -1, -2)
        if single:
            out = out[0]
        return ops.cast(out, self.compute_dtype)

    def _decibels(self, power):
        db = ops.multiply(ops.log10(ops.maximum(power, self.min_power)), 10.0)
        db = ops.subtract(db, 10.0 * math.log10(max(abs(self.ref_power), self.min_power)))
        return ops.maximum(db, ops.subtract(ops.max(db), self.top_db))

    def compute_output_shape(self, input_shape):
        samples = input_shape[-1]
        frames = None if samples is None else \
            1 + (samples + 2 * (self.fft_length // 2) - self.fft_length) // self.sequence_stride
        if len(input_shape) == 1:
            return (self.num_mel_bins, frames)
        return (input_shape[0], self.num_mel_bins, frames)

    def get_config(self) -> dict:
        window = self.window
        if window is not None and not isinstance(window, str):
            window = [float(v) for v in ops.convert_to_numpy(ops.convert_to_tensor(window))]
        return {**super().get_config(), "fft_length": self.fft_length,
                "sequence_stride": self.sequence_stride,
                "sequence_length": self.sequence_length, "window": window,
                "sampling_rate": self.sampling_rate, "num_mel_bins": self.num_mel_bins,
                "min_freq": self.min_freq, "max_freq": self.max_freq,
                "power_to_db": self.power_to_db, "top_db": self.top_db,
                "mag_exp": self.mag_exp, "min_power": self.min_power,
                "ref_power": self.ref_power}
