"""Softmax regression on the embedded digits, trained with GradientTape and plain SGD.

    python examples/linear_digits.py            # 30 epochs, prints test accuracy
    python examples/linear_digits.py --smoke    # 5 epochs, checks accuracy > 0.85 (CI)

It shows the eager core on its own: tensors, variables, a tape, gradients, in-place updates.
"""
import argparse
import sys
import time

import numpy as np

import lamina
from lamina import ops
from lamina.datasets import digits


def main(argv=None) -> float:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--epochs", type=int, default=30)
    parser.add_argument("--batch-size", type=int, default=32)
    parser.add_argument("--learning-rate", type=float, default=0.5)
    parser.add_argument("--backend", default=None, help="numpy or cupy")
    parser.add_argument("--smoke", action="store_true", help="a quick run with an accuracy check")
    args = parser.parse_args(argv)
    if args.backend:
        lamina.backend.set_backend(args.backend)
    epochs = 5 if args.smoke else args.epochs

    (x_train, y_train), (x_test, y_test) = digits.load_data()
    x_train = x_train.reshape(len(x_train), 64).astype("float32") / 16.0
    x_test = x_test.reshape(len(x_test), 64).astype("float32") / 16.0

    w = lamina.Variable(np.zeros((64, 10)), name="kernel")
    b = lamina.Variable(np.zeros(10), name="bias")
    rng = np.random.default_rng(0)
    start = time.perf_counter()
    for epoch in range(epochs):
        order = rng.permutation(len(x_train))
        total = 0.0
        for i in range(0, len(order), args.batch_size):
            idx = order[i:i + args.batch_size]
            x = ops.convert_to_tensor(x_train[idx])
            y = ops.convert_to_tensor(y_train[idx].astype("int32"))
            with lamina.GradientTape() as tape:
                logits = ops.matmul(x, w) + b
                log_probs = ops.log_softmax(logits)
                picked = ops.take_along_axis(log_probs, ops.expand_dims(y, -1), axis=-1)
                loss = -ops.mean(picked)
            grad_w, grad_b = tape.gradient(loss, [w, b])
            w.assign_sub(grad_w * args.learning_rate)
            b.assign_sub(grad_b * args.learning_rate)
            total += float(loss) * len(idx)
        print(f"epoch {epoch + 1}/{epochs}: loss {total / len(order):.4f}")

    logits = ops.matmul(ops.convert_to_tensor(x_test), w) + b
    accuracy = float(np.mean(ops.argmax(logits, axis=-1).numpy() == y_test))
    print(f"test accuracy {accuracy:.4f} ({time.perf_counter() - start:.1f} s)")
    if args.smoke and accuracy < 0.85:
        print("smoke check failed: accuracy below 0.85", file=sys.stderr)
        sys.exit(1)
    return accuracy


if __name__ == "__main__":
    main()
