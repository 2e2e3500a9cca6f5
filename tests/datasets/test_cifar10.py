"""cifar10.load_data on tiny synthetic batches (a folder of pickles and a tar.gz of it), and
the restricted unpickler that refuses anything but dicts, lists, bytes, str and arrays."""
import io
import os
import pickle
import struct
import tarfile
import urllib.error

import numpy as np
import pytest

from lamina.datasets import cifar10, files
from lamina.datasets.files import DatasetFormatError, DatasetUnavailableError, UnsafePickleError

BATCHES = [f"data_batch_{i}" for i in range(1, 6)] + ["test_batch"]


def batch_arrays(index):
    """Two images per batch; batch k's image j is (arange(3072) + 7k + 13j) % 251."""
    data = np.stack([(np.arange(3072) + 7 * index + 13 * j) % 251 for j in range(2)])
    return data.astype(np.uint8), [index % 10, (index + 3) % 10]


def py2_batch_pickle(data, labels):
    """A batch as Python 2's cPickle (protocol 2) wrote CIFAR-10: str as SHORT_BINSTRING and
    BINSTRING, and the array as numpy.core.multiarray._reconstruct plus BUILD states."""
    def s(text):
        return b"U" + bytes([len(text)]) + text

    dtype = (b"cnumpy\ndtype\n" + s(b"u1") + b"K\x00K\x01\x87R(K\x03" + s(b"|") +
             b"NNNJ\xff\xff\xff\xffJ\xff\xff\xff\xffK\x00tb")
    shape = b"(" + b"".join(b"J" + struct.pack("<i", d) for d in data.shape) + b"t"
    raw = data.tobytes()
    array = (b"cnumpy.core.multiarray\n_reconstruct\ncnumpy\nndarray\nK\x00\x85" + s(b"b") +
             b"\x87R(K\x01" + shape + dtype + b"\x89T" + struct.pack("<i", len(raw)) + raw +
             b"tb")
    label_list = b"](" + b"".join(b"K" + bytes([v]) for v in labels) + b"e"
    return (b"\x80\x02}(" + s(b"batch_label") + s(b"training batch 1 of 5") + s(b"data") +
            array + s(b"labels") + label_list + b"u.")


def write_folder(folder, dump=lambda data, labels: pickle.dumps(
        {b"data": data, b"labels": labels, b"batch_label": b"x"}, protocol=2)):
    folder.mkdir(parents=True, exist_ok=True)
    for index, name in enumerate(BATCHES):
        (folder / name).write_bytes(dump(*batch_arrays(index)))
    (folder / "batches.meta").write_bytes(pickle.dumps({b"label_names": [b"airplane"]}))
    return folder


def check_tiny(result):
    (x_train, y_train), (x_test, y_test) = result
    assert x_train.dtype == np.uint8 and y_train.dtype == np.uint8
    assert y_train.shape == (10, 1) and y_test.shape == (2, 1)
    assert y_train[:, 0].tolist() == [0, 3, 1, 4, 2, 5, 3, 6, 4, 7]
    assert y_test[:, 0].tolist() == [5, 8]
    assert x_train.shape == (10, 32, 32, 3) and x_test.shape == (2, 32, 32, 3)
    # Batch 2 (index 1), image 1 = x_train[3]; pixel (row 1, col 2, channel 2) is flat
    # element 2 * 1024 + 1 * 32 + 2 = 2082: (2082 + 7 + 13) % 251 = 2102 % 251 = 94.
    assert x_train[3, 1, 2, 2] == 94
    # test_batch (index 5), image 0, pixel (0, 0, 1): (1024 + 35) % 251 = 55.
    assert x_test[0, 0, 0, 1] == 55
    assert x_train.flags.c_contiguous


def test_folder_of_python3_protocol2_pickles(tmp_path):
    check_tiny(cifar10.load_data(path=write_folder(tmp_path / "cifar-10-batches-py")))


def test_python2_pickles_like_the_real_files(tmp_path):
    blob = py2_batch_pickle(*batch_arrays(0))
    reference = pickle.loads(blob, encoding="bytes")  # the hand-written pickle is valid
    assert reference[b"labels"] == [0, 3] and reference[b"data"].shape == (2, 3072)
    check_tiny(cifar10.load_data(path=write_folder(tmp_path / "py2", dump=py2_batch_pickle)))


def test_protocol5_pickles(tmp_path):
    folder = write_folder(tmp_path / "p5", dump=lambda data, labels: pickle.dumps(
        {"data": data, "labels": labels}, protocol=5))
    check_tiny(cifar10.load_data(path=folder))


def test_tar_gz_archive_and_folder_holding_it(tmp_path):
    folder = write_folder(tmp_path / "src" / "cifar-10-batches-py")
    archive = tmp_path / "dl" / "cifar-10-python.tar.gz"
    archive.parent.mkdir()
    with tarfile.open(archive, "w:gz") as tar:
        tar.add(folder, arcname="cifar-10-batches-py")
    check_tiny(cifar10.load_data(path=archive))
    check_tiny(cifar10.load_data(path=archive.parent))
    check_tiny(cifar10.load_data(path=tmp_path / "src"))  # parent of the extracted folder


def test_default_path_prefers_the_cached_folder(monkeypatch, tmp_path):
    monkeypatch.setenv("LAMINA_HOME", str(tmp_path))
    monkeypatch.setattr(files, "download", lambda *a, **k: pytest.fail("no download"))
    write_folder(tmp_path / "datasets" / "cifar-10-batches-py")
    check_tiny(cifar10.load_data())


