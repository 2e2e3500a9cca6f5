"""ctc_loss and ctc_decode: a brute-force numpy reference through the op harness, and
Keras 3's own numbers (greedy and beam search)."""
import itertools

import numpy as np
import pytest

from lamina import ops
from lamina.errors import ShapeError
from tests.harness import case, rand, run_case


def np_ctc_loss(target, logits, target_length, output_length, blank=0):
    """-log of the summed probability of every alignment that collapses to the target."""
    out = []
    for b in range(logits.shape[0]):
        x = logits[b, :output_length[b]]
        p = np.exp(x - x.max(-1, keepdims=True))
        p /= p.sum(-1, keepdims=True)
        want = tuple(target[b, :target_length[b]])
        total = 0.0
        for path in itertools.product(range(x.shape[1]), repeat=x.shape[0]):
            merged = [c for i, c in enumerate(path) if i == 0 or c != path[i - 1]]
            if tuple(c for c in merged if c != blank) == want:
                total += np.prod(p[np.arange(len(path)), path])
        out.append(-np.log(total))
    return np.array(out)


TARGET = np.array([[1, 2], [2, 2], [1, 0]], dtype="int32")
TARGET_LENGTH = np.array([2, 2, 1], dtype="int32")
OUTPUT_LENGTH = np.array([4, 4, 3], dtype="int32")
CASES = [
    case("ctc_loss", lambda x: ops.ctc_loss(TARGET, x, TARGET_LENGTH, OUTPUT_LENGTH),
         lambda x: np_ctc_loss(TARGET, x, TARGET_LENGTH, OUTPUT_LENGTH), [rand(3, 4, 3)],
         fwd_rtol32=1e-5, rtol=1e-5, atol=1e-7),
    case("ctc_loss", lambda x: ops.ctc_loss(TARGET % 2, x, TARGET_LENGTH, OUTPUT_LENGTH,
                                            mask_index=2),
         lambda x: np_ctc_loss(TARGET % 2, x, TARGET_LENGTH, OUTPUT_LENGTH, blank=2),
         [rand(3, 4, 3)], label="blank-last", rtol=1e-5, atol=1e-7),
    case("ctc_decode", lambda x: ops.ctc_decode(x, OUTPUT_LENGTH),
         lambda x: (np.array([[[1, 2, -1, -1], [2, 2, -1, -1], [1, 2, -1, -1]]]),
                    -np.array([[4.0], [4.5], [3.0]])),
         [np.array([[[0, 1, 0], [0, 1, 0], [0, 0, 1], [0, 0, 1]],
                    [[0, 0, 1], [0, 0, 1.5], [1, 0, 0], [0, 0, 1]],
                    [[0, 1, 0], [1, 0, 0], [0, 0, 1], [9, 9, 9]]], dtype="float64")],
         grad=False, label="greedy"),
]


@pytest.mark.parametrize("c", CASES, ids=str)
def test_forward_and_gradient(c, backend):
    run_case(c)


# keras.ops (Keras 3.15.1, numpy backend) on these float32 logits
LOGITS = [[[-0.954, -0.806, 1.257, -1.632], [0.4, 0.914, -1.248, -1.779], [-0.9, 0.63, 0.249, -1.4], [-0.269, 0.677, -0.309, 0.533], [1.87, 0.732, -0.434, -1.251], [-0.616, 0.044, 1.565, 1.102]], [[-0.727, 1.697, -0.116, 0.775], [-1.571, -1.582, -1.192, 1.538], [0.719, 1.397, 0.578, -0.374], [0.066, 0.374, 1.448, -0.247], [1.569, 0.455, 1.317, -0.008], [0.77, -0.644, 0.091, -1.135]], [[-1.597, -1.846, 0.808, -0.174], [1.591, 1.341, -0.46, 1.895], [0.368, 1.064, -0.371, -1.215], [-1.313, -1.275, 0.415, -1.549], [-1.92, 1.332, -1.602, -0.198], [-0.046, 0.481, 0.016, 1.749]]]
K_TARGET = np.array([[1, 2, 2], [3, 1, 0], [2, 0, 0]])
K_TARGET_LENGTH, K_OUTPUT_LENGTH = np.array([3, 2, 1]), np.array([6, 5, 3])


def logits():
    return ops.convert_to_tensor(np.array(LOGITS, dtype="float32"))


