"""``STFTSpectrogram``: short-time Fourier transforms of signals, as a convolution with
fixed (trainable) DFT kernels."""
from __future__ import annotations

import math
import warnings

from ... import initializers, ops
from ...settings import epsilon
from ...dtypes import is_float
from ...errors import DTypeError
from ...initializers.stft import WINDOWS
from ..convolutional import conv_utils as cu
from ..input_spec import InputSpec
from ..layer import Layer

MODES = ("log", "magnitude", "psd", "real", "imag", "angle", "stft")


class STFTSpectrogram(Layer):
    """Keras 3's ``STFTSpectrogram`` over ``(batch, time, channels)`` signals
    (``(batch, channels, time)`` with ``channels_first``).

    Frames of ``frame_length`` samples every ``frame_step`` (default half a frame) are
    windowed and transformed to ``fft_length // 2 + 1`` frequency bins (``fft_length``
    defaults to the next power of two); ``mode`` picks the output: ``"real"``/``"imag"``
    parts, ``"magnitude"``, its ``"log"``, the power spectral density ``"psd"`` (inner
    bins counted twice), the phase ``"angle"`` or ``"stft"`` (real then imaginary bins).
    Output ``(batch, frames, channels * bins)`` (channel-major), or
    ``(batch, frames, bins, channels)`` with ``expand_dims``. Weights ``real_kernel`` and
    ``imag_kernel`` ``(frame_length, 1, bins)`` from :class:`~lamina.initializers.STFT`.

    Args:
        mode: 'log', 'magnitude', 'psd', 'real', 'imag', 'angle' or 'stft'.
        frame_length: Samples per frame (the window length).
        frame_step: Samples between frames; None: half a frame.
        fft_length: FFT size (at least ``frame_length``); None: the next power of two.
        window: Window function: a name such as 'hann' or 'hamming', an array of
            ``frame_length`` values, or None (rectangular).
        periodic: Whether the window is periodic rather than symmetric.
        scaling: 'density', 'spectrum' or None: the scaling of the kernels.
        padding: 'valid' or 'same' framing of the signal.
        expand_dims: Whether to give the output a separate channels axis: ``(batch, frames,
            bins, channels)``.
        data_format: 'channels_last' (inputs shaped ``(batch, ..., channels)``) or
            'channels_first' (``(batch, channels, ...)``); None uses
            ``keras.config.image_data_format()``.
    """

    def __init__(self, mode="log", frame_length=256, frame_step=None, fft_length=None,
                 window="hann", periodic=False, scaling="density", padding="valid",
                 expand_dims=False, data_format=None, **kwargs):
        super().__init__(**kwargs)
        name = self.name
        frame_length = cu.positive_int(name, "frame_length", frame_length)
        if frame_step is not None and not (isinstance(frame_step, int)
                                           and 1 <= frame_step <= frame_length):
            raise ValueError(f"{name}: argument 'frame_step' must be a positive int not "
                             f"greater than frame_length={frame_length}; received "
                             f"{frame_step!r}")
        if fft_length is not None and not (isinstance(fft_length, int)
                                           and fft_length >= frame_length):
            raise ValueError(f"{name}: argument 'fft_length' must be an int not less than "
                             f"frame_length={frame_length}; received {fft_length!r}")
        if fft_length is not None and fft_length & (fft_length - 1):
            warnings.warn(f"{name}: 'fft_length' is recommended to be a power of two; "
                          f"received {fft_length}", stacklevel=2)
        if mode not in MODES:
            raise ValueError(f"{name}: argument 'mode' must be one of {list(MODES)}; "
                             f"received {mode!r}")
        if mode == "angle" and not hasattr(ops, "arctan2"):
            raise ValueError(f"{name}: mode='angle' needs lamina.ops.arctan2, which this "
                             f"build lacks")
        if scaling not in (None, "density", "spectrum"):
            raise ValueError(f"{name}: argument 'scaling' must be None, 'density' or "
                             f"'spectrum'; received {scaling!r}")
        if padding not in ("valid", "same"):
            raise ValueError(f"{name}: argument 'padding' must be 'valid' or 'same'; "
                             f"received {padding!r}")
        if isinstance(window, str) and window not in WINDOWS:
            raise ValueError(f"{name}: argument 'window' must be None, an array or one of "
                             f"{list(WINDOWS)}; received {window!r}")
        self.mode, self.frame_length = mode, frame_length
        self.frame_step, self.fft_length = frame_step, fft_length
        self._frame_step = frame_step or frame_length // 2
        self._fft_length = fft_length or 2 ** int(math.ceil(math.log2(frame_length)))
        self.window, self.periodic, self.scaling = window, bool(periodic), scaling
        self.padding, self.expand_dims = padding, bool(expand_dims)
        self.data_format = cu.standardize_data_format(name, data_format)
        self.input_spec = InputSpec(ndim=3)

    def build(self, input_shape):
        shape = (self.frame_length, 1, self._fft_length // 2 + 1)
        for side in ("real", "imag"):
            if self.mode != {"real": "imag", "imag": "real"}.get(side):
                setattr(self, f"{side}_kernel", self.add_weight(
                    name=f"{side}_kernel", shape=shape,
                    initializer=initializers.STFT(side, self.window, self.scaling,
                                                  self.periodic)))

    def _frames(self, inputs, kernel):
        """(batch, channels, frames, bins): each channel's signal convolved with ``kernel``."""
        if self.data_format == "channels_last":
            inputs = ops.transpose(inputs, (0, 2, 1))
        channels, steps = inputs.shape[1], inputs.shape[2]
        signals = ops.reshape(inputs, (-1, steps, 1))
        out = ops.conv1d(signals, ops.cast(kernel, inputs.dtype), strides=self._frame_step,
                         padding=self.padding)
        return ops.reshape(out, (-1, channels, *out.shape[1:]))

    def _layout(self, x):
        """(batch, channels, frames, bins) -> the layer's output layout."""
        channels, frames, bins = x.shape[1:]
        if self.data_format == "channels_last":
            if self.expand_dims:
                return ops.transpose(x, (0, 2, 3, 1))
            return ops.reshape(ops.transpose(x, (0, 2, 1, 3)), (-1, frames, channels * bins))
        if self.expand_dims:
            return x
        return ops.reshape(ops.transpose(x, (0, 1, 3, 2)), (-1, channels * bins, frames))

    def call(self, inputs):
        if not is_float(inputs.dtype):
            raise DTypeError(f"{self.name}: the input must be float16, float32 or float64; "
                             f"received dtype {inputs.dtype}")
        real = self._frames(inputs, self.real_kernel) if self.mode != "imag" else None
        imag = self._frames(inputs, self.imag_kernel) if self.mode != "real" else None
        if self.mode in ("real", "imag"):
            return self._layout(real if self.mode == "real" else imag)
        if self.mode == "angle":
            return self._layout(ops.arctan2(imag, real))
        if self.mode == "stft":
            return self._layout(ops.concatenate([real, imag], axis=-1))
        power = ops.add(ops.square(real), ops.square(imag))
        if self.mode == "psd":
            inner = ops.pad(power[..., 1:-1], ((0, 0), (0, 0), (0, 0), (1, 1)))
            return self._layout(ops.add(power, inner))
        magnitude = self._layout(ops.sqrt(ops.maximum(power, epsilon())))
        if self.mode == "magnitude":
            return magnitude
        return ops.log(ops.maximum(magnitude, epsilon()))

    def compute_output_shape(self, input_shape):
        cl = self.data_format == "channels_last"
        batch, steps, channels = ((input_shape[0], input_shape[1], input_shape[2]) if cl else
                                  (input_shape[0], input_shape[2], input_shape[1]))
        bins = (self._fft_length // 2 + 1) * (2 if self.mode == "stft" else 1)
        frames = cu.conv_output_length(steps, self.frame_length, self._frame_step, 1,
                                       self.padding)
        if self.expand_dims:
            return (batch, frames, bins, channels) if cl else (batch, channels, frames, bins)
        return (batch, frames, channels * bins) if cl else (batch, channels * bins, frames)

    def get_config(self) -> dict:
        window = self.window
        if window is not None and not isinstance(window, str):
            window = initializers.STFT(window=window).get_config()["window"]
        return {**super().get_config(), "mode": self.mode, "frame_length": self.frame_length,
                "frame_step": self.frame_step, "fft_length": self.fft_length,
                "window": window, "periodic": self.periodic, "scaling": self.scaling,
                "padding": self.padding, "data_format": self.data_format,
                "expand_dims": self.expand_dims}
