"""``python -m lamina.export MODEL.keras OUT.onnx [--opset N]``: load a saved model (a
``.keras`` / ``.h5`` file ``lamina.saving.load_model`` reads) and write it as ONNX."""
from __future__ import annotations

import argparse
import sys

from ..errors import LaminaError
from ..saving import load_model


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m lamina.export",
        description="Export a saved Lamina/Keras model to ONNX (needs pip install "
                    "lamina[onnx]).")
    parser.add_argument("model", help="the saved model (.keras or .h5)")
    parser.add_argument("output", help="the ONNX file to write")
    parser.add_argument("--opset", type=int, default=None,
                        help="the ONNX opset version (default 17)")
    parser.add_argument("--quiet", action="store_true", help="print nothing on success")
    args = parser.parse_args(argv)
    try:
        model = load_model(args.model, compile=False)
        model.export(args.output, format="onnx", opset_version=args.opset,
                     verbose=not args.quiet)
    except (LaminaError, ValueError, TypeError, OSError, ImportError) as error:
        print(f"python -m lamina.export: error: {error}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
