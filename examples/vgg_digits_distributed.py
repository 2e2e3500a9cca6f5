"""The VGG digits example trained data-parallel on several processes (MPI).

    mpirun -n 2 python examples/vgg_digits_distributed.py            # 2 processes
    mpirun -n 2 python examples/vgg_digits_distributed.py --smoke    # 2 epochs, for CI
    (as root: OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 mpirun ...)

Every process runs this same script on the same arrays. ``initialize()`` joins the MPI
world and ``DataParallel()`` makes ``fit`` split each global batch of ``--batch-size``
rows across the processes and sum the gradients, so training equals one process with the
same batch. Process 0 alone prints progress and writes the checkpoint; every process ends
with the same weights (checked at the end). Needs ``pip install lamina[distributed]``.
"""
import argparse
import os
import sys
import tempfile
import zlib

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import lamina as keras  # noqa: E402
from vgg_digits import build_model, load_digits  # noqa: E402


def main(argv=None) -> float:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--epochs", type=int, default=20)
    parser.add_argument("--batch-size", type=int, default=32, help="the global batch")
    parser.add_argument("--out", default=None, help="folder for the checkpoint")
    parser.add_argument("--backend", default=None, help="numpy or cupy (one GPU a process)")
    parser.add_argument("--smoke", action="store_true", help="a quick run for CI")
    args = parser.parse_args(argv)
    if args.backend:
        keras.backend.set_backend(args.backend)
    keras.distribution.initialize()
    keras.distribution.set_distribution(keras.distribution.DataParallel())
    from lamina.distribution.strategies import is_chief
    from lamina.distribution.world import world
    keras.utils.set_random_seed(1)
    epochs = 2 if args.smoke else args.epochs
    out = args.out or tempfile.mkdtemp(prefix="vgg_digits_distributed_")
    os.makedirs(out, exist_ok=True)

    (x_train, y_train), (x_test, y_test) = load_digits(args.smoke)
    model = build_model()
    model.compile(optimizer="adam", loss="sparse_categorical_crossentropy",
                  metrics=["accuracy"])
    checkpoint = os.path.join(out, "best.weights.h5")
    model.fit(x_train, y_train, batch_size=args.batch_size, epochs=epochs,
              validation_split=0.1, verbose=2 if args.smoke else "auto",
              callbacks=[keras.callbacks.EarlyStopping(patience=6, restore_best_weights=True),
                         keras.callbacks.ModelCheckpoint(checkpoint, save_best_only=True,
                                                         save_weights_only=True)])
    loss, accuracy = model.evaluate(x_test, y_test, verbose=0)
    checksums = world().allgather_object(
        [zlib.crc32(w.tobytes()) for w in model.get_weights()])
    if is_chief():
        print(f"{world().size} processes, global batch {args.batch_size}")
        print(f"test accuracy {accuracy:.4f} (loss {loss:.4f})")
        print(f"same weights on every process: {all(c == checksums[0] for c in checksums)}")
        print(f"checkpoint: {checkpoint}")
    return accuracy


if __name__ == "__main__":
    main()
