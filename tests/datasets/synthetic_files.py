"""Tiny files in the exact formats of Keras's dataset downloads, the same every run. The
tests read them with lamina.datasets; tests/fixtures/make_dataset_references.py read them
with real Keras to record what Keras returns (tests/datasets/keras_dataset_reference.json)."""
import gzip
import os
import pickle
import struct
import tarfile

import numpy as np


def _ragged(rng, n, vocab):
    seqs = np.empty(n, dtype=object)
    seqs[:] = [list(map(int, rng.integers(1, vocab, size=rng.integers(2, 12))))
               for _ in range(n)]
    return seqs


def write_imdb(folder):
    rng = np.random.default_rng(1)
    path = os.path.join(folder, "imdb.npz")
    np.savez(path, x_train=_ragged(rng, 9, 40), y_train=rng.integers(0, 2, 9),
             x_test=_ragged(rng, 7, 40), y_test=rng.integers(0, 2, 7))
    return path


def write_reuters(folder):
    rng = np.random.default_rng(2)
    path = os.path.join(folder, "reuters.npz")
    np.savez(path, x=_ragged(rng, 13, 30), y=rng.integers(0, 46, 13))
    return path


def write_boston(folder):
    rng = np.random.default_rng(3)
    path = os.path.join(folder, "boston_housing.npz")
    np.savez(path, x=rng.uniform(0, 10, (23, 13)), y=rng.uniform(5, 50, 23))
    return path


def write_california(folder):
    rng = np.random.default_rng(4)
    path = os.path.join(folder, "california_housing.npz")
    np.savez(path, x=rng.uniform(0, 10, (17, 8)).astype("float32"),
             y=rng.uniform(1e4, 5e5, 17).astype("float32"))
    return path


def _idx(array, magic):
    header = struct.pack(">I", magic) + b"".join(struct.pack(">I", d) for d in array.shape)
    return gzip.compress(header + array.astype(np.uint8).tobytes())


def write_fashion_mnist(folder):
    rng = np.random.default_rng(5)
    os.makedirs(folder, exist_ok=True)
    data = {"train-images-idx3-ubyte": (rng.integers(0, 256, (6, 28, 28)), 0x803),
            "train-labels-idx1-ubyte": (rng.integers(0, 10, 6), 0x801),
            "t10k-images-idx3-ubyte": (rng.integers(0, 256, (4, 28, 28)), 0x803),
            "t10k-labels-idx1-ubyte": (rng.integers(0, 10, 4), 0x801)}
    for name, (array, magic) in data.items():
        with open(os.path.join(folder, name + ".gz"), "wb") as handle:
            handle.write(_idx(array, magic))
    return folder


def write_cifar100(folder):
    """``folder/cifar-100-python/{train,test}`` and ``folder/cifar-100-python.tar.gz``."""
    rng = np.random.default_rng(6)
    inner = os.path.join(folder, "cifar-100-python")
    os.makedirs(inner, exist_ok=True)
    for name, n in (("train", 5), ("test", 3)):
        batch = {b"data": rng.integers(0, 256, (n, 3072)).astype(np.uint8),
                 b"fine_labels": [int(v) for v in rng.integers(0, 100, n)],
                 b"coarse_labels": [int(v) for v in rng.integers(0, 20, n)]}
        with open(os.path.join(inner, name), "wb") as handle:
            pickle.dump(batch, handle, protocol=4)
    archive = os.path.join(folder, "cifar-100-python.tar.gz")
    with tarfile.open(archive, "w:gz") as tar:
        tar.add(inner, arcname="cifar-100-python")
    return inner


def write_word_index(folder, name):
    path = os.path.join(folder, name)
    with open(path, "w") as handle:
        handle.write('{"the": 1, "and": 2, "movie": 3}')
    return path


def to_jsonable(splits):
    """((x_train, y_train), (x_test, y_test)) as nested lists with dtypes and shapes."""
    def one(a):
        a = np.asarray(a)
        values = [list(map(int, s)) for s in a] if a.dtype == object else a.tolist()
        return {"dtype": str(a.dtype), "shape": list(a.shape), "values": values}
    return [[one(a) for a in pair] for pair in splits]
