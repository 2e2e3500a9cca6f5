"""Restore the VGG digits model from its .keras file, evaluate it, and keep training it.

    python examples/restore_and_predict.py --model out/vgg_digits.keras
    python examples/restore_and_predict.py --smoke      # trains one first, for CI

The file is the one ``examples/vgg_digits.py --out out`` writes (``out/vgg_digits.keras``).
Without ``--model`` this script first runs ``vgg_digits.py --smoke --out <a temporary
folder>`` to make one. The model comes back with its weights, its compile arguments and its
optimizer's state (Adam's moments and step count), so ``fit`` continues where the first
run stopped rather than starting the optimizer over.
"""
import argparse
import os
import subprocess
import sys
import tempfile

import numpy as np

import lamina as keras

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from vgg_digits import load_digits  # noqa: E402  (the same data and preprocessing)


def train_a_model_first() -> str:
    """Run the VGG digits example in its quick mode; the path of the model it saves."""
    out = tempfile.mkdtemp(prefix="vgg_digits_")
    command = [sys.executable, os.path.join(HERE, "vgg_digits.py"), "--smoke", "--out", out]
    print(f"no --model given: training one with {' '.join(command[1:])}", flush=True)
    result = subprocess.run(command, capture_output=True, text=True)
    if result.returncode != 0:
        raise SystemExit(f"vgg_digits.py failed:\n{result.stdout}{result.stderr}")
    return os.path.join(out, "vgg_digits.keras")


def main(argv=None) -> float:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model", default=None,
                        help="a .keras file saved by vgg_digits.py (default: train one)")
    parser.add_argument("--epochs", type=int, default=1, help="epochs to continue for")
    parser.add_argument("--batch-size", type=int, default=16)
    parser.add_argument("--backend", default=None, help="numpy or cupy")
    parser.add_argument("--smoke", action="store_true", help="a quick run for CI")
    args = parser.parse_args(argv)
    if args.backend:
        keras.backend.set_backend(args.backend)
    keras.utils.set_random_seed(2)
    path = args.model or train_a_model_first()
    if not os.path.exists(path):
        raise SystemExit(f"no model file at {path!r}; run examples/vgg_digits.py --out DIR "
                         f"and pass --model DIR/vgg_digits.keras")

    model = keras.models.load_model(path)
    model.summary()
    (x_train, y_train), (x_test, y_test) = load_digits(args.smoke)
    loss, accuracy = model.evaluate(x_test, y_test, verbose=0)
    steps = int(np.asarray(model.optimizer.iterations.numpy()))
    print(f"restored {path}: test accuracy {accuracy:.4f} (loss {loss:.4f}); the "
          f"optimizer resumes at step {steps}")

    model.fit(x_train, y_train, batch_size=args.batch_size, epochs=args.epochs,
              verbose=2 if args.smoke else "auto")
    loss, accuracy = model.evaluate(x_test, y_test, verbose=0)
    steps = int(np.asarray(model.optimizer.iterations.numpy()))
    print(f"after {args.epochs} more epoch(s): test accuracy {accuracy:.4f} "
          f"(loss {loss:.4f}); optimizer step {steps}")
    return accuracy


if __name__ == "__main__":
    main()
