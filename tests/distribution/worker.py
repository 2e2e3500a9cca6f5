"""Run scenarios under mpirun with DataParallel; each process writes <name>_<rank>.npz.

    mpirun -n 2 python tests/distribution/worker.py OUT_DIR graph eager ...
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))

import numpy as np  # noqa: E402

import lamina as keras  # noqa: E402
from tests.distribution import scenarios  # noqa: E402


def main(out_dir, names):
    keras.distribution.initialize()
    keras.distribution.set_distribution(keras.distribution.DataParallel())
    from lamina.distribution.world import rank
    rank = rank()
    for name in names:
        result = scenarios.run(name, os.path.join(out_dir, name))
        np.savez(os.path.join(out_dir, f"{name}_{rank}.npz"), **result)


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2:])
