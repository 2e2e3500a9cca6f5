"""Typed errors of the saving code. Each message names the file, and for weights the
layer, the weight and the expected and found shapes."""
from __future__ import annotations

from ..errors import LaminaError


class SavingError(LaminaError, ValueError):
    """A model file cannot be written or read as asked."""


class FileFormatError(SavingError):
    """The path's extension names a format Lamina does not write or read there."""


class LegacyFormatError(FileFormatError, NotImplementedError):
    """A legacy Keras HDF5 (``.h5``/``.hdf5``) full-model or weights file: not yet supported."""


class CorruptFileError(SavingError):
    """The file exists but is empty, truncated or not the format its name says."""


class WeightMismatchError(SavingError):
    """The file's weights do not fit the model (count or shape)."""


class SavedFileNotFoundError(LaminaError, FileNotFoundError, ValueError):
    """There is no file at the path given to a load function (a ValueError too, as
    Keras 3 raises)."""


class SavedFileExistsError(LaminaError, FileExistsError):
    """``overwrite=False`` and the target file already exists."""


class FileWriteError(LaminaError, OSError):
    """The system refused to write a model file: disk full, file too large, read-only,
    not a folder, name too long, ... ``errno`` is the cause's, ``filename`` the path the
    user asked for (never the temporary file's)."""

    def __init__(self, message: str, errno: int | None = None, filename: str | None = None):
        super().__init__(message)
        self.errno, self.filename = errno, filename

    def __str__(self) -> str:
        return self.args[0]


def legacy_error(filepath: str, what: str) -> LegacyFormatError:
    return LegacyFormatError(
        f"{what}: '{filepath}' is a legacy Keras HDF5 file (.h5/.hdf5), which Lamina does "
        f"not read or write yet; use the Keras 3 formats instead: '.keras' for a whole "
        f"model (model.save / load_model) or '.weights.h5' for weights only "
        f"(model.save_weights / load_weights)")


def naming_file(exc: LaminaError, filepath: str, hint: str = "") -> LaminaError:
    """The same error, its message prefixed with the file it came from."""
    if filepath in str(exc) and not hint:
        return exc
    try:
        return type(exc)(f"cannot load '{filepath}': {exc}{hint}")
    except TypeError:                   # an error class with another constructor
        return SavingError(f"cannot load '{filepath}': {type(exc).__name__}: {exc}{hint}")
