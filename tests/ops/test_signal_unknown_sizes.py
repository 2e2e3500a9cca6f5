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


def test_istft_of_unknown_frames_and_unknown_leading_sizes():
    # Keras 3.15.1: MathOpsDynamicShapeTest.test_istft_with_length
    x = lamina.KerasTensor((None, None, 5))
    assert ops.istft((x, x), 4, 1, 8, 1, "hann", False).shape == (None, 1)
    assert ops.istft((x, x), 4, 1, 8).shape == (None, None)
    real, imag = (lamina.Input(batch_shape=(None, None, 5)) for _ in range(2))
    for length in (None, 20):
        model = lamina.Model([real, imag], ops.istft((real, imag), 8, 4, 8, length=length))
        for batch, samples in ((1, 40), (3, 48)):
            x = rand(batch, samples).astype("float32")
            r, i = (t.numpy() for t in ops.stft(ops.convert_to_tensor(x), 8, 4, 8))
            eager = ops.istft((r, i), 8, 4, 8, length=length).numpy()
            np.testing.assert_allclose(eager, x[:, :eager.shape[-1]], atol=1e-6)
            np.testing.assert_array_equal(model([r, i]).numpy(), eager)
            np.testing.assert_array_equal(lamina.jit(model)([r, i]).numpy(), eager)
    model = lamina.Model([real, imag], ops.istft((real, imag), 8, 4, 8, length=60))
    r, i = (t.numpy() for t in ops.stft(ops.convert_to_tensor(rand(1, 40).astype("float32")),
                                        8, 4, 8))
    with pytest.raises(ShapeError, match=r"istft: the signal has 44 samples after 4, fewer "
                                         r"than length=60"):
        lamina.jit(model)([r, i])


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


def test_extract_sequences_of_an_unknown_number_of_samples():
    # Keras 3.15.1: MathOpsDynamicShapeTest.test_extract_sequences
    assert ops.extract_sequences(lamina.KerasTensor((None, None)), 3, 2).shape == (None, None, 3)
    assert ops.extract_sequences(lamina.KerasTensor((None, 32)), 3, 2).shape == (None, 15, 3)
    inputs = lamina.Input(batch_shape=(None, None))
    model = lamina.Model(inputs, ops.extract_sequences(inputs, 3, 2))
    for samples in (2, 3, 7, 8):          # Keras: (2, 0, 3), (2, 1, 3), (2, 3, 3), (2, 3, 3)
        x = np.arange(2 * samples, dtype="float32").reshape(2, samples)
        expected = ops.extract_sequences(ops.convert_to_tensor(x), 3, 2).numpy()
        assert expected.shape == (2, max((samples - 3) // 2 + 1, 0), 3)
        np.testing.assert_array_equal(model(x).numpy(), expected)
        np.testing.assert_array_equal(model.predict_on_batch(x), expected)
    np.testing.assert_array_equal(model.predict_on_batch(np.arange(7.0)[None]),
                                  [[[0, 1, 2], [2, 3, 4], [4, 5, 6]]])


def test_istft_with_a_length_longer_than_the_signal_is_refused_eagerly_too():
    # the fuzzer's finding (unknown-size seed 245): eager returned 12 samples where the
    # graph refused; both refuse now, as Keras does (ValueError)
    x = np.random.default_rng(0).random((1, 15)).astype("float32")
    real, imag = ops.stft(x, 8, 4, 16, center=False)
    with pytest.raises(ValueError, match=r"istft: the signal has 12 samples after 0, fewer "
                                         r"than length=14"):
        ops.istft((real, imag), 8, 4, 16, length=14, center=False)
    assert ops.istft((real, imag), 8, 4, 16, length=10, center=False).shape == (1, 10)


@pytest.mark.parametrize("mode", ["reflect", "symmetric", "edge", "wrap"])
def test_pad_of_an_unknown_size_equals_eager_and_checks_the_size_when_run(mode):
    inputs = lamina.Input(batch_shape=(2, None))
    model = lamina.Model(inputs, ops.pad(inputs, ((0, 0), (2, 3)), mode=mode))
    assert model.output_shape == (2, None)
    for n in (4, 7):
        x = np.arange(2 * n, dtype="float32").reshape(2, n)
        np.testing.assert_array_equal(model.predict(x, verbose=0),
                                      ops.pad(x, ((0, 0), (2, 3)), mode=mode).numpy())
    need = 4 if mode == "reflect" else 3
    small = np.zeros((2, need - 1), "float32")
    with pytest.raises(ShapeError, match=rf"pad: mode '{mode}' needs"):
        ops.pad(small, ((0, 0), (2, 3)), mode=mode)
    with pytest.raises(ShapeError, match=rf"pad: mode '{mode}' needs"):
        model.predict(small, verbose=0)


def test_stft_centered_on_an_unknown_number_of_samples_equals_eager():
    # the fuzzer's finding (unknown-size seeds 20, 54, 146): the reflect pad of
    # center=True needed a known length; Keras gives (None, None, bins)
    inputs = lamina.Input(batch_shape=(None, None))
    real, imag = ops.stft(inputs, 8, 4, 8)
    assert real.shape == (None, None, 5)
    model = lamina.Model(inputs, [real, imag])
    x = np.random.default_rng(1).random((2, 19)).astype("float32")
    for got, want in zip(model.predict(x, verbose=0), ops.stft(x, 8, 4, 8)):
        np.testing.assert_allclose(got, want.numpy(), rtol=1e-6, atol=1e-6)
