"""TensorBoard: the event files, read back with the tensorboard package's reader, hold
Keras's runs, tags and values (scalars equal to the History; histograms; images)."""
import struct
import zlib

import numpy as np
import pytest

import lamina
from lamina import callbacks, layers
from lamina.core import ignored_arguments

from .tiny import LOSSES, VAL_LOSSES, fit, one_weight_model

event_accumulator = pytest.importorskip(
    "tensorboard.backend.event_processing.event_accumulator")
pytest.importorskip("tensorboardX")


def read(run_dir):
    accumulator = event_accumulator.EventAccumulator(
        str(run_dir), size_guidance={"scalars": 0, "histograms": 0, "images": 0,
                                     "tensors": 0})
    accumulator.Reload()
    return accumulator


def scalars(accumulator, tag):
    return [(e.step, e.value) for e in accumulator.Scalars(tag)]


def assert_scalars(accumulator, tag, expected, rel=1e-6):
    """The (step, value) pairs of ``tag``: steps exactly, values to ``rel``."""
    got = scalars(accumulator, tag)
    assert [step for step, _ in got] == [step for step, _ in expected], tag
    assert [value for _, value in got] == pytest.approx([v for _, v in expected], rel=rel)


def dense_model(optimizer="sgd"):
    model = lamina.Sequential([lamina.Input((4,)), layers.Dense(3, activation="relu"),
                               layers.Dense(2, activation="softmax")])
    model.compile(optimizer=optimizer, loss="sparse_categorical_crossentropy",
                  metrics=["accuracy"])
    return model


def dense_data(n=16):
    rng = np.random.default_rng(0)
    return rng.random((n, 4)).astype("float32"), np.arange(n) % 2


def test_epoch_scalars_are_the_history_in_train_and_validation_runs(tmp_path):
    model = one_weight_model(learning_rate=0.1)
    history = fit(model, 4, [callbacks.TensorBoard(tmp_path)], validate=True)
    train, validation = read(tmp_path / "train"), read(tmp_path / "validation")
    assert sorted(train.Tags()["scalars"]) == ["epoch_learning_rate", "epoch_loss"]
    assert sorted(validation.Tags()["scalars"]) == ["epoch_loss",
                                                    "evaluation_loss_vs_iterations"]
    # The hand-computed losses of tiny.py: 0.64**k, and (w_after - 0.5)**2.
    assert_scalars(train, "epoch_loss", list(enumerate(LOSSES[:4])))
    assert [v for _, v in scalars(train, "epoch_loss")] == \
        pytest.approx(history.history["loss"], rel=1e-7)
    assert_scalars(train, "epoch_learning_rate", [(k, 0.1) for k in range(4)])
    assert_scalars(validation, "epoch_loss", list(enumerate(VAL_LOSSES[:4])),
                   rel=2e-5)
    assert [v for _, v in scalars(validation, "epoch_loss")] == \
        pytest.approx(history.history["val_loss"], rel=1e-7)
    # After each validation: the same values against the optimizer's iterations (1/epoch).
    assert_scalars(validation, "evaluation_loss_vs_iterations",
                   [(k + 1, VAL_LOSSES[k]) for k in range(4)], rel=2e-5)
    assert not (tmp_path / "train" / "projector_config.pbtxt").exists()


def test_metrics_get_epoch_tags(tmp_path):
    model = dense_model()
    x, y = dense_data()
    history = model.fit(x, y, epochs=2, batch_size=4, verbose=0, shuffle=False,
                        validation_data=(x[:8], y[:8]),
                        callbacks=[callbacks.TensorBoard(tmp_path)])
    train, validation = read(tmp_path / "train"), read(tmp_path / "validation")
    for run, prefix in ((train, ""), (validation, "val_")):
        for name in ("loss", "accuracy"):
            assert_scalars(run, f"epoch_{name}",
                           list(enumerate(history.history[prefix + name])))
    assert [v for _, v in scalars(validation, "evaluation_accuracy_vs_iterations")] == \
        pytest.approx(history.history["val_accuracy"], rel=1e-6)
    assert [s for s, _ in scalars(validation, "evaluation_loss_vs_iterations")] == [4, 8]


