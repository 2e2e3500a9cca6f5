"""Configs of the layers a recurrent layer or wrapper owns (cells, wrapped layers).

They are stored without ``build_config``: the owner builds them itself, under its own name
(so weight paths read ``bidirectional/forward_lstm/lstm_cell/kernel``), and an owner's
config stays the same before and after it is built.
"""
from __future__ import annotations

from ...registry import deserialize_keras_object, serialize_keras_object


def serialize_sublayer(layer) -> dict:
    config = serialize_keras_object(layer)
    if isinstance(config, dict):
        config.pop("build_config", None)
    return config


def deserialize_sublayer(config, custom_objects=None):
    if isinstance(config, dict):
        config = {k: v for k, v in config.items() if k != "build_config"}
    return deserialize_keras_object(config, custom_objects, kind="layer")
