"""FFT and signal ops (fft, fft2, ifft2, rfft, irfft, extract_sequences, stft, istft):
numpy references through the op harness, and Keras 3's own stft/istft numbers."""
import numpy as np
import pytest

from lamina import ops
from lamina.errors import DTypeError, ShapeError
from lamina.ops.fft import ifft
from tests.harness import case, rand, run_case


def np_pair(z):
    return z.real, z.imag


def np_frames(x, length, stride):
    count = (x.shape[-1] - length) // stride + 1
    idx = np.arange(count)[:, None] * stride + np.arange(length)
    return x[..., idx]


def np_stft(x, length, stride, n, window="hann", center=True):
    if center:
        x = np.pad(x, [(0, 0)] * (x.ndim - 1) + [(n // 2, n // 2)], mode="reflect")
    a = 0.5 if window == "hann" else 0.54
    win = a - (1 - a) * np.cos(2 * np.pi * np.arange(length) / length)
    left = (n - length) // 2
    win = np.pad(win, (left, n - length - left))
    return np_pair(np.fft.rfft(np_frames(x, n, stride) * win, n))


CASES = [
    case("fft", lambda r, i: ops.fft((r, i)), lambda r, i: np_pair(np.fft.fft(r + 1j * i)),
         [rand(2, 5), rand(2, 5)], second_order=True),
    case("fft", lambda r, i: ifft((r, i)),
         lambda r, i: np_pair(np.fft.ifft(r + 1j * i)), [rand(4), rand(4)], label="ifft"),
    case("fft2", lambda r, i: ops.fft2((r, i)), lambda r, i: np_pair(np.fft.fft2(r + 1j * i)),
         [rand(2, 3, 4), rand(2, 3, 4)]),
    case("ifft2", lambda r, i: ops.ifft2((r, i)),
         lambda r, i: np_pair(np.fft.ifft2(r + 1j * i)), [rand(3, 4), rand(3, 4)]),
    case("rfft", ops.rfft, lambda x: np_pair(np.fft.rfft(x)), [rand(2, 6)]),
    case("rfft", lambda x: ops.rfft(x, 9), lambda x: np_pair(np.fft.rfft(x, 9)), [rand(7)],
         label="padded-odd"),
    case("rfft", lambda x: ops.rfft(x, 4), lambda x: np_pair(np.fft.rfft(x, 4)), [rand(7)],
         label="cropped"),
    case("irfft", lambda r, i: ops.irfft((r, i)), lambda r, i: np.fft.irfft(r + 1j * i),
         [rand(2, 5), rand(2, 5)]),
    case("irfft", lambda r, i: ops.irfft((r, i), 7), lambda r, i: np.fft.irfft(r + 1j * i, 7),
         [rand(5), rand(5)], label="odd"),
    case("irfft", lambda r, i: ops.irfft((r, i), 12), lambda r, i: np.fft.irfft(r + 1j * i, 12),
         [rand(4), rand(4)], label="padded"),
    case("extract_sequences", lambda x: ops.extract_sequences(x, 4, 3),
         lambda x: np_frames(x, 4, 3), [rand(2, 11)]),
    case("stft", lambda x: ops.stft(x, 6, 3, 8), lambda x: np_stft(x, 6, 3, 8), [rand(2, 14)]),
    case("stft", lambda x: ops.stft(x, 5, 2, 5, window="hamming", center=False),
         lambda x: np_stft(x, 5, 2, 5, "hamming", False), [rand(12)], label="hamming"),
    case("istft", lambda r, i: ops.istft((r, i), 6, 3, 8),
         None, [rand(2, 5, 5), rand(2, 5, 5)]),
]


@pytest.mark.parametrize("c", CASES, ids=str)
def test_forward_and_gradient(c, backend):
    run_case(c)


X = [-1.0, -0.2601, 0.0559, -0.0018, -0.1906, -0.2384, -0.0328, 0.3357, 0.7178, 1.103]
# keras.ops.stft / istft (Keras 3.15.1, numpy backend) of X as float32: (config, real, imag,
# istft of that pair)
KERAS_STFT = [
    ({'sequence_length': 4, 'sequence_stride': 2, 'fft_length': 6, 'window': 'hann', 'center': True},
     [[-1.2601, 1.13005, -0.86995, 0.7399], [-0.07505, 0.009575, 0.121375, -0.18685], [-0.3107, 0.25065, -0.13055, 0.0705], [0.01585, 0.008475, -0.057125, 0.08145], [1.43715, -1.077475, 0.358125, 0.00155], [1.43715, -1.077475, 0.358125, 0.00155]],
     [[0.0, 0.0, 0.0, 0.0], [0.0, 0.111847, -0.111847, 0.0], [0.0, -0.102451, 0.102451, 0.0], [0.0, 0.248593, -0.248593, 0.0], [0.0, 0.332251, -0.332251, 0.0], [0.0, -0.332251, 0.332251, 0.0]],
     [-1.0, -0.2601, 0.0559, -0.0018, -0.1906, -0.2384, -0.0328, 0.3357, 0.7178, 1.103]),
    ({'sequence_length': 4, 'sequence_stride': 3, 'fft_length': 4, 'window': 'hamming', 'center': False},
     [[-0.165526, -0.1359, 0.117326], [-0.35918, 0.238256, -0.117908], [1.492074, -0.720424, -0.061722]],
     [[0.0, 0.139482, 0.0], [0.0, 0.085212, 0.0], [0.0, 0.414342, 0.0]],
     [-1.0, -0.2601, 0.0559, -0.0018, -0.1906, -0.2384, -0.0328, 0.3357, 0.7178, 1.103]),
    ({'sequence_length': 3, 'sequence_stride': 2, 'fft_length': 4, 'window': None, 'center': True},
     [[-1.4643, 1.0559, -0.4239], [-1.206, -1.0559, -0.6822], [-0.3749, 0.2465, 0.1055], [-0.1261, -0.1578, -0.3207], [2.1237, -0.7506, -0.7537], [2.8743, 0.0, -0.0031]],
     [[0.0, 0.0, 0.0], [0.0, 0.2583, 0.0], [0.0, -0.2366, 0.0], [0.0, 0.5741, 0.0], [0.0, 0.7673, 0.0], [0.0, -0.7673, 0.0]],
     [-2.0, -0.5202, 0.1118, -0.0036, -0.3812, -0.4768, -0.0656, 0.6714, 1.4356, 2.206]),
]


@pytest.mark.parametrize("config, real, imag, inverse", KERAS_STFT,
                         ids=["hann-centered", "hamming", "no-window"])
def test_stft_and_istft_match_keras(config, real, imag, inverse, backend):
    x = ops.convert_to_tensor(np.array([X], dtype="float32"))
    r, i = ops.stft(x, **config)
    np.testing.assert_allclose(r.numpy()[0], real, atol=2e-6)
    np.testing.assert_allclose(i.numpy()[0], imag, atol=2e-6)
    y = ops.istft((r, i), **config)
    np.testing.assert_allclose(y.numpy()[0], inverse, atol=2e-6)
    cut = ops.istft((r, i), length=4, **config)
    np.testing.assert_allclose(cut.numpy()[0], inverse[:4], atol=2e-6)


def test_stft_custom_window_and_round_trip(backend):
    x = rand(2, 20)
    window = np.array([0.2, 0.6, 1.0, 0.7, 0.3])
    r, i = ops.stft(ops.convert_to_tensor(x), 5, 2, 8, window=ops.convert_to_tensor(window))
    frames = np_frames(np.pad(x, [(0, 0), (4, 4)], mode="reflect"), 8, 2)
    expected = np.fft.rfft(frames * np.pad(window, (1, 2)), 8)
    np.testing.assert_allclose(r.numpy(), expected.real, atol=1e-12)
    np.testing.assert_allclose(i.numpy(), expected.imag, atol=1e-12)
    y = ops.istft((r, i), 5, 2, 8, window=ops.convert_to_tensor(window), length=20)
    np.testing.assert_allclose(y.numpy(), x, atol=1e-12)


def t(x, dtype="float64"):
    return ops.convert_to_tensor(np.asarray(x, dtype=dtype))


def test_fft_argument_errors(backend):
    with pytest.raises(ValueError, match=r"fft: argument 'x' must be a tuple of two tensors"):
        ops.fft(t(rand(3)))
    with pytest.raises(ShapeError, match=r"fft2: the real and imaginary parts of 'x' must "
                                         r"have the same shape"):
        ops.fft2((t(rand(2, 3)), t(rand(3, 2))))
    with pytest.raises(DTypeError, match=r"irfft: the real and imaginary parts of 'x' must "
                                         r"be float tensors"):
        ops.irfft((t([1, 2], "int32"), t([1, 2], "int32")))
    with pytest.raises(DTypeError, match=r"fft: the real and imaginary parts of 'x' must "
                                         r"have one dtype"):
        ops.fft((t(rand(3)), t(rand(3), "float32")))
    with pytest.raises(ShapeError, match=r"ifft2: argument 'x' must have rank >= 2"):
        ops.ifft2((t(rand(3)), t(rand(3))))
    with pytest.raises(DTypeError, match=r"rfft: argument 'x' must be a float tensor"):
        ops.rfft(t([1, 2], "int32"))
    with pytest.raises(ValueError, match=r"rfft: argument 'fft_length' must be a positive "
                                         r"int; received 0"):
        ops.rfft(t(rand(4)), 0)


def test_signal_argument_errors(backend):
    x = t(rand(12))
    with pytest.raises(ValueError, match=r"stft: `fft_length` must equal or be larger than "
                                         r"`sequence_length`; received sequence_length=8, "
                                         r"fft_length=4"):
        ops.stft(x, 8, 2, 4)
    with pytest.raises(ValueError, match=r"stft: If a string is passed to `window`, it must "
                                         r"be one of 'hann', 'hamming'; received 'box'"):
        ops.stft(x, 4, 2, 4, window="box")
    with pytest.raises(ShapeError, match=r"stft: The shape of `window` must be equal to "
                                         r"\[sequence_length\] = \(4,\); received shape "
                                         r"\(3,\)"):
        ops.stft(x, 4, 2, 4, window=t(rand(3)))
    with pytest.raises(DTypeError, match=r"stft: argument 'x' must be `float32` or `float64`; "
                                         r"received int32"):
        ops.stft(t(np.arange(12), "int32"), 4, 2, 4)
    with pytest.raises(ValueError, match=r"extract_sequences: argument `sequence_stride` "
                                         r"must be a positive integer; received 0"):
        ops.extract_sequences(x, 4, 0)
    # Keras 3.15.1 (JAX): a signal shorter than one frame gives no frames, (0, 20)
    assert ops.extract_sequences(x, 20, 1).shape == (0, 20)
    assert ops.extract_sequences(t(np.zeros((2, 3, 5))), 6, 2).shape == (2, 3, 0, 6)
    with pytest.raises(ShapeError, match=r"extract_sequences: argument 'x' must have at least "
                                         r"one axis"):
        ops.extract_sequences(t(np.float32(1.0)), 2, 1)
