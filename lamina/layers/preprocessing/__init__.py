"""Preprocessing layers."""
from .normalization import Normalization
from .rescaling import Rescaling

__all__ = ["Normalization", "Rescaling"]

from .category_encoding import CategoryEncoding  # noqa: E402
from .discretization import Discretization  # noqa: E402

__all__ += ["CategoryEncoding", "Discretization"]
