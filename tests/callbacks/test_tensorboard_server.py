"""TensorBoard(): the logs as ``tensorboard --logdir`` serves them on localhost: its HTTP
data API lists the tags and values, the Graphs plugin has the train graph, and (where a
headless Chromium is installed) the Time Series page shows the loss tag."""
import json
import shutil
import socket
import subprocess
import sys
import time
import urllib.request

import numpy as np
import pytest

import lamina
from lamina import callbacks, layers

pytest.importorskip("tensorboard")
pytest.importorskip("tensorboardX")

STARTUP_SECONDS = 90
# Under pytest-xdist (--dist loadgroup) one worker runs this module, so the server of the
# module fixture starts once.
pytestmark = pytest.mark.xdist_group("tensorboard_server")


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def get(url: str) -> bytes:
    with urllib.request.urlopen(url, timeout=10) as response:
        return response.read()


@pytest.fixture(scope="module")
def served(tmp_path_factory):
    """(base URL, History) of a server on the logs of a short fit."""
    lamina.backend.clear_session()
    lamina.utils.set_random_seed(0)
    log_dir = tmp_path_factory.mktemp("tensorboard_logs")
    model = lamina.Sequential([lamina.Input((4,)), layers.Dense(3, activation="relu"),
                               layers.Dense(2, activation="softmax")])
    model.compile(optimizer="adam", loss="sparse_categorical_crossentropy",
                  metrics=["accuracy"])
    x = np.random.default_rng(0).random((16, 4)).astype("float32")
    history = model.fit(x, np.arange(16) % 2, epochs=2, batch_size=4, verbose=0,
                        validation_split=0.25,
                        callbacks=[callbacks.TensorBoard(log_dir, histogram_freq=1)])
    words = lamina.Sequential([lamina.Input((3,), dtype="int32"),
                               layers.Embedding(6, 2, name="words"),
                               layers.GlobalAveragePooling1D(), layers.Dense(1)])
    words.compile(optimizer="sgd", loss="mse")
    words.fit(np.array([[0, 1, 2], [3, 4, 5]], "int32"), np.zeros((2, 1), "float32"),
              verbose=0, callbacks=[callbacks.TensorBoard(log_dir / "words", write_graph=False,
                                                          embeddings_freq=1)])
    port = free_port()
    server = subprocess.Popen(
        [sys.executable, "-m", "tensorboard.main", "--logdir", str(log_dir),
         "--host", "127.0.0.1", "--port", str(port), "--reload_interval", "1"],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    base = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + STARTUP_SECONDS
        while True:                       # until the scalars of both runs are loaded
            try:
                tags = json.loads(get(f"{base}/data/plugin/scalars/tags"))
                if {"train", "validation"} <= set(tags):
                    break
            except OSError:
                pass
            if server.poll() is not None or time.monotonic() > deadline:
                pytest.fail(f"tensorboard --logdir did not serve the runs within "
                            f"{STARTUP_SECONDS} s (exit code {server.poll()})")
            time.sleep(0.5)
        yield base, history.history, words.get_layer("words").embeddings.numpy()
    finally:
        server.terminate()
        try:
            server.wait(timeout=10)
        except subprocess.TimeoutExpired:
            server.kill()
            server.wait()


def test_scalars_tags_list_the_loss(served):
    base = served[0]
    tags = json.loads(get(f"{base}/data/plugin/scalars/tags"))
    assert {"epoch_loss", "epoch_accuracy", "epoch_learning_rate"} <= set(tags["train"])
    assert {"epoch_loss", "evaluation_loss_vs_iterations"} <= set(tags["validation"])


def test_scalar_values_are_the_history(served):
    base, history = served[:2]
    for run, key in (("train", "loss"), ("validation", "val_loss")):
        rows = json.loads(get(f"{base}/data/plugin/scalars/scalars?run={run}"
                              f"&tag=epoch_loss"))
        assert [step for _, step, _ in rows] == [0, 1]
        assert [value for _, _, value in rows] == pytest.approx(history[key], rel=1e-6)


def test_graphs_plugin_has_the_train_graph(served):
    base = served[0]
    info = json.loads(get(f"{base}/data/plugin/graphs/info"))
    assert info["train"]["run_graph"] is True
    assert info["train"]["tags"]["keras"]["conceptual_graph"] is True
    text = get(f"{base}/data/plugin/graphs/graph?run=train&conceptual=false").decode()
    assert 'name: "dense/dense_bias_act"' in text
    assert 'name: "dense/kernel/assign"' in text


def test_histograms_plugin_lists_the_weights(served):
    base = served[0]
    tags = json.loads(get(f"{base}/data/plugin/histograms/tags"))
    assert "dense/kernel/histogram" in tags["train"]


def _chromium():
    for name in ("chromium", "chromium-browser", "google-chrome", "chrome"):
        path = shutil.which(name)
        if path:
            return path
    return None


def test_browser_page_shows_the_loss_tag(served):
    browser = _chromium()
    if browser is None:
        pytest.skip("no headless Chromium on this machine (apt-get install chromium); the "
                    "HTTP data API tests above cover the served tags")
    base = served[0]
    page = subprocess.run(
        [browser, "--headless", "--no-sandbox", "--disable-gpu",
         "--virtual-time-budget=15000", "--dump-dom", f"{base}/#timeseries"],
        capture_output=True, text=True, timeout=120)
    assert "epoch_loss" in page.stdout, page.stderr[-2000:]
    assert "evaluation_loss_vs_iterations" in page.stdout


def test_projector_serves_the_embedding_matrix(served):
    base, _, embeddings = served
    assert json.loads(get(f"{base}/data/plugin/projector/runs")) == ["words/train"]
    info = json.loads(get(f"{base}/data/plugin/projector/info?run=words/train"))
    assert info["embeddings"][0]["tensorName"] == "words/embeddings"
    assert info["embeddings"][0]["tensorShape"] == [6, 2]
    data = get(f"{base}/data/plugin/projector/tensor?run=words/train&name=words/embeddings")
    np.testing.assert_array_equal(np.frombuffer(data, "<f4").reshape(6, 2),
                                  embeddings.astype("float32"))
