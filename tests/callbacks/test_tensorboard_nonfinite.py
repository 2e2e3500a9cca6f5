"""TensorBoard with NaN and +-inf weights (issue 23): fit finishes, each histogram bins the
finite values with TensorFlow's bucket edges and leaves NaN/inf out (tf.summary.histogram
turns every edge into NaN instead), one warning names the weight, images show +inf white and
NaN/-inf black; no writer thread stays behind."""
import threading
import warnings

import numpy as np
import pytest

import lamina
from lamina import callbacks, layers
from lamina.callbacks.tensorboard_events import EventWriter, _bucket_edges, gray_image
from lamina.callbacks.tensorboard_file import THREAD_NAME

from .test_tensorboard import decode_png, read

pytest.importorskip("tensorboardX")

FINITE = [-2.5, -0.25, 0.0, 0.5, 1.0, 3.0, 1e30, 7.0, -1e-3]       # 1e30: past 1e20


def poisoned_model():
    model = lamina.Sequential([lamina.Input((4,)), layers.Dense(3, name="head")])
    model.compile(optimizer=lamina.optimizers.SGD(0.0), loss="mse")
    return model


def poison(model):
    kernel = np.array(FINITE + [np.nan, np.inf, -np.inf], "float64").reshape(4, 3)
    model.get_layer("head").kernel.assign(kernel.astype("float32"))


def fit_with_poison(tmp_path, **tensorboard_kwargs):
    model = poisoned_model()
    set_weights = callbacks.LambdaCallback(on_epoch_end=lambda epoch, logs: poison(model))
    board = callbacks.TensorBoard(tmp_path, histogram_freq=1, write_graph=False,
                                  **tensorboard_kwargs)
    x = np.ones((2, 4), "float32")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        history = model.fit(x, np.zeros((2, 3), "float32"), epochs=2, verbose=0,
                            callbacks=[set_weights, board])
    return model, history, [str(w.message) for w in caught if "TensorBoard" in
                            str(w.message)]


def test_histogram_of_nan_and_inf_weights_bins_the_finite_values(tmp_path):
    _, history, messages = fit_with_poison(tmp_path)
    assert len(history.history["loss"]) == 2
    assert messages == ["TensorBoard: weight 'head/kernel' has 1 NaN, 1 +inf and 1 -inf "
                        "values at epoch 0; they are left out of its histogram (9 finite "
                        "values binned)"]
    events = read(tmp_path / "train").Histograms("head/kernel/histogram")
    assert [e.step for e in events] == [0, 1]
    finite = np.array(FINITE, "float32").astype("float64")
    for event in events:
        histogram = event.histogram_value
        assert histogram.num == 9
        assert (histogram.min, histogram.max) == (finite.min(), finite.max())
        assert histogram.sum == pytest.approx(finite.sum())
        assert histogram.sum_squares == pytest.approx(finite @ finite)
        assert sum(histogram.bucket) == 9
        # Each count is that of the finite values up to its right edge.
        for limit, cumulative in zip(histogram.bucket_limit,
                                     np.cumsum(histogram.bucket)):
            assert cumulative == np.sum(finite < limit) or limit == histogram.bucket_limit[-1]
    assert [t for t in threading.enumerate() if t.name == THREAD_NAME] == []


def test_images_of_nan_and_inf_weights(tmp_path):
    fit_with_poison(tmp_path, write_images=True)
    image = read(tmp_path / "train").Images("head/kernel/image")[-1]
    _, _, pixels = decode_png(image.encoded_image_string)
    # (4, 3) is drawn transposed: its last row (nan, +inf, -inf) is the last column.
    assert pixels[:, 3].tolist() == [0, 255, 0]
    assert pixels[0, 0] == 0 and pixels[0, 2] == 255          # -2.5 and 1e30: min and max


def test_a_weight_with_no_finite_value_writes_no_histogram(tmp_path):
    writer = EventWriter(str(tmp_path))
    assert writer.histogram("w", np.array([np.nan, np.inf, np.nan]), 0) == (2, 1, 0)
    assert writer.histogram("v", np.array([1e150, -1e150]), 0) == (0, 0, 0)
    writer.close()
    accumulator = read(tmp_path)
    assert accumulator.Tags()["histograms"] == ["v"]
    histogram = accumulator.Histograms("v")[0].histogram_value
    assert (histogram.num, histogram.min, histogram.max) == (2, -1e150, 1e150)


def test_bucket_edges_end_at_the_largest_double():
    edges = _bucket_edges()
    assert edges[0] == -edges[-1] == -np.finfo(np.float64).max
    assert -edges[1] == edges[-2] == pytest.approx(1e20, rel=0.1) and edges[-2] < 1e20
    assert sorted(edges) == edges and 0.0 in edges


def test_gray_image_of_non_finite_values():
    pixels, height, width = gray_image(np.array([[np.nan, 1.0, np.inf],
                                                 [-np.inf, 3.0, 2.0]]))
    assert (height, width) == (2, 3)
    assert list(pixels) == [0, 0, 255, 0, 255, 128]
    pixels, _, _ = gray_image(np.array([[np.nan, 5.0, np.inf]]))
    assert list(pixels) == [0, 128, 255]
