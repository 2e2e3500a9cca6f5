"""mnist.load_data on tiny synthetic files in each format: IDX raw and gzipped, npz."""
import gzip
import os
import struct
import urllib.error

import numpy as np
import pytest

from lamina.datasets import files, mnist
from lamina.datasets.files import DatasetFormatError, DatasetUnavailableError

NAMES = ("train-images-idx3-ubyte", "train-labels-idx1-ubyte",
         "t10k-images-idx3-ubyte", "t10k-labels-idx1-ubyte")


def idx_bytes(array, type_code=0x08):
    """An IDX file written by hand: 0x0000, type code, rank, big-endian uint32 dims, data."""
    header = bytes([0, 0, type_code, array.ndim]) + struct.pack(f">{array.ndim}I", *array.shape)
    return header + array.astype(array.dtype.newbyteorder(">")).tobytes()


def tiny_arrays():
    x_train = (np.arange(3 * 28 * 28) % 251).astype(np.uint8).reshape(3, 28, 28)
    x_test = (255 - np.arange(2 * 28 * 28) % 256).astype(np.uint8).reshape(2, 28, 28)
    return x_train, np.array([5, 0, 4], np.uint8), x_test, np.array([7, 2], np.uint8)


def write_idx_folder(folder, gz=(False,) * 4, names=NAMES):
    folder.mkdir(exist_ok=True)
    for name, array, zipped in zip(names, tiny_arrays(), gz):
        data = idx_bytes(array)
        if zipped:
            (folder / (name + ".gz")).write_bytes(gzip.compress(data))
        else:
            (folder / name).write_bytes(data)
    return folder


def check_tiny(result):
    (x_train, y_train), (x_test, y_test) = result
    assert x_train.shape == (3, 28, 28) and x_train.dtype == np.uint8
    assert x_test.shape == (2, 28, 28) and y_test.dtype == np.uint8
    # x_train[1, 2, 3] is element 784 + 56 + 3 = 843 of arange, 843 % 251 = 90.
    assert x_train[1, 2, 3] == 90
    # x_test[1, 27, 27] is element 1567; 1567 % 256 = 31 and 255 - 31 = 224.
    assert x_test[1, 27, 27] == 224
    assert y_train.tolist() == [5, 0, 4] and y_test.tolist() == [7, 2]
    x_train[0, 0, 0] = 1  # writable, as Keras's arrays are


def test_idx_folder_raw(tmp_path):
    check_tiny(mnist.load_data(path=write_idx_folder(tmp_path / "raw")))


def test_idx_folder_gzipped_and_mixed(tmp_path):
    check_tiny(mnist.load_data(path=str(write_idx_folder(tmp_path / "gz", gz=(True,) * 4))))
    mixed = write_idx_folder(tmp_path / "mixed", gz=(True, False, False, True))
    check_tiny(mnist.load_data(path=mixed))


def test_idx_folder_with_dotted_names(tmp_path):
    dotted = [name.replace("-idx", ".idx") for name in NAMES]
    check_tiny(mnist.load_data(path=write_idx_folder(tmp_path / "d", names=dotted)))


def test_npz_file_and_folder_holding_it(tmp_path):
    x_train, y_train, x_test, y_test = tiny_arrays()
    np.savez(tmp_path / "mnist.npz", x_train=x_train, y_train=y_train, x_test=x_test,
             y_test=y_test)
    check_tiny(mnist.load_data(path=tmp_path / "mnist.npz"))
    check_tiny(mnist.load_data(path=tmp_path))


def test_default_path_uses_the_cache_then_downloads_into_it(monkeypatch, tmp_path):
    monkeypatch.setenv("LAMINA_HOME", str(tmp_path))
    calls = []

    def fake_download(url, dest, sha256=None):
        calls.append((url, dest, sha256))
        os.makedirs(os.path.dirname(dest), exist_ok=True)
        x_train, y_train, x_test, y_test = tiny_arrays()
        np.savez(dest, x_train=x_train, y_train=y_train, x_test=x_test, y_test=y_test)

    monkeypatch.setattr(files, "download", fake_download)
    check_tiny(mnist.load_data())
    expected_dest = str(tmp_path / "datasets" / "mnist.npz")
    assert calls == [("https://storage.googleapis.com/tensorflow/tf-keras-datasets/mnist.npz",
                      expected_dest,
                      "731c5ac602752760c8e48fbffcf8c3b850d9dc2a2aedcf2cc48468fc17b673d1")]
    check_tiny(mnist.load_data())  # second call: cached, no download
    check_tiny(mnist.load_data(path="mnist.npz"))  # Keras-style bare name = cache name
    assert len(calls) == 1


def test_offline_without_cache_says_what_is_missing(monkeypatch, tmp_path):
    monkeypatch.setenv("LAMINA_HOME", str(tmp_path))

    def offline(url, dest, sha256=None):
        raise urllib.error.URLError("Network is unreachable")

    monkeypatch.setattr(files, "download", offline)
    expected = str(tmp_path / "datasets" / "mnist.npz")
    with pytest.raises(DatasetUnavailableError, match=r"mnist: the data file '.*mnist\.npz' is "
                       r"missing and could not be downloaded from https://storage") as info:
        mnist.load_data()
    assert expected in str(info.value)
    assert "mnist.load_data(path=...)" in str(info.value)
    assert "train-images-idx3-ubyte" in str(info.value)