@pytest.mark.parametrize("update_freq, steps", [("batch", [1, 2, 3, 4, 5, 6, 7, 8]),
                                                (3, [3, 6]), ("epoch", [])])
def test_batch_scalars_follow_update_freq(tmp_path, update_freq, steps):
    model = dense_model()
    x, y = dense_data()
    seen = []
    record = callbacks.LambdaCallback(
        on_train_batch_end=lambda batch, logs: seen.append(dict(logs)))
    model.fit(x, y, epochs=2, batch_size=4, verbose=0, shuffle=False,
              callbacks=[record, callbacks.TensorBoard(tmp_path, update_freq=update_freq)])
    train = read(tmp_path / "train")
    batch_tags = sorted(t for t in train.Tags()["scalars"] if t.startswith("batch_"))
    if not steps:
        assert batch_tags == []
        return
    assert batch_tags == ["batch_accuracy", "batch_loss"]
    for name in ("loss", "accuracy"):
        assert_scalars(train, f"batch_{name}", [(s, seen[s - 1][name]) for s in steps])


def test_steps_per_second(tmp_path):
    model = dense_model()
    x, y = dense_data()
    model.fit(x, y, epochs=2, batch_size=4, verbose=0, callbacks=[
        callbacks.TensorBoard(tmp_path, write_steps_per_second=True, update_freq=2)])
    train = read(tmp_path / "train")
    per_epoch = scalars(train, "epoch_steps_per_second")
    per_batch = scalars(train, "batch_steps_per_second")
    assert [s for s, _ in per_epoch] == [0, 1] and all(v > 0 for _, v in per_epoch)
    assert [s for s, _ in per_batch] == [2, 4, 6, 8] and all(v > 0 for _, v in per_batch)


def test_weight_histograms_every_histogram_freq_epochs(tmp_path):
    model = dense_model()
    x, y = dense_data()
    model.fit(x, y, epochs=3, batch_size=8, verbose=0,
              callbacks=[callbacks.TensorBoard(tmp_path, histogram_freq=2)])
    train = read(tmp_path / "train")
    paths = ["dense/kernel", "dense/bias", "dense_1/kernel", "dense_1/bias"]
    assert sorted(train.Tags()["histograms"]) == sorted(f"{p}/histogram" for p in paths)
    assert train.Tags()["images"] == []
    for weight in model.weights:
        events = train.Histograms(f"{weight.path}/histogram")
        assert [e.step for e in events] == [0, 2]
        last, values = events[-1].histogram_value, weight.numpy()     # after epoch 2
        assert last.num == values.size
        assert last.min == pytest.approx(values.min()) and \
            last.max == pytest.approx(values.max())
        assert last.sum == pytest.approx(values.sum(), abs=1e-6)


def decode_png(data):
    """(height, width, pixels) of an 8-bit grayscale PNG without filters."""
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    width, height, depth, color = struct.unpack(">IIBB", data[16:26])
    assert (depth, color) == (8, 0)
    idat = data.index(b"IDAT")
    length = struct.unpack(">I", data[idat - 4:idat])[0]
    raw = zlib.decompress(data[idat + 4:idat + 4 + length])
    rows = [raw[r * (width + 1) + 1:(r + 1) * (width + 1)] for r in range(height)]
    return height, width, np.frombuffer(b"".join(rows), np.uint8).reshape(height, width)


