"""Datasets. ``digits`` is embedded in the package, so examples and tests run offline;
``mnist`` and ``cifar10`` read the standard files from disk, downloading them on first use."""
from . import cifar10, digits, mnist
from .files import DatasetFormatError, DatasetUnavailableError, UnsafePickleError

__all__ = ["cifar10", "digits", "mnist", "DatasetFormatError", "DatasetUnavailableError",
           "UnsafePickleError"]
