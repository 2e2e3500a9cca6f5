"""Dataset loaders read within bounds (issue 23, item 9): zip members, gzip streams, tar
archives and files are capped before anything is allocated, declared array shapes must
match the bytes that follow them, the housing datasets have their feature counts, and
imdb's pickled lists may hold numpy ints."""
import gzip
import io
import json
import os
import pickle
import struct
import subprocess
import sys
import tarfile
import zipfile

import numpy as np
import pytest

from lamina.datasets import boston_housing, california_housing, cifar10, imdb, mnist
from lamina.datasets.files import DatasetFormatError, UnsafePickleError, load_pickle_safely
from tests.datasets import synthetic_files

CAP = "LAMINA_DATASET_MAX_BYTES"
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def _npy(array=None, header_shape=None, descr="|u1", data=b""):
    out = io.BytesIO()
    if array is not None:
        np.lib.format.write_array(out, array)
        return out.getvalue()
    np.lib.format.write_array_header_1_0(
        out, {"descr": descr, "fortran_order": False, "shape": header_shape})
    return out.getvalue() + data


def _mnist_npz(path, x_train=None):
    members = {"x_train": x_train if x_train is not None else
               _npy(np.zeros((2, 28, 28), np.uint8)),
               "y_train": _npy(np.zeros(2, np.uint8)),
               "x_test": _npy(np.zeros((1, 28, 28), np.uint8)),
               "y_test": _npy(np.zeros(1, np.uint8))}
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as zf:
        for key, raw in members.items():
            zf.writestr(key + ".npy", raw)
    return path


def _declare_size(path, member: str, size: int):
    """Rewrite the uncompressed size the central directory declares for ``member``."""
    data = bytearray(open(path, "rb").read())
    name = member.encode()
    at = data.rfind(b"PK\x01\x02" + b"", 0)
    while at >= 0:
        length = struct.unpack_from("<H", data, at + 28)[0]
        if bytes(data[at + 46:at + 46 + length]) == name:
            struct.pack_into("<I", data, at + 24, size)
            break
        at = data.rfind(b"PK\x01\x02", 0, at)
    open(path, "wb").write(bytes(data))


def test_a_member_declared_to_inflate_to_2gb_is_refused_before_reading(tmp_path):
    path = _mnist_npz(tmp_path / "mnist.npz")
    _declare_size(path, "x_train.npy", 2 * 10 ** 9)
    with pytest.raises(DatasetFormatError, match=r"mnist: '.*mnist\.npz': refusing entry "
                       r"'x_train\.npy': it inflates to 2000000000 bytes, more than the "
                       r"1073741824 bytes"):
        mnist.load_data(path=path)


def test_a_zip_bomb_member_is_refused_within_the_cap_in_memory(tmp_path):
    """64 MiB of images (deflated to 64 kB) under a 4 MiB cap: refused while inflating, and
    the process never holds more than a few MiB of it (measured in a child process)."""
    path = _mnist_npz(tmp_path / "bomb.npz", _npy(np.zeros((85_600, 28, 28), np.uint8)))
    code = ("import resource, lamina.datasets.mnist as m, lamina.datasets.files as f\n"
            "before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss\n"
            f"try:\n    m.load_data(path={str(path)!r})\nexcept f.DatasetFormatError as e:\n"
            "    print('REFUSED', e)\n"
            "print('GREW', resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before)\n")
    env = dict(os.environ, PYTHONPATH=ROOT, **{CAP: str(4 << 20)})
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True,
                         text=True, timeout=120).stdout
    assert "REFUSED mnist:" in out and "more than the 4194304 bytes" in out, out
    grew_kib = int(out.split("GREW")[1])
    assert grew_kib < 24 * 1024, f"memory grew by {grew_kib} KiB reading a capped member"


def test_a_declared_shape_of_ten_billion_images_is_refused_not_allocated(tmp_path):
    raw = _npy(header_shape=(10 ** 10, 28, 28), data=bytes(2 * 784))
    path = _mnist_npz(tmp_path / "huge.npz", raw)
    with pytest.raises(DatasetFormatError, match=r"x_train\]: its header declares a uint8 "
                       r"array of shape \(10000000000, 28, 28\) \(7840000000000 bytes\); the "
                       r"member holds 1568 bytes"):
        mnist.load_data(path=path)


def test_housing_datasets_need_their_feature_counts(tmp_path):
    np.savez(tmp_path / "b.npz", x=np.zeros((20, 5)), y=np.zeros(20))
    with pytest.raises(DatasetFormatError, match=r"boston_housing: .*b\.npz: expected numeric "
                       r"arrays x \(samples, 13\) and y \(samples,\); received x float64 "
                       r"\(20, 5\)"):
        boston_housing.load_data(path=str(tmp_path / "b.npz"))
    np.savez(tmp_path / "c.npz", x=np.zeros((20, 8)), y=np.zeros((20, 2)))
    with pytest.raises(DatasetFormatError, match=r"x \(samples, 8\) .*y float64 \(20, 2\)"):
        california_housing.load_data(path=str(tmp_path / "c.npz"))
    (x, y), _ = boston_housing.load_data(path=synthetic_files.write_boston(str(tmp_path)))
    assert x.shape == (18, 13) and y.shape == (18,)


def test_imdb_lists_may_hold_numpy_ints(tmp_path):
    seqs = np.empty(3, dtype=object)
    seqs[:] = [[np.int64(4), np.int32(5)], [np.int16(6)], [7, np.uint8(8)]]
    np.savez(tmp_path / "imdb.npz", x_train=seqs, y_train=np.array([0, 1, 0]),
             x_test=seqs, y_test=np.array([1, 1, 0]))
    (x_train, y_train), _ = imdb.load_data(path=str(tmp_path / "imdb.npz"), seed=1)
    assert sorted(map(tuple, x_train)) == [(1, 7, 8), (1, 9), (1, 10, 2)]   # 11 = num_words: oov


