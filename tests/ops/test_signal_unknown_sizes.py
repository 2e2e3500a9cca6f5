"""stft and istft on tensors whose batch size (and, for istft, number of frames) is unknown:
the output shapes Keras 3 gives symbolically, and a functional model that runs them for
several batch sizes in graph mode with eager's numbers."""
import numpy as np
import pytest

import lamina
from lamina import ops
from lamina.errors import ShapeError
from tests.harness import rand


def test_reflect_and_edge_pads_keep_an_unknown_batch_size():
    x = lamina.KerasTensor((None, 32))
    assert ops.pad(x, [(0, 0), (2, 3)], mode="reflect").shape == (None, 37)
    assert ops.pad(x, [(0, 0), (2, 3)], mode="edge").shape == (None, 37)
    assert ops.pad(x, [(0, 0), (2, 3)], mode="wrap").shape == (None, 37)


def test_symbolic_shapes_match_keras():
    # Keras 3.15.1: MathOpsDynamicShapeTest.test_stft / test_istft / test_istft_with_length
    real, imag = ops.stft(lamina.KerasTensor((None, 32)), 10, 3, 15)
    assert real.shape == imag.shape == (None, 11, 8)
    frames = lamina.KerasTensor((None, 32))          # 2-D: the frames are unknown in number
    assert ops.istft((frames, frames), 10, 3, 15).shape == (None,)
    batch = lamina.KerasTensor((None, 10, 5))
    assert ops.istft((batch, batch), 4, 1, 8, 1, "hann", False).shape == (None, 1)
    assert ops.istft((batch, batch), 4, 1, 8).shape == (None, 9)


def test_istft_refuses_unknown_frames_and_unknown_leading_sizes():
    x = lamina.KerasTensor((None, None, 5))
    with pytest.raises(ShapeError, match=r"istft: the number of frames and the leading sizes "
                                         r"of 'x' cannot both be unknown"):
        ops.istft((x, x), 4, 1, 8)


def test_istft_of_an_unknown_number_of_frames_runs_in_graph_mode():
    real, imag = lamina.Input(batch_shape=(None, 5)), lamina.Input(batch_shape=(None, 5))
    model = lamina.Model([real, imag], ops.istft((real, imag), 8, 4, 8))
    for samples in (40, 48):                 # 9 and 11 frames through one model
        x = rand(samples).astype("float32")
        r, i = ops.stft(ops.convert_to_tensor(x), 8, 4, 8)
        eager = model([r, i]).numpy()
        graph = model.predict_on_batch([r.numpy(), i.numpy()])
        np.testing.assert_allclose(eager, x, atol=1e-6)          # the round trip
        np.testing.assert_allclose(graph, eager, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("center", [True, False])
def test_functional_stft_istft_runs_any_batch_size_in_graph_mode(center):
    inputs = lamina.Input((24,))
    real, imag = ops.stft(inputs, 8, 4, 8, center=center)
    outputs = ops.istft((real, imag), 8, 4, 8, length=24, center=center)
    model = lamina.Model(inputs, [real, outputs])
    for batch in (2, 3):
        x = rand(batch, 24).astype("float32")
        eager_real, eager_out = (t.numpy() for t in model(ops.convert_to_tensor(x)))
        graph_real, graph_out = model.predict(x, verbose=0)
        np.testing.assert_allclose(graph_real, eager_real, rtol=1e-5, atol=1e-6)
        np.testing.assert_allclose(graph_out, eager_out, rtol=1e-5, atol=1e-6)
        expected = np.fft.rfft(np.stack([
            np.pad(row, (4, 4), mode="reflect") if center else row for row in x])[
            :, np.arange(7 if center else 5)[:, None] * 4 + np.arange(8)] *
            (0.5 - 0.5 * np.cos(2 * np.pi * np.arange(8) / 8)), 8).real
        np.testing.assert_allclose(graph_real, expected, rtol=1e-4, atol=1e-5)
