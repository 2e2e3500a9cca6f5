"""The legacy .h5 files written by real Keras, and their reference inputs and outputs."""
import pathlib

import numpy as np

FIXTURES = pathlib.Path(__file__).resolve().parent.parent / "fixtures"
KERAS_FILES = sorted([*FIXTURES.glob("keras_files/*_k[23].h5"),
                      *FIXTURES.glob("legacy_h5/*_k[23].h5")])
RESUMED = ("multi_io", "lstm_bi", "gru_v1", "nested", "deferred", "legacy_opt")


def keras_file(name: str) -> pathlib.Path:
    for path in KERAS_FILES:
        if path.stem == name:
            return path
    raise KeyError(name)


def reference(path: pathlib.Path) -> dict:
    data = np.load(path.with_name(f"{path.stem}_ref.npz"))
    return {key: data[key] for key in data.files}


def group(ref: dict, prefix: str):
    """``x0`` alone, or ``[x0, x1, ...]``; the same for ``pred``, ``fit_y``, ..."""
    keys = sorted(k for k in ref if k.startswith(prefix) and k[len(prefix):].isdigit())
    if not keys:
        keys = [prefix] if prefix in ref else []
    values = [ref[k] for k in keys]
    return values[0] if len(values) == 1 else values


def as_list(outputs) -> list:
    return [np.asarray(o) for o in outputs] if isinstance(outputs, (list, tuple)) \
        else [np.asarray(outputs)]
