"""``RemoteMonitor``: POST each epoch's logs to an HTTP server (Keras 3's
``keras.callbacks.RemoteMonitor``): sent with ``requests.post`` as Keras does when
``requests`` is installed, else with the standard library's urllib."""
from __future__ import annotations

import json
import urllib.error
import urllib.parse
import urllib.request
import warnings

from ..registry import register_builtin
from .callback import Callback


@register_builtin
class RemoteMonitor(Callback):
    """Send the epoch results to a server.

    At the end of each epoch, POSTs ``{"epoch": epoch, **logs}`` to ``root + path``. A
    server that cannot be reached gives a warning, and training goes on.

    Args:
        root: The server's root URL. Defaults to ``"http://localhost:9000"``.
        path: The path on the server the events are sent to. Defaults to
            ``"/publish/epoch/end/"``.
        field: The form field that holds the JSON text of the logs (when not
            ``send_as_json``). Defaults to ``"data"``.
        headers: A dict of extra HTTP headers, or ``None``.
        send_as_json: If ``True``, send an ``application/json`` body instead of a form.

    Example:

    >>> monitor = RemoteMonitor(root="http://localhost:9000", send_as_json=True)
    >>> model.fit(x, y, epochs=5, callbacks=[monitor])
    """

    _keras_module = "keras.callbacks"

    def __init__(self, root="http://localhost:9000", path="/publish/epoch/end/",
                 field="data", headers=None, send_as_json=False):
        super().__init__()
        self.root = root
        self.path = path
        self.field = field
        self.headers = headers
        self.send_as_json = send_as_json

    def on_epoch_end(self, epoch, logs=None):
        send = {"epoch": epoch}
        for key, value in (logs or {}).items():
            send[key] = value.item() if hasattr(value, "item") else value   # array scalars
        url = self.root + self.path
        try:
            import requests
        except ImportError:
            requests = None
        if requests is not None:            # as Keras: json= or a form, headers as given
            try:
                if self.send_as_json:
                    requests.post(url, json=send, headers=self.headers)
                else:
                    requests.post(url, {self.field: json.dumps(send)}, headers=self.headers)
            except requests.exceptions.RequestException:
                self._warn_unreachable()
            return
        self._post_with_urllib(url, send)

    def _post_with_urllib(self, url, send):
        if self.send_as_json:
            body = json.dumps(send).encode("utf-8")
            content_type = "application/json"
        else:
            body = urllib.parse.urlencode({self.field: json.dumps(send)}).encode("utf-8")
            content_type = "application/x-www-form-urlencoded"
        headers = {"Content-Type": content_type, **(self.headers or {})}
        request = urllib.request.Request(url, data=body, headers=headers, method="POST")
        try:
            with urllib.request.urlopen(request) as response:
                response.read()
        except urllib.error.HTTPError:       # the server answered (as requests, no raise)
            pass
        except (urllib.error.URLError, OSError, ValueError):
            self._warn_unreachable()

    def _warn_unreachable(self):
        warnings.warn(f"Could not reach RemoteMonitor root server at {self.root}",
                      stacklevel=3)

    def get_config(self) -> dict:
        return {"root": self.root, "path": self.path, "field": self.field,
                "headers": self.headers, "send_as_json": self.send_as_json}

    @classmethod
    def from_config(cls, config: dict) -> "RemoteMonitor":
        return cls(**config)
