"""SwapEMAWeights (numbers from Keras 3.15.1, JAX backend, on tiny.py's one-weight model
with SGD(0.1, use_ema=True, ema_momentum=0.5)) and RemoteMonitor against a local server."""
import http.server
import json
import sys
import threading
import urllib.parse
from unittest import mock

import numpy as np
import pytest

import lamina
from lamina import callbacks, optimizers

from .tiny import data, one_weight_model

# Keras: the averages after each step are 0.2, 0.28, 0.384 (raw weights 0.2, 0.36, 0.488);
# validation on y = 0.5 runs with them.
KERAS_VAL_LOSS = [0.09000000357627869, 0.04839999973773956, 0.013455999083817005]
# LambdaCallback weights at on_epoch_begin / on_epoch_end for epochs 0..2
KERAS_SEEN = {False: [0.0, 0.2, 0.2, 0.36, 0.36, 0.488],
              True: [0.0, 0.2, 0.2, 0.28, 0.36, 0.384]}


def _ema_model():
    return one_weight_model(optimizer=optimizers.SGD(0.1, use_ema=True, ema_momentum=0.5))


@pytest.mark.parametrize("run_eagerly", [False, True])
def test_validation_uses_the_moving_averages(run_eagerly):
    model = _ema_model()
    model.compile(optimizer=model.optimizer, loss="mse", run_eagerly=run_eagerly)
    x, y = data()
    history = model.fit(x, y, epochs=3, batch_size=1, verbose=0,
                        validation_data=(x, y * 0.5),
                        callbacks=[callbacks.SwapEMAWeights()])
    np.testing.assert_allclose(history.history["val_loss"], KERAS_VAL_LOSS, rtol=1e-5)
    average = model.optimizer._model_variables_moving_average[0].numpy().item()
    np.testing.assert_allclose(average, 0.384, rtol=1e-5)
    weight = model.weights[0]
    before = weight.numpy().copy()
    loss = model.evaluate(x, y * 0.5, verbose=0, callbacks=[callbacks.SwapEMAWeights()])
    np.testing.assert_allclose(loss, (0.384 - 0.5) ** 2, rtol=1e-5)
    np.testing.assert_array_equal(weight.numpy(), before)          # swapped back
    prediction = model.predict(x, verbose=0, callbacks=[callbacks.SwapEMAWeights()])
    np.testing.assert_allclose(prediction, [[0.384]], rtol=1e-5)
    np.testing.assert_array_equal(weight.numpy(), before)


@pytest.mark.parametrize("swap_on_epoch", [False, True])
def test_swap_on_epoch(swap_on_epoch):
    model = _ema_model()
    x, y = data()
    seen = []
    record = callbacks.LambdaCallback(
        on_epoch_begin=lambda e, l: seen.append(model.weights[0].numpy().item()),
        on_epoch_end=lambda e, l: seen.append(model.weights[0].numpy().item()))
    model.fit(x, y, epochs=3, batch_size=1, verbose=0,
              callbacks=[callbacks.SwapEMAWeights(swap_on_epoch=swap_on_epoch), record])
    np.testing.assert_allclose(seen, KERAS_SEEN[swap_on_epoch], rtol=1e-5, atol=1e-7)
    if swap_on_epoch:         # after the last epoch the averages are in both places
        np.testing.assert_allclose(
            model.optimizer._model_variables_moving_average[0].numpy().item(), 0.384,
            rtol=1e-5)


def test_needs_use_ema():
    model = one_weight_model()
    x, y = data()
    with pytest.raises(ValueError, match=r"SwapEMAWeights must be used when `use_ema=True` "
                                         r"is set on the optimizer. Received: use_ema=False"):
        model.fit(x, y, epochs=1, verbose=0, validation_data=(x, y),
                  callbacks=[callbacks.SwapEMAWeights()])


def test_swap_ema_config_round_trip():
    config = callbacks.serialize(callbacks.SwapEMAWeights(swap_on_epoch=True))
    assert config["config"] == {"swap_on_epoch": True}
    assert callbacks.deserialize(config).swap_on_epoch is True


# ------------------------------------------------------------------ RemoteMonitor
class _Server:
    def __init__(self):
        received = self.received = []

        class Handler(http.server.BaseHTTPRequestHandler):
            def do_POST(self):
                body = self.rfile.read(int(self.headers["Content-Length"]))
                received.append((self.path, dict(self.headers), body.decode("utf-8")))
                self.send_response(200)
                self.end_headers()

            def log_message(self, *args):
                pass
        self.httpd = http.server.HTTPServer(("127.0.0.1", 0), Handler)
        self.root = f"http://127.0.0.1:{self.httpd.server_address[1]}"
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)

    def __enter__(self):
        self.thread.start()
        return self

    def __exit__(self, *exc):
        self.httpd.shutdown()
        self.httpd.server_close()


