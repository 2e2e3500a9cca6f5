"""``STFT``: the convolution kernels of a short-time Fourier transform (Keras 3's
``STFTInitializer``), as the ``STFTSpectrogram`` layer uses them."""
from __future__ import annotations

import math

from .. import ops
from ..core.tensor import Tensor
from ..errors import ShapeError, describe_shape
from ..registry import register_builtin
from .initializer import Initializer, check_dtype, check_shape
from .windows import WINDOWS, window_values

__all__ = ["STFT", "WINDOWS", "window_values"]


@register_builtin
class STFT(Initializer):
    """Initializer of the convolution kernels of a short-time Fourier transform.

    It makes kernels of shape ``(frame_length, channels, bins)`` whose convolution with a
    signal gives the real (``cos``) or imaginary (``-sin``) part of its DFT at ``bins``
    frequencies ``k / (2 (bins - 1))``, times a window divided by a norm, as the
    ``STFTSpectrogram`` layer uses them (Keras 3's ``STFTInitializer``).

    Args:
        side: ``"real"`` (default) for the real part, ``"imag"`` for the imaginary part.
        window: A window name (``"hann"``, the default, ``"hamming"``, ``"blackman"``,
            ``"boxcar"``, ... as ``scipy.signal.get_window`` names them), an array of
            ``frame_length`` values, or ``None`` for no window.
        scaling: ``"density"`` (default) divides the window by its L2 norm,
            ``"spectrum"`` by its L1 norm, ``None`` by 1.
        periodic: If ``True``, use the periodic form of the window (for spectral
            analysis) instead of the symmetric one. Defaults to ``False``.

    Raises:
        ValueError: If ``side``, ``window`` or ``scaling`` is not one of the values above.

    Example:

    >>> lamina.initializers.STFT(side="imag")((256, 1, 129)).shape
    (256, 1, 129)
    """

    def __init__(self, side="real", window="hann", scaling="density", periodic=False):
        if side not in ("real", "imag"):
            raise ValueError(f"STFT: argument 'side' must be 'real' or 'imag'; received "
                             f"{side!r}")
        if isinstance(window, str) and window not in WINDOWS:
            raise ValueError(f"STFT: argument 'window' must be None, an array of "
                             f"frame_length values or one of {list(WINDOWS)}; received "
                             f"{window!r}")
        if scaling not in (None, "density", "spectrum"):
            raise ValueError(f"STFT: argument 'scaling' must be None, 'density' or "
                             f"'spectrum'; received {scaling!r}")
        self.side, self.window = side, window
        self.scaling, self.periodic = scaling, bool(periodic)

    def __call__(self, shape, dtype=None) -> Tensor:
        shape = check_shape("STFT", shape)
        dtype = check_dtype("STFT", dtype, float_only=True)
        if len(shape) != 3:
            raise ShapeError(f"STFT: the shape must be (frame_length, channels, bins); "
                             f"received {describe_shape(shape)}")
        frame_length, channels, bins = shape
        time = ops.reshape(ops.arange(frame_length, dtype="float64"), (frame_length, 1, 1))
        freq = ops.reshape(ops.arange(bins, dtype="float64"), (1, 1, bins))
        angle = ops.multiply(ops.multiply(time, freq), -2 * math.pi / ((bins - 1) * 2))
        kernel = ops.cos(angle) if self.side == "real" else ops.sin(angle)
        if self.window is not None:
            window = self._window(frame_length)
            kernel = ops.multiply(kernel, ops.reshape(window, (frame_length, 1, 1)))
            if self.scaling == "density":
                kernel = ops.divide(kernel, ops.sqrt(ops.sum(ops.square(window))))
            elif self.scaling == "spectrum":
                kernel = ops.divide(kernel, ops.sum(ops.abs(window)))
        kernel = ops.tile(kernel, (1, channels, 1)) if channels != 1 else kernel
        return ops.cast(kernel, dtype)

    def _window(self, frame_length):
        if isinstance(self.window, str):
            return window_values(self.window, frame_length, self.periodic)
        window = ops.cast(ops.convert_to_tensor(self.window), "float64")
        if tuple(window.shape) != (frame_length,):
            raise ShapeError(f"STFT: argument 'window' must have shape ({frame_length},) "
                             f"(frame_length); received shape {describe_shape(window.shape)}")
        return window

    def get_config(self) -> dict:
        window = self.window
        if window is not None and not isinstance(window, str):
            window = [float(v) for v in ops.convert_to_numpy(ops.convert_to_tensor(window))]
        return {"side": self.side, "window": window, "periodic": self.periodic,
                "scaling": self.scaling}
