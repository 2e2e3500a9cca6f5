"""Importing an optional dependency with an error that names the extra to install."""
from __future__ import annotations

import importlib


def import_optional(module: str, extra: str, what: str):
    """``module`` imported, or an ImportError saying that ``what`` needs
    ``pip install lamina[extra]``. Importing Lamina never imports an optional dependency:
    callers ask for it when the feature is used."""
    try:
        return importlib.import_module(module)
    except ImportError as error:
        raise ImportError(f"{what} needs the optional dependency '{module.split('.')[0]}', "
                          f"which is not installed: pip install lamina[{extra}]") from error
