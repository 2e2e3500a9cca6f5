"""``TensorBoard(embeddings_freq=N)``: the Projector's files for every ``Embedding`` layer.

Keras writes a TensorFlow checkpoint that the Projector reads through TensorFlow; here
each embedding matrix is written as a TSV (``<log_dir>/train/embeddings/<layer>.tsv``, one
row per token) and ``<log_dir>/train/projector_config.pbtxt`` names it with
``tensor_path``, which the Projector reads with no TensorFlow. The config goes in the
``train`` run, not in ``log_dir`` as Keras's does, so that the Projector finds it also when
TensorBoard is started on a folder above ``log_dir`` (one sub-folder per experiment).
``embeddings_metadata`` (one file name for every layer, or layer name -> file name)
becomes each entry's ``metadata_path``; a relative name is relative to ``log_dir``, as in
Keras.
"""
from __future__ import annotations

import os

from ..layers.core.embedding import Embedding

CONFIG_NAME = "projector_config.pbtxt"


def _quoted(text: str) -> str:
    return '"' + str(text).replace("\\", "\\\\").replace('"', '\\"') + '"'


class ProjectorWriter:
    def __init__(self, log_dir: str, model, metadata):
        self.log_dir = log_dir
        self.run_dir = os.path.join(log_dir, "train")
        self.layers = [layer for layer in _all_layers(model) if isinstance(layer, Embedding)]
        names = {layer.name for layer in self.layers}
        if isinstance(metadata, dict):
            unknown = sorted(set(metadata) - names)
            if unknown:
                raise ValueError(f"TensorBoard: argument 'embeddings_metadata' names "
                                 f"{unknown}, which are not Embedding layers of "
                                 f"{model.name}; its Embedding layers are {sorted(names)}")
        self.metadata = metadata

    def metadata_path(self, layer) -> str | None:
        path = self.metadata if isinstance(self.metadata, str) else \
            self.metadata.get(layer.name) if isinstance(self.metadata, dict) else None
        if path is None or os.path.isabs(path):
            return path
        return os.path.relpath(os.path.join(self.log_dir, path), self.run_dir)

    def write(self, epoch: int) -> None:
        """Write every embedding matrix and the config (the latest epoch's values)."""
        folder = os.path.join(self.run_dir, "embeddings")
        os.makedirs(folder, exist_ok=True)
        entries = []
        for layer in self.layers:
            values = layer.embeddings.numpy()
            relative = f"embeddings/{layer.name}.tsv"
            with open(os.path.join(self.run_dir, relative), "w") as f:
                for row in values.reshape(values.shape[0], -1).tolist():
                    f.write("\t".join(repr(float(v)) for v in row) + "\n")
            lines = ["embeddings {", f"  tensor_name: {_quoted(layer.name + '/embeddings')}",
                     f"  tensor_path: {_quoted(relative)}"]
            lines += [f"  tensor_shape: {int(d)}" for d in values.shape[:2]]
            metadata = self.metadata_path(layer)
            if metadata is not None:
                lines.append(f"  metadata_path: {_quoted(metadata)}")
            entries.append("\n".join(lines + ["}"]))
        with open(os.path.join(self.run_dir, CONFIG_NAME), "w") as f:
            f.write("\n".join(entries) + ("\n" if entries else ""))


def _all_layers(model) -> list:
    """Every layer of ``model``, nested models' layers included, in order."""
    found, stack = [], list(reversed(getattr(model, "layers", [])))
    while stack:
        layer = stack.pop()
        found.append(layer)
        stack.extend(reversed(getattr(layer, "layers", []) or []))
    return found
