"""Datasets. ``digits`` is embedded in the package, so examples and tests run offline."""
from . import digits

__all__ = ["digits"]
