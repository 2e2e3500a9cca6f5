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
