"""Datasets. ``digits`` is embedded in the package, so examples and tests run offline; the
others (Keras's ``keras.datasets``) read the standard files from a path or the cache folder,
downloading them on first use, and say where to put a file when that fails."""
from . import (boston_housing, california_housing, cifar10, cifar100, digits, fashion_mnist,
               imdb, mnist, reuters)
from .files import DatasetFormatError, DatasetUnavailableError, UnsafePickleError

__all__ = ["boston_housing", "california_housing", "cifar10", "cifar100", "digits",
           "fashion_mnist", "imdb", "mnist", "reuters", "DatasetFormatError",
           "DatasetUnavailableError", "UnsafePickleError"]
