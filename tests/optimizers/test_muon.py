"""Muon's helper methods under Keras's names, against Keras 3.15.1's numbers: the
Newton-Schulz orthogonalisation, Moonlight's learning-rate adjustment, and weight decay
(``weight_decay`` for Muon's 2-D variables, ``adam_weight_decay`` for the rest)."""
import numpy as np
import pytest

import lamina
from lamina import ops
from lamina.optimizers import Muon


@pytest.mark.parametrize("x, steps, keras", [
    ([[0.2499, 0.9105], [0.2655, 0.8824]], 5,
     [[-0.4419020414352417, 0.6455919742584229], [0.7281589508056641, 0.29695582389831543]]),
    # a tall matrix is orthogonalised through its transpose
    ([[1.0, 2.0], [3.0, 4.0], [5.0, 7.0]], 3,
     [[-0.7634274959564209, 0.7347710132598877], [0.5152788162231445, 0.06676137447357178],
      [0.39120495319366455, 0.4675276279449463]]),
])
def test_newton_schulz_matches_keras(x, steps, keras):
    got = Muon().zeropower_via_newtonschulz5(ops.array(x), steps)
    np.testing.assert_allclose(got.numpy(), keras, rtol=1e-5, atol=1e-6)


def test_newton_schulz_needs_a_matrix():
    with pytest.raises(ValueError, match=r"Muon: the Newton-Schulz iteration needs a gradient "
                                         r"or momentum with at least 2 dimensions; received "
                                         r"shape \(3,\)"):
        Muon().zeropower_via_newtonschulz5(ops.ones((3,)), 5)


def test_lr_adjust():
    x = ops.ones((4, 2))
    np.testing.assert_allclose(Muon(rms_rate=0.2).lr_adjust(x).numpy(),
                               np.full((4, 2), 0.4000000059604645), rtol=1e-7)
    assert Muon(rms_rate=None).lr_adjust(x) is x


def test_weight_decay_without_a_learning_rate_uses_the_optimizers():
    # Keras 3.15.1: Muon(learning_rate=0.5, weight_decay=0.01) on a 2-D variable, and
    # adam_weight_decay=0.1 on a scalar, with _apply_weight_decay(variables) alone.
    matrix = lamina.Variable([[1.0, 2.0], [3.0, 4.0]])
    Muon(learning_rate=0.5, weight_decay=0.01)._apply_weight_decay([matrix])
    np.testing.assert_allclose(matrix.numpy(), [[0.9950000047683716, 1.9900000095367432],
                                                [2.984999895095825, 3.9800000190734863]],
                               rtol=1e-7)
    scalar = lamina.Variable(2.0)
    Muon(learning_rate=0.5, adam_weight_decay=0.1)._apply_weight_decay([scalar])
    np.testing.assert_allclose(scalar.numpy(), 1.899999976158142, rtol=1e-7)