def test_offline_without_cache_says_what_is_missing(monkeypatch, tmp_path):
    monkeypatch.setenv("LAMINA_HOME", str(tmp_path))
    calls = []

    def offline(url, dest, sha256=None):
        calls.append((url, sha256))
        raise urllib.error.URLError("Network is unreachable")

    monkeypatch.setattr(files, "download", offline)
    with pytest.raises(DatasetUnavailableError, match=r"cifar10: the data file '.*datasets/"
                       r"cifar-10-python\.tar\.gz' is missing .*cifar10\.load_data\(path=\.\.\.\)"):
        cifar10.load_data()
    assert calls == [("https://www.cs.toronto.edu/~kriz/cifar-10-python.tar.gz",
                      "6d958be074577803d12ecdefd02955f39262c83c16fe9348329d7fe0b5c001ce")]


def test_missing_path_and_missing_batch(tmp_path):
    with pytest.raises(DatasetUnavailableError, match="argument 'path' must name an existing"):
        cifar10.load_data(path=tmp_path / "absent")
    folder = write_folder(tmp_path / "f")
    (folder / "data_batch_4").unlink()
    with pytest.raises(DatasetUnavailableError, match="must hold the CIFAR-10 batches; "
                       "missing data_batch_4"):
        cifar10.load_data(path=folder)


class CallsOsSystem:
    def __reduce__(self):
        return (os.system, (f"touch {self.marker}",))


def test_malicious_pickle_is_refused_without_running_it(tmp_path):
    evil = CallsOsSystem()
    evil.marker = tmp_path / "pwned"
    folder = write_folder(tmp_path / "f")
    (folder / "data_batch_3").write_bytes(pickle.dumps({b"data": evil, b"labels": []}))
    with pytest.raises(UnsafePickleError, match=r"cifar10: .*data_batch_3: refusing to unpickle "
                       r"global '(posix|nt|os)\.system'"):
        cifar10.load_data(path=folder)
    assert not evil.marker.exists()
    assert pickle.loads(pickle.dumps(0)) == 0  # sanity: pickling itself still works


@pytest.mark.parametrize("payload, message", [
    (np.array([1, 2], dtype=object), "refusing to build numpy dtype .*O.*holds Python objects"),
    (b"cnumpy.core.multiarray\n_reconstruct\ncnumpy\ndtype\nK\x00\x85U\x01b\x87R.",
     "refusing to reconstruct an array of type"),
    (b"cnumpy\nndarray\nK\x02\x85\x85R.", "refusing to call numpy.ndarray directly"),
    (b"c_codecs\nencode\nX\x01\x00\x00\x00aX\x05\x00\x00\x00rot13\x86R.",
     "refusing _codecs.encode\\(str, 'rot13'\\)"),
    (b"cbuiltins\neval\nX\x01\x00\x00\x001\x85R.", "refusing to unpickle global 'builtins.eval'"),
])
def test_other_unsafe_constructs_are_refused(tmp_path, payload, message):
    blob = payload if isinstance(payload, bytes) else pickle.dumps({b"data": payload}, 2)
    folder = write_folder(tmp_path / "f")
    (folder / "test_batch").write_bytes(b"\x80\x02" + blob if isinstance(payload, bytes)
                                        else blob)
    with pytest.raises(UnsafePickleError, match=message):
        cifar10.load_data(path=folder)


@pytest.mark.parametrize("batch, message", [
    ([1, 2], "expected a pickled dict; received list"),
    ({b"data": np.zeros((2, 100), np.uint8), b"labels": [0, 1]},
     r"expected 'data' to be a uint8 array of shape \(n, 3072\); received uint8 array of "
     r"shape \(2, 100\)"),
    ({b"labels": [0, 1]}, "expected 'data' .*; received NoneType"),
    ({b"data": np.zeros((2, 3072), np.uint8), b"labels": [0]},
     r"expected 'labels' to be a list of 2 ints in \[0, 255\]; received 1 entries"),
])
def test_wrong_batch_contents(tmp_path, batch, message):
    folder = write_folder(tmp_path / "f")
    (folder / "data_batch_1").write_bytes(pickle.dumps(batch, protocol=2))
    with pytest.raises(DatasetFormatError, match="data_batch_1: " + message):
        cifar10.load_data(path=folder)


def test_truncated_pickle_and_archive(tmp_path):
    folder = write_folder(tmp_path / "cifar-10-batches-py")
    good = (folder / "data_batch_2").read_bytes()
    (folder / "data_batch_2").write_bytes(good[:1000])
    with pytest.raises(DatasetFormatError, match="data_batch_2: not a readable CIFAR-10 batch "
                       "pickle"):
        cifar10.load_data(path=folder)
    (folder / "data_batch_2").write_bytes(good)
    archive = tmp_path / "cifar-10-python.tar.gz"
    with tarfile.open(archive, "w:gz") as tar:
        tar.add(folder, arcname="cifar-10-batches-py")
    cut = tmp_path / "cut.tar.gz"
    cut.write_bytes(archive.read_bytes()[:len(archive.read_bytes()) // 2])
    with pytest.raises(DatasetFormatError, match="cut.tar.gz: damaged gzip data"):
        cifar10.load_data(path=cut)


def test_archive_missing_a_batch(tmp_path):
    archive = tmp_path / "partial.tar.gz"
    with tarfile.open(archive, "w:gz") as tar:
        for index, name in enumerate(BATCHES[:-1]):
            blob = pickle.dumps(dict(zip((b"data", b"labels"), batch_arrays(index))), 2)
            info = tarfile.TarInfo(f"cifar-10-batches-py/{name}")
            info.size = len(blob)
            tar.addfile(info, io.BytesIO(blob))
    with pytest.raises(DatasetFormatError, match="partial.tar.gz: expected the archive to hold "
                       "cifar-10-batches-py/.*; missing test_batch"):
        cifar10.load_data(path=archive)