class _Scalar:
    """Pickles as numpy's scalar reconstructor with the given arguments."""

    def __init__(self, *args):
        self.args = args

    def __reduce__(self):
        return np.int64(0).__reduce__()[0], self.args


def test_a_pickled_scalar_must_be_numeric_and_whole():
    assert load_pickle_safely(pickle.dumps([np.float32(1.5)]), encoding="latin1") == [1.5]
    forged = pickle.dumps(_Scalar(np.dtype("int64"), b"\x03\x00\x00\x00"))
    with pytest.raises(UnsafePickleError, match="refusing a numpy int64 scalar built from "
                                                "bytes; expected 8 bytes"):
        load_pickle_safely(forged)
    with pytest.raises(UnsafePickleError, match="refusing a numpy scalar of dtype"):
        load_pickle_safely(pickle.dumps(_Scalar(np.dtype(object), b"")), object_arrays=True)


def test_reconstruct_never_allocates_a_declared_shape():
    payload = (b"\x80\x02cnumpy.core.multiarray\n_reconstruct\nq\x00cnumpy\nndarray\nq\x01"
               b"J\x00\xe4\x0bTJ\x00\xe4\x0bT\x86q\x02C\x01b\x87R.")
    with pytest.raises(UnsafePickleError, match=r"refusing numpy's _reconstruct of shape "
                                                r"\(1410065408, 1410065408\)"):
        load_pickle_safely(payload)


def test_gzipped_idx_bomb_is_refused_while_inflating(tmp_path, monkeypatch):
    monkeypatch.setenv(CAP, str(1 << 20))
    folder = tmp_path / "idx"
    folder.mkdir()
    header = struct.pack(">IIII", 0x803, 10_000, 28, 28)
    (folder / "train-images-idx3-ubyte.gz").write_bytes(gzip.compress(header + bytes(7_840_000)))
    for name in ("train-labels-idx1-ubyte", "t10k-images-idx3-ubyte",
                 "t10k-labels-idx1-ubyte"):
        (folder / name).write_bytes(b"")
    with pytest.raises(DatasetFormatError, match=r"train-images-idx3-ubyte\.gz: refusing the "
                       r"gzip data: it inflates to more than 1048576 bytes"):
        mnist.load_data(path=folder)


def test_cifar_archive_members_are_capped_before_reading(tmp_path, monkeypatch):
    monkeypatch.setenv(CAP, str(1 << 20))
    path = tmp_path / "cifar-10-python.tar.gz"
    with tarfile.open(path, "w:gz") as tar:
        info = tarfile.TarInfo("cifar-10-batches-py/data_batch_1")
        info.size = 2 << 20
        tar.addfile(info, io.BytesIO(bytes(info.size)))
    with pytest.raises(DatasetFormatError, match=r"cifar10: .*: refusing the archive: its "
                       r"members up to 'cifar-10-batches-py/data_batch_1' inflate to 2097152 "
                       r"bytes, more than the 1048576"):
        cifar10.load_data(path=str(path))


def test_a_deeply_nested_word_index_is_a_typed_error(tmp_path):
    (tmp_path / "wi.json").write_text("[" * 5000 + "]" * 5000)
    with pytest.raises(DatasetFormatError, match=r"imdb: '.*wi\.json': the word index nests "
                                                 r"5000 levels deep"):
        imdb.get_word_index(path=str(tmp_path / "wi.json"))
    (tmp_path / "ok.json").write_text(json.dumps({"the": 1}))
    assert imdb.get_word_index(path=str(tmp_path / "ok.json")) == {"the": 1}


def test_the_cap_setting_is_checked(monkeypatch, tmp_path):
    monkeypatch.setenv(CAP, "lots")
    with pytest.raises(DatasetFormatError, match=r"\$LAMINA_DATASET_MAX_BYTES must be a "
                                                 r"positive number of bytes; received 'lots'"):
        mnist.load_data(path=_mnist_npz(tmp_path / "m.npz"))


def test_a_damaged_tar_gz_is_refused_not_loaded_different(tmp_path):
    """tarfile reads gzip without checking its CRC: a flipped byte inside a stored deflate
    block used to load different images silently."""
    rng = np.random.default_rng(0)
    tar_bytes = io.BytesIO()
    with tarfile.open(fileobj=tar_bytes, mode="w") as tar:
        for name in [f"data_batch_{i}" for i in range(1, 6)] + ["test_batch"]:
            raw = pickle.dumps({b"data": rng.integers(0, 256, (2, 3072), np.uint8),
                                b"labels": [1, 2]}, protocol=2)
            info = tarfile.TarInfo(f"cifar-10-batches-py/{name}")
            info.size = len(raw)
            tar.addfile(info, io.BytesIO(raw))
    packed = bytearray(gzip.compress(tar_bytes.getvalue(), compresslevel=0))   # stored
    path = tmp_path / "cifar-10-python.tar.gz"
    path.write_bytes(bytes(packed))
    (x_train, _), _ = cifar10.load_data(path=str(path))
    assert x_train.shape == (10, 32, 32, 3)
    at = len(packed) // 3                        # inside a batch's image bytes
    packed[at] ^= 0x01
    path.write_bytes(bytes(packed))
    with pytest.raises(DatasetFormatError, match=r"cifar-10-python\.tar\.gz: damaged gzip "
                                                 r"data \(zlib\.error: .*incorrect data check"):
        cifar10.load_data(path=str(path))
