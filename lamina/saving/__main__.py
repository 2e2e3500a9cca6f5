"""``python -m lamina.saving PATH [PATH ...]``: print what saved model files hold (layers,
output shapes, parameter counts, weight shapes) without building the models."""
from __future__ import annotations

import argparse
import sys

from ..errors import LaminaError
from .describe import describe


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m lamina.saving",
        description="Describe saved model files (.keras, .weights.h5, legacy .h5) without "
                    "building the models.")
    parser.add_argument("paths", nargs="+", metavar="PATH", help="a model or weights file")
    args = parser.parse_args(argv)
    status = 0
    for i, path in enumerate(args.paths):
        if i:
            print()
        try:
            describe(path)
        except (LaminaError, OSError) as exc:
            print(f"error: {exc}", file=sys.stderr)
            status = 1
    return status


if __name__ == "__main__":
    sys.exit(main())
