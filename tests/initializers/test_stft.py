import numpy as np
import pytest

from lamina import initializers
from lamina.errors import ShapeError
from tests.layers.keras11.reference import fixture

KERAS_CASES = {
    "init_stft_hann": (dict(), (8, 1, 5)),
    "init_stft_hamming_imag_spectrum_periodic": (
        dict(side="imag", window="hamming", scaling="spectrum", periodic=True), (6, 1, 4)),
    "init_stft_blackman_none": (dict(window="blackman", scaling=None), (7, 1, 3)),
    "init_stft_bartlett": (dict(window="bartlett", periodic=True), (5, 1, 3)),
    "init_stft_boxcar": (dict(window="boxcar"), (4, 1, 3)),
    "init_stft_no_window": (dict(window=None, side="imag"), (4, 1, 3)),
}


@pytest.mark.parametrize("key", sorted(KERAS_CASES))
def test_stft_kernels_match_keras(key):
    kwargs, shape = KERAS_CASES[key]
    kernel = initializers.STFT(**kwargs)(shape)
    assert kernel.dtype == "float32" and kernel.shape == shape
    np.testing.assert_allclose(kernel.numpy(), fixture(key)["y"], rtol=1e-5, atol=1e-6)


# Window values (kernel[:, 0, 0] with side="real", scaling=None: cos(0) = 1 times the
# window) from Keras 3.15.1's STFT initializer, which calls scipy.signal.get_window.
KERAS_WINDOWS = {
    ("tukey", 7, False): [0.0, 0.75, 1.0, 1.0, 1.0, 0.75, 0.0],
    ("tukey", 8, False): [0.0, 0.6112604669781572, 1.0, 1.0, 1.0, 1.0, 0.6112604669781576, 0.0],
    ("tukey", 9, True): [0.0, 0.41317591116653485, 0.9698463103929542, 1.0, 1.0, 1.0, 1.0,
                         0.9698463103929542, 0.4131759111665352],
    ("triang", 7, False): [0.25, 0.5, 0.75, 1.0, 0.75, 0.5, 0.25],
    ("triang", 8, False): [0.125, 0.375, 0.625, 0.875, 0.875, 0.625, 0.375, 0.125],
    ("triang", 9, True): [0.1, 0.3, 0.5, 0.7, 0.9, 0.9, 0.7, 0.5, 0.3],
    ("cosine", 7, False): [0.2225209339563144, 0.6234898018587335, 0.9009688679024191, 1.0,
                           0.9009688679024191, 0.6234898018587336, 0.2225209339563145],
    ("bohman", 7, False): [0.0, 0.10899778104422927, 0.6089977810442293, 1.0,
                           0.6089977810442295, 0.10899778104422961, 0.0],
    ("barthann", 6, True): [0.0, 0.27, 0.73, 1.0, 0.73, 0.27],
    ("parzen", 7, False): [0.0058309037900874695, 0.15743440233236156, 0.6501457725947521, 1.0,
                           0.6501457725947521, 0.15743440233236156, 0.0058309037900874695],
    ("parzen", 8, False): [0.00390625, 0.10546875, 0.47265625, 0.91796875, 0.91796875,
                           0.47265625, 0.10546875, 0.00390625],
    ("parzen", 9, True): [0.002, 0.054, 0.25, 0.622, 0.946, 0.946, 0.622, 0.25, 0.054],
    ("blackmanharris", 7, False): [6.0e-05, 0.055645, 0.520575, 1.0, 0.520575, 0.055645,
                                   6.0e-05],
    ("nuttall", 6, True): [0.0003628, 0.0613345, 0.5292298, 1.0, 0.5292298, 0.0613345],
    ("flattop", 7, False): [-0.000421051, -0.051263156, 0.19821053, 1.000000003, 0.19821053,
                            -0.051263156, -0.000421051],
}


@pytest.mark.parametrize("name, length, periodic", sorted(KERAS_WINDOWS))
def test_scipy_named_windows_match_keras(name, length, periodic):
    kernel = initializers.STFT("real", name, None, periodic)((length, 1, 3), "float64")
    np.testing.assert_allclose(kernel.numpy()[:, 0, 0], KERAS_WINDOWS[name, length, periodic],
                               rtol=1e-12, atol=1e-15)


def test_tukey_kernel_matches_keras():
    # Keras 3.15.1: STFT("imag", "tukey", "density", False)((6, 1, 3), "float32")[:, 0, :]
    expected = [[0.0, 0.0, 0.0], [0.0, -0.4743342995643616, 4.146762222489997e-08],
                [0.0, 4.584547497188396e-08, -9.169094994376792e-08],
                [0.0, 0.5244110822677612, 1.2507079816259647e-08],
                [0.0, -8.293524444979994e-08, -1.6587048889959988e-07], [0.0, 0.0, 0.0]]
    kernel = initializers.STFT("imag", "tukey", "density", False)((6, 1, 3), "float32")
    np.testing.assert_allclose(kernel.numpy()[:, 0, :], expected, rtol=1e-5, atol=1e-6)


def test_aliases_config_and_array_window():
    assert initializers.STFTInitializer is initializers.STFT is initializers.stft
    assert initializers.IdentityInitializer is initializers.Identity
    assert initializers.OrthogonalInitializer is initializers.Orthogonal
    init = initializers.STFT(window=[1.0, 2.0, 2.0, 1.0], scaling="spectrum")
    clone = initializers.deserialize(initializers.serialize(init))
    assert clone.get_config() == init.get_config() == {
        "side": "real", "window": [1.0, 2.0, 2.0, 1.0], "periodic": False,
        "scaling": "spectrum"}
    np.testing.assert_allclose(clone((4, 1, 3)).numpy()[:, 0, 0], [1 / 6, 2 / 6, 2 / 6, 1 / 6],
                               rtol=1e-6)
    assert isinstance(initializers.get("stft"), initializers.STFT)


def test_errors():
    with pytest.raises(ValueError, match="STFT: argument 'side' must be 'real' or 'imag'"):
        initializers.STFT(side="both")
    with pytest.raises(ValueError, match="STFT: argument 'window' must be None, an array"):
        initializers.STFT(window="kaiser")
    with pytest.raises(ValueError, match="STFT: argument 'scaling' must be None"):
        initializers.STFT(scaling="power")
    with pytest.raises(ShapeError, match=r"STFT: the shape must be \(frame_length"):
        initializers.STFT()((4, 3))
    with pytest.raises(ShapeError, match=r"STFT: argument 'window' must have shape \(5,\)"):
        initializers.STFT(window=[1.0, 1.0])((5, 1, 3))
