"""The saving methods of ``Model`` (Keras 3's names and arguments), as a mixin:
``class Model(SavingMixin, Trainer, Layer)``. Each is a thin call into :mod:`.saving_api`."""
from __future__ import annotations

import json
from .saving_api import save_model
from .saving_api import save_weights
from .saving_api import load_weights
from .keras_archive import _json_default, model_config
from .compile_config import get_compile_config


class SavingMixin:
    """``save`` / ``save_weights`` / ``load_weights`` / ``to_json`` and the compile-config
    pair Keras 3 models have."""

    def save(self, filepath, overwrite: bool = True, zipped: bool | None = None,
             **kwargs) -> None:
        """Save the whole model to a ``.keras`` file (see ``lamina.saving.save_model``)."""
        save_model(self, filepath, overwrite=overwrite, zipped=zipped, **kwargs)

    def save_weights(self, filepath, overwrite: bool = True, max_shard_size=None) -> None:
        """Save the weights and optimizer state to a ``.weights.h5`` file."""
        save_weights(self, filepath, overwrite=overwrite, max_shard_size=max_shard_size)

    def load_weights(self, filepath, skip_mismatch: bool = False, **kwargs):
        """Load weights from a ``.weights.h5``, ``.keras`` or legacy ``.h5`` file, all or
        nothing; returns the report of what matched (for legacy ``.h5`` files)."""
        return load_weights(self, filepath, skip_mismatch=skip_mismatch, **kwargs)

    def to_json(self, **kwargs) -> str:
        """The model's config (and compile config) as a JSON string; ``kwargs`` go to
        ``json.dumps``. ``lamina.saving.model_from_json`` reads it back."""
        kwargs.setdefault("default", _json_default)
        return json.dumps(model_config(self), **kwargs)

    def get_compile_config(self) -> dict:
        """The arguments ``compile`` was called with, serialized (``{}`` if not compiled,
        as Keras 3 returns)."""
        config = get_compile_config(self)
        return {} if config is None else config
