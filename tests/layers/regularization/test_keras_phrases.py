"""Dropout-family details Keras 3.15.1's own tests check: the layers are built when made
(they have no weights), and bad ``rate`` / ``noise_shape`` values name Keras's phrase after
Lamina's sentence."""
import pytest

from lamina import layers

STATELESS = [
    lambda: layers.Dropout(0.5), lambda: layers.AlphaDropout(0.5),
    lambda: layers.GaussianDropout(0.5), lambda: layers.GaussianNoise(0.5),
    lambda: layers.SpatialDropout1D(0.5), lambda: layers.SpatialDropout2D(0.5),
    lambda: layers.SpatialDropout3D(0.5), lambda: layers.ActivityRegularization(l1=0.1),
]


@pytest.mark.parametrize("make", STATELESS)
def test_built_after_instantiation(make):
    assert make().built


@pytest.mark.parametrize("cls", [layers.Dropout, layers.AlphaDropout])
@pytest.mark.parametrize("rate", [-0.5, 1.5])
def test_bad_rate(cls, rate):
    with pytest.raises(ValueError, match=rf"argument 'rate' must be a number in \[0, 1\); "
                                         rf"received {rate} \(Keras: Invalid value received "
                                         rf"for argument `rate`. Expected a float value "
                                         rf"between 0 and 1.\)"):
        cls(rate)


@pytest.mark.parametrize("noise_shape, phrase", [
    ("Invalid", "Expected a tuple or list of integers."),
    ((20, 1.5, 10), "Expected all elements to be integers or None."),
    ((20, -1, 10), "Expected all dimensions to be positive integers or None."),
    ((20, 0, 10), "Expected all dimensions to be positive integers or None."),
])
def test_bad_noise_shape(noise_shape, phrase):
    with pytest.raises(ValueError, match=r"d: argument 'noise_shape' must be a tuple of "
                                         r"positive ints or None; received .*Invalid value "
                                         r"received for argument `noise_shape`. " + phrase):
        layers.Dropout(0.5, noise_shape=noise_shape, name="d")
    assert layers.Dropout(0.5, noise_shape=[20, None, 10]).noise_shape == (20, None, 10)