def test_missing_explicit_path_is_not_downloaded(monkeypatch, tmp_path):
    monkeypatch.setattr(files, "download", lambda *a, **k: pytest.fail("no download"))
    with pytest.raises(DatasetUnavailableError, match=r"argument 'path' must name an existing "
                       r"file or folder; received '.*nowhere/mnist\.npz', which does not exist"):
        mnist.load_data(path=tmp_path / "nowhere" / "mnist.npz")


def test_folder_missing_idx_files_lists_them(tmp_path):
    folder = write_idx_folder(tmp_path / "f")
    (folder / NAMES[2]).unlink()
    (folder / NAMES[3]).unlink()
    with pytest.raises(DatasetUnavailableError, match="missing t10k-images-idx3-ubyte\\[.gz\\], "
                       "t10k-labels-idx1-ubyte\\[.gz\\]"):
        mnist.load_data(path=folder)


def test_bad_magic_number_names_the_file(tmp_path):
    folder = write_idx_folder(tmp_path / "f")
    labels = idx_bytes(np.array([5, 0, 4], np.uint8))
    (folder / NAMES[0]).write_bytes(labels)  # a labels file where images are expected
    with pytest.raises(DatasetFormatError, match="train-images-idx3-ubyte: bad IDX magic "
                       "number: expected 0x00000803; received 0x00000801"):
        mnist.load_data(path=folder)
    (folder / NAMES[0]).write_bytes(b"PK\x03\x04" + bytes(100))
    with pytest.raises(DatasetFormatError, match="expected 0x00000803; received 0x504b0304"):
        mnist.load_data(path=folder)


def test_truncated_and_padded_idx_files(tmp_path):
    folder = write_idx_folder(tmp_path / "f")
    good = (folder / NAMES[0]).read_bytes()  # 16-byte header + 3 * 784 bytes = 2368
    (folder / NAMES[0]).write_bytes(good[:-1])
    with pytest.raises(DatasetFormatError, match=r"train-images-idx3-ubyte: truncated IDX file: "
                       r"expected 2368 bytes for shape \(3, 28, 28\); received 2367 bytes"):
        mnist.load_data(path=folder)
    (folder / NAMES[0]).write_bytes(good + b"\0")
    with pytest.raises(DatasetFormatError, match="trailing bytes in IDX file: expected 2368"):
        mnist.load_data(path=folder)
    (folder / NAMES[0]).write_bytes(good[:10])
    with pytest.raises(DatasetFormatError, match="expected a 16-byte header for 3 dimensions; "
                       "received 10 bytes"):
        mnist.load_data(path=folder)
    (folder / NAMES[0]).write_bytes(b"\0\0")
    with pytest.raises(DatasetFormatError, match="expected at least a 4-byte header; received 2"):
        mnist.load_data(path=folder)


def test_truncated_gzip_names_the_file(tmp_path):
    folder = write_idx_folder(tmp_path / "f", gz=(False, True, False, False))
    gz = folder / (NAMES[1] + ".gz")
    gz.write_bytes(gz.read_bytes()[:-6])
    with pytest.raises(DatasetFormatError, match=r"train-labels-idx1-ubyte\.gz: damaged gzip"):
        mnist.load_data(path=folder)


def test_image_and_label_counts_must_agree(tmp_path):
    folder = write_idx_folder(tmp_path / "f")
    (folder / NAMES[3]).write_bytes(idx_bytes(np.array([7, 2, 1], np.uint8)))
    with pytest.raises(DatasetFormatError, match="as many labels as images in the test split; "
                       "received 2 images and 3 labels"):
        mnist.load_data(path=folder)


def test_npz_errors(tmp_path):
    x_train, y_train, x_test, y_test = tiny_arrays()
    np.savez(tmp_path / "partial.npz", x_train=x_train, y_train=y_train)
    with pytest.raises(DatasetFormatError, match="missing x_test, y_test "
                       "\\(found x_train, y_train\\)"):
        mnist.load_data(path=tmp_path / "partial.npz")
    np.savez(tmp_path / "flat.npz", x_train=x_train.reshape(3, -1), y_train=y_train,
             x_test=x_test, y_test=y_test)
    with pytest.raises(DatasetFormatError, match=r"expected x_train uint8 of shape "
                       r"\(images, 28, 28\) .*received "
                       r"x_train uint8 \(3, 784\)"):
        mnist.load_data(path=tmp_path / "flat.npz")
    (tmp_path / "junk.npz").write_bytes(b"not an archive at all")
    with pytest.raises(DatasetFormatError, match="junk.npz: not a readable .npz file"):
        mnist.load_data(path=tmp_path / "junk.npz")
    (tmp_path / "cut.npz").write_bytes((tmp_path / "flat.npz").read_bytes()[:300])
    with pytest.raises(DatasetFormatError, match="cut.npz: not a readable .npz file"):
        mnist.load_data(path=tmp_path / "cut.npz")


def test_read_idx_handles_other_big_endian_types(tmp_path):
    path = tmp_path / "shorts"
    path.write_bytes(bytes([0, 0, 0x0B, 1, 0, 0, 0, 3]) + b"\x00\x01\xff\xfe\x01\x2c")
    array = mnist.read_idx(str(path))
    assert array.dtype == np.int16 and array.tolist() == [1, -2, 300]
    path.write_bytes(bytes([0, 0, 0x07, 1, 0, 0, 0, 1, 0]))
    with pytest.raises(DatasetFormatError, match="expected 0x0000TTDD with type code TT one of "
                       "0x08, 0x09, 0x0b, 0x0c, 0x0d, 0x0e; received 0x00000701"):
        mnist.read_idx(str(path))