def test_ctc_loss_matches_keras(backend):
    loss = ops.ctc_loss(K_TARGET, logits(), K_TARGET_LENGTH, K_OUTPUT_LENGTH)
    assert loss.shape == (3,) and loss.dtype == "float32"
    np.testing.assert_allclose(loss.numpy(), [4.703774929046631, 3.3924150466918945, 2.69309401512146], rtol=1e-6)
    loss = ops.ctc_loss(K_TARGET % 3, logits(), K_TARGET_LENGTH, K_OUTPUT_LENGTH, mask_index=3)
    np.testing.assert_allclose(loss.numpy(), [7.021470069885254, 5.064384937286377, 3.360438108444214], rtol=1e-6)


def test_greedy_decode_matches_keras(backend):
    decoded, scores = ops.ctc_decode(logits(), K_OUTPUT_LENGTH)
    assert decoded.dtype == "int32" and decoded.shape == (1, 3, 6)
    np.testing.assert_array_equal(decoded.numpy(), [[[2, 1, 2, -1, -1, -1], [1, 3, 1, 2, -1, -1], [2, 3, 1, -1, -1, -1]]])
    np.testing.assert_allclose(scores.numpy(), [[-6.913], [-7.649], [-3.767]], rtol=1e-6)
    decoded, _ = ops.ctc_decode(logits(), K_OUTPUT_LENGTH, merge_repeated=False, mask_index=2)
    np.testing.assert_array_equal(decoded.numpy(), [[[1, 1, 1, 0, -1, -1], [1, 3, 1, 0, -1, -1], [3, 1, -1, -1, -1, -1]]])


def test_beam_search_matches_keras(backend):
    decoded, scores = ops.ctc_decode(logits(), K_OUTPUT_LENGTH, strategy="beam_search",
                                     beam_width=4, top_paths=3)
    assert decoded.shape == (3, 3, 6) and scores.shape == (3, 3)
    np.testing.assert_array_equal(decoded.numpy(), [[[2, 1, 2, -1, -1, -1], [1, 3, 1, 2, -1, -1], [2, 1, -1, -1, -1, -1]], [[2, 1, 3, -1, -1, -1], [1, 3, 2, -1, -1, -1], [2, 3, 1, -1, -1, -1]], [[2, 1, 3, 2, -1, -1], [1, 3, 1, -1, -1, -1], [3, 1, -1, -1, -1, -1]]])
    np.testing.assert_allclose(scores.numpy(), [[-2.293612, -2.758509, -2.939338],
                                                [-1.922539, -2.05252, -2.787778],
                                                [-1.384389, -1.91647, -2.215953]], rtol=1e-5)
    decoded, scores = ops.ctc_decode(logits(), K_OUTPUT_LENGTH, strategy="beam_search",
                                     beam_width=2, top_paths=2, mask_index=1)
    np.testing.assert_array_equal(decoded.numpy(), [[[2, 0, 2, -1, -1, -1], [3, 2, -1, -1, -1, -1], [2, 0, -1, -1, -1, -1]], [[2, 0, 3, -1, -1, -1], [3, 2, 0, -1, -1, -1], [2, 3, -1, -1, -1, -1]]])
    np.testing.assert_allclose(scores.numpy(), [[-2.695962, -3.158962], [-2.204219, -2.304506],
                                                [-1.815955, -1.818992]], rtol=1e-5)


def test_ctc_errors(backend):
    x = logits()
    with pytest.raises(ValueError, match=r"ctc_decode: Invalid strategy 'best': argument "
                                         r"'strategy' must be 'greedy' or 'beam_search'"):
        ops.ctc_decode(x, K_OUTPUT_LENGTH, strategy="best")
    with pytest.raises(ShapeError, match=r"ctc_decode: argument 'inputs' must have rank 3"):
        ops.ctc_decode(x[0], K_OUTPUT_LENGTH)
    with pytest.raises(ValueError, match=r"ctc_decode: argument 'beam_width' must be a "
                                         r"positive int; received 0"):
        ops.ctc_decode(x, K_OUTPUT_LENGTH, strategy="beam_search", beam_width=0)
    with pytest.raises(ValueError, match=r"ctc_decode: 'top_paths' \(3\) must not exceed "
                                         r"'beam_width' \(2\)"):
        ops.ctc_decode(x, K_OUTPUT_LENGTH, strategy="beam_search", beam_width=2, top_paths=3)
    with pytest.raises(ShapeError, match=r"ctc_loss: 'target' must be \(batch, "
                                         r"max_label_length\) and 'output'"):
        ops.ctc_loss(K_TARGET[0], x, K_TARGET_LENGTH, K_OUTPUT_LENGTH)
