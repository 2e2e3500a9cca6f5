"""The cache folder, the temp-file-and-rename download and the offline error. The network is
never touched: downloads read file:// URLs or are monkeypatched."""
import collections
import hashlib
import os
import pickle
import urllib.error

import numpy as np
import pytest

from lamina.datasets import files
from lamina.datasets.files import DatasetFormatError, DatasetUnavailableError


def test_cache_dir_follows_lamina_home(monkeypatch, tmp_path):
    monkeypatch.setenv("LAMINA_HOME", str(tmp_path / "home"))
    assert files.cache_dir() == str(tmp_path / "home" / "datasets")
    monkeypatch.delenv("LAMINA_HOME")
    monkeypatch.setenv("HOME", str(tmp_path))
    assert files.cache_dir() == str(tmp_path / ".lamina" / "datasets")


def test_file_sha256_matches_hashlib(tmp_path):
    path = tmp_path / "f.bin"
    path.write_bytes(b"abc")
    # The FIPS 180-2 test vector for "abc".
    assert files.file_sha256(str(path)) == \
        "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"


def test_download_renames_a_checked_temp_file_into_place(tmp_path):
    source = tmp_path / "remote.bin"
    source.write_bytes(b"payload" * 1000)
    dest = tmp_path / "cache" / "sub" / "local.bin"
    digest = hashlib.sha256(b"payload" * 1000).hexdigest()
    files.download(source.as_uri(), str(dest), sha256=digest)
    assert dest.read_bytes() == b"payload" * 1000
    assert os.listdir(dest.parent) == ["local.bin"]  # no .part file left behind


def test_download_with_wrong_checksum_leaves_nothing(tmp_path):
    source = tmp_path / "remote.bin"
    source.write_bytes(b"abc")
    dest = tmp_path / "cache" / "local.bin"
    with pytest.raises(DatasetFormatError,
                       match="expected sha256 0{64}; received a file with sha256 ba7816bf"):
        files.download(source.as_uri(), str(dest), sha256="0" * 64)
    assert os.listdir(dest.parent) == []


def test_fetch_returns_an_existing_file_without_downloading(monkeypatch, tmp_path):
    dest = tmp_path / "x.npz"
    dest.write_bytes(b"cached")
    monkeypatch.setattr(files, "download", _fail_if_called)
    assert files.fetch("demo", str(dest), "https://example.invalid/x", None, "hint") == str(dest)


def test_fetch_offline_raises_a_typed_error_that_says_how_to_supply(monkeypatch, tmp_path):
    def offline(url, dest, sha256=None):
        raise urllib.error.URLError("[Errno -3] Temporary failure in name resolution")

    monkeypatch.setattr(files, "download", offline)
    dest = str(tmp_path / "x.npz")
    with pytest.raises(DatasetUnavailableError) as info:
        files.fetch("demo", dest, "https://example.invalid/x.npz", None,
                    "Call demo.load_data(path=...).")
    message = str(info.value)
    assert f"demo: the data file {dest!r} is missing" in message
    assert "could not be downloaded from https://example.invalid/x.npz" in message
    assert "URLError" in message and "Temporary failure in name resolution" in message
    assert "$LAMINA_HOME" in message and "Call demo.load_data(path=...)." in message
    assert isinstance(info.value, OSError)


def test_fetch_wraps_a_checksum_mismatch(tmp_path):
    source = tmp_path / "remote.bin"
    source.write_bytes(b"abc")
    with pytest.raises(DatasetUnavailableError, match="DatasetFormatError: .*expected sha256"):
        files.fetch("demo", str(tmp_path / "c" / "x"), source.as_uri(), "0" * 64, "hint")


def _fail_if_called(*args, **kwargs):
    raise AssertionError("download must not be called")


@pytest.mark.parametrize("protocol", [2, 5])
def test_load_pickle_safely_builds_plain_data_and_arrays(protocol):
    value = {b"k": [1, 2.5, "s", (b"t", None, True)],
             "a": np.array([[1, -2], [3, 4]], np.int16), "f": np.array([0.5], np.float64)}
    loaded = files.load_pickle_safely(pickle.dumps(value, protocol=protocol))
    assert loaded[b"k"] == [1, 2.5, "s", (b"t", None, True)]
    assert loaded["a"].dtype == np.int16 and loaded["a"].tolist() == [[1, -2], [3, 4]]
    assert loaded["f"].tolist() == [0.5]


def test_load_pickle_safely_refuses_globals():
    with pytest.raises(files.UnsafePickleError,
                       match="refusing to unpickle global 'collections.OrderedDict'"):
        files.load_pickle_safely(pickle.dumps(collections.OrderedDict(a=1), protocol=2))