def test_posts_each_epoch_as_a_form():
    model = one_weight_model()
    x, y = data()
    with _Server() as server:
        model.fit(x, y, epochs=2, batch_size=1, verbose=0,
                  callbacks=[callbacks.RemoteMonitor(root=server.root, headers={"X-Run": "7"})])
    assert len(server.received) == 2
    path, headers, body = server.received[1]
    assert path == "/publish/epoch/end/"
    assert headers["Content-Type"] == "application/x-www-form-urlencoded"
    assert headers["X-Run"] == "7"
    sent = json.loads(urllib.parse.parse_qs(body)["data"][0])
    assert sent["epoch"] == 1
    np.testing.assert_allclose(sent["loss"], 0.64, rtol=1e-5)


def test_posts_json_with_numpy_scalars():
    monitor = callbacks.RemoteMonitor(path="/epochs", send_as_json=True, field="unused")
    with _Server() as server:
        monitor.root = server.root
        monitor.on_epoch_end(3, {"loss": np.float32(0.5), "acc": np.array(0.25), "n": 2})
    path, headers, body = server.received[0]
    assert path == "/epochs" and headers["Content-Type"] == "application/json"
    assert json.loads(body) == {"epoch": 3, "loss": 0.5, "acc": 0.25, "n": 2}


def test_unreachable_server_warns():
    with _Server() as server:
        root = server.root                      # a port that is closed after the block
    monitor = callbacks.RemoteMonitor(root=root)
    with pytest.warns(UserWarning, match=f"Could not reach RemoteMonitor root server at "
                                         f"{root}"):
        monitor.on_epoch_end(0, {"loss": 1.0})


def test_remote_monitor_defaults_and_config():
    config = callbacks.RemoteMonitor().get_config()
    assert config == {"root": "http://localhost:9000", "path": "/publish/epoch/end/",
                      "field": "data", "headers": None, "send_as_json": False}
    restored = callbacks.deserialize(callbacks.serialize(callbacks.RemoteMonitor(
        root="http://h:1", send_as_json=True)))
    assert restored.root == "http://h:1" and restored.send_as_json is True


def test_posts_with_requests_when_installed():
    requests = pytest.importorskip("requests")
    monitor = callbacks.RemoteMonitor(send_as_json=True)
    with mock.patch.object(requests, "post") as post:
        monitor.on_epoch_end(0, {"loss": 0.0, "val": np.arange(1)})
    post.assert_called_once_with("http://localhost:9000/publish/epoch/end/",
                                 json={"epoch": 0, "loss": 0.0, "val": 0}, headers=None)
    form = callbacks.RemoteMonitor(field="f", headers={"X": "1"})
    with mock.patch.object(requests, "post") as post:
        form.on_epoch_end(2, {"loss": np.float32(1.5)})
    post.assert_called_once_with("http://localhost:9000/publish/epoch/end/",
                                 {"f": '{"epoch": 2, "loss": 1.5}'}, headers={"X": "1"})


def test_falls_back_to_urllib_without_requests(monkeypatch):
    monkeypatch.setitem(sys.modules, "requests", None)      # `import requests` now fails
    monitor = callbacks.RemoteMonitor(send_as_json=True)
    with _Server() as server:
        monitor.root = server.root
        monitor.on_epoch_end(1, {"loss": 0.25})
    path, headers, body = server.received[0]
    assert headers["Content-Type"] == "application/json"
    assert json.loads(body) == {"epoch": 1, "loss": 0.25}


def test_fit_ends_with_the_moving_averages():
    # Keras 3.15.1 (JAX and TF): 0.384 after a fit; 0.36 (the raw weight, average 0.28)
    # when a callback's error ends the fit.
    model = _ema_model()
    x, y = data()
    model.fit(x, y, epochs=3, batch_size=1, verbose=0)
    np.testing.assert_allclose(model.weights[0].numpy().item(), 0.384, rtol=1e-6)

    class Boom(callbacks.Callback):
        def on_epoch_end(self, epoch, logs=None):
            if epoch == 1:
                raise RuntimeError("boom")
    model = _ema_model()
    with pytest.raises(RuntimeError, match="boom"):
        model.fit(x, y, epochs=3, batch_size=1, verbose=0, callbacks=[Boom()])
    np.testing.assert_allclose(model.weights[0].numpy().item(), 0.36, rtol=1e-6)
    np.testing.assert_allclose(
        model.optimizer._model_variables_moving_average[0].numpy().item(), 0.28, rtol=1e-6)


def test_fit_end_skips_variables_the_optimizer_does_not_train():
    # the optimizer was built with the kernel only: a frozen bias keeps its value
    model = lamina.Sequential([lamina.Input((1,)), lamina.layers.Dense(
        1, kernel_initializer="zeros", bias_initializer="ones")])
    model.layers[0].bias.trainable = False
    model.compile(optimizer=optimizers.SGD(0.1, use_ema=True, ema_momentum=0.5), loss="mse")
    x, y = data()
    model.fit(x, y + 1.0, epochs=2, batch_size=1, verbose=0)
    kernel, bias = model.get_weights()
    # Keras 3.15.1: [[0.28]] and [1.0] (raw kernel 0.36; averages 0.2, then 0.28)
    np.testing.assert_allclose(bias, [1.0])
    np.testing.assert_allclose(kernel, [[0.2800000011920929]], rtol=1e-6)