def test_kernel_images(tmp_path):
    model = lamina.Sequential([lamina.Input((5, 5, 1)),
                               layers.Conv2D(2, 3, name="conv"), layers.Flatten(),
                               layers.Dense(3, name="head")])
    model.compile(optimizer="sgd", loss="mse")
    x = np.random.default_rng(1).random((4, 5, 5, 1)).astype("float32")
    model.fit(x, np.zeros((4, 3), "float32"), epochs=1, verbose=0, callbacks=[
        callbacks.TensorBoard(tmp_path, histogram_freq=1, write_images=True,
                              write_graph=False)])
    train = read(tmp_path / "train")
    assert sorted(train.Tags()["images"]) == ["conv/bias/image", "conv/kernel/image",
                                              "head/bias/image", "head/kernel/image"]
    sizes = {}
    for tag in train.Tags()["images"]:
        image = train.Images(tag)[0]
        height, width, pixels = decode_png(image.encoded_image_string)
        assert (image.height, image.width) == (height, width)
        sizes[tag] = (height, width)
        if tag == "head/kernel/image":     # (18, 3): the longer side across, min..max
            kernel = model.get_layer("head").kernel.numpy().T
            expected = (kernel - kernel.min()) * 255 / (kernel.max() - kernel.min())
            np.testing.assert_array_equal(pixels, (expected + 0.5).astype(np.uint8))
    # Conv kernel (3, 3, 1, 2) -> its 2 filters side by side; biases one row.
    assert sizes == {"conv/kernel/image": (3, 6), "conv/bias/image": (1, 2),
                     "head/kernel/image": (3, 18), "head/bias/image": (1, 3)}


def test_evaluate_alone_writes_the_evaluation_scalars(tmp_path):
    model = one_weight_model()
    fit(model, 2, [])
    x, y = np.ones((1, 1), "float32"), np.full((1, 1), 0.5, "float32")
    loss = model.evaluate(x, y, verbose=0, callbacks=[callbacks.TensorBoard(tmp_path)])
    validation = read(tmp_path / "validation")
    assert_scalars(validation, "evaluation_loss_vs_iterations", [(2, loss)])
    assert loss == pytest.approx(VAL_LOSSES[1], rel=1e-6)


def test_embeddings_projector_files(tmp_path):
    model = lamina.Sequential([lamina.Input((3,), dtype="int32"),
                               layers.Embedding(6, 2, name="words"),
                               layers.GlobalAveragePooling1D(), layers.Dense(1)])
    model.compile(optimizer="sgd", loss="mse")
    x = np.array([[0, 1, 2], [3, 4, 5]], "int32")
    model.fit(x, np.zeros((2, 1), "float32"), epochs=2, verbose=0, callbacks=[
        callbacks.TensorBoard(tmp_path, embeddings_freq=1,
                              embeddings_metadata={"words": "words.tsv"})])
    assert not (tmp_path / "projector_config.pbtxt").exists()
    config = (tmp_path / "train" / "projector_config.pbtxt").read_text()
    assert config == ('embeddings {\n  tensor_name: "words/embeddings"\n'
                      '  tensor_path: "embeddings/words.tsv"\n  tensor_shape: 6\n'
                      '  tensor_shape: 2\n  metadata_path: "../words.tsv"\n}\n')
    rows = (tmp_path / "train" / "embeddings" / "words.tsv").read_text().splitlines()
    values = np.array([[float(v) for v in row.split("\t")] for row in rows])
    np.testing.assert_array_equal(values, model.get_layer("words").embeddings.numpy())


def test_embeddings_metadata_names_unknown_layers(tmp_path):
    model = dense_model()
    x, y = dense_data()
    with pytest.raises(ValueError, match=r"'embeddings_metadata' names \['words'\], which "
                                         r"are not Embedding layers"):
        model.fit(x, y, epochs=1, verbose=0, callbacks=[callbacks.TensorBoard(
            tmp_path, embeddings_freq=1, embeddings_metadata={"words": "w.tsv"})])


def test_embeddings_freq_without_embedding_layer_warns(tmp_path):
    model = dense_model()
    x, y = dense_data()
    ignored_arguments._warned.discard(("TensorBoard", "embeddings_freq"))
    with pytest.warns(UserWarning, match="'embeddings_freq'.*has no Embedding layer"):
        model.fit(x, y, epochs=1, verbose=0,
                  callbacks=[callbacks.TensorBoard(tmp_path, embeddings_freq=1)])


def test_learning_rate_follows_the_optimizer(tmp_path):
    model = one_weight_model(learning_rate=0.1)
    schedule = callbacks.LearningRateScheduler(lambda epoch, lr: 0.1 / (epoch + 1))
    fit(model, 3, [schedule, callbacks.TensorBoard(tmp_path)])
    assert_scalars(read(tmp_path / "train"), "epoch_learning_rate",
                   [(0, 0.1), (1, 0.05), (2, 0.1 / 3)])
