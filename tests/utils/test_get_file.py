"""keras.utils.get_file: cache layout, hashes, extraction and the offline error, with
file:// origins (no network)."""
import hashlib
import io
import tarfile
import zipfile

import pytest

from lamina.datasets.files import DatasetUnavailableError
from lamina.utils import get_file

DATA = b"lamina get_file test\n"
SHA256 = hashlib.sha256(DATA).hexdigest()
MD5 = hashlib.md5(DATA).hexdigest()


@pytest.fixture
def origin(tmp_path):
    src = tmp_path / "server" / "data.txt"
    src.parent.mkdir()
    src.write_bytes(DATA)
    return src.as_uri()


def test_downloads_once_into_the_cache(tmp_path, origin):
    cache = tmp_path / "cache"
    path = get_file("data.txt", origin, cache_dir=str(cache), file_hash=SHA256)
    assert path == str(cache / "datasets" / "data.txt")
    assert open(path, "rb").read() == DATA
    # the source disappears: the cached copy is used
    (tmp_path / "server" / "data.txt").unlink()
    assert get_file("data.txt", origin, cache_dir=str(cache), md5_hash=MD5) == path


def test_file_name_defaults_to_the_url_and_subdir_is_used(tmp_path, origin):
    path = get_file(origin=origin, cache_dir=str(tmp_path / "c"), cache_subdir="sub")
    assert path == str(tmp_path / "c" / "sub" / "data.txt")


def test_keras_home_is_the_default_cache(tmp_path, origin, monkeypatch):
    monkeypatch.setenv("KERAS_HOME", str(tmp_path / "kh"))
    assert get_file("d.txt", origin) == str(tmp_path / "kh" / "datasets" / "d.txt")


def test_offline_error_names_the_file_and_where_to_put_it(tmp_path):
    origin = (tmp_path / "absent.bin").as_uri()
    with pytest.raises(DatasetUnavailableError) as info:
        get_file("absent.bin", origin, cache_dir=str(tmp_path / "c"))
    message = str(info.value)
    assert "'absent.bin' is not in the cache and could not be downloaded from" in message
    assert f"put it at {str(tmp_path / 'c' / 'datasets' / 'absent.bin')!r}" in message


def test_wrong_hash_after_download_is_refused_and_removed(tmp_path, origin):
    with pytest.raises(ValueError, match="its hash does not match the provided value of "
                                         "0{64}; the file was removed"):
        get_file("data.txt", origin, cache_dir=str(tmp_path), file_hash="0" * 64)
    assert not (tmp_path / "datasets" / "data.txt").exists()


def test_a_stale_cached_file_is_downloaded_again(tmp_path, origin):
    stale = tmp_path / "datasets" / "data.txt"
    stale.parent.mkdir(parents=True)
    stale.write_bytes(b"old")
    with pytest.warns(UserWarning, match="does not match the expected hash"):
        path = get_file("data.txt", origin, cache_dir=str(tmp_path), file_hash=SHA256)
    assert open(path, "rb").read() == DATA


def test_extracts_tar_and_zip(tmp_path):
    tar_path = tmp_path / "src" / "arch.tar.gz"
    tar_path.parent.mkdir()
    with tarfile.open(tar_path, "w:gz") as tar:
        info = tarfile.TarInfo("inner/a.txt")
        info.size = len(DATA)
        tar.addfile(info, io.BytesIO(DATA))
    folder = get_file("arch.tar.gz", tar_path.as_uri(), cache_dir=str(tmp_path), extract=True)
    assert folder == str(tmp_path / "datasets" / "arch_extracted")
    assert open(f"{folder}/inner/a.txt", "rb").read() == DATA
    zip_path = tmp_path / "src" / "z.zip"
    with zipfile.ZipFile(zip_path, "w") as z:
        z.writestr("b.txt", DATA)
    folder = get_file("z", zip_path.as_uri(), cache_dir=str(tmp_path), extract=True)
    assert folder == str(tmp_path / "datasets" / "z")
    assert open(f"{folder}/b.txt", "rb").read() == DATA


def test_an_archive_escaping_its_folder_is_refused(tmp_path):
    tar_path = tmp_path / "src" / "evil.tar"
    tar_path.parent.mkdir()
    with tarfile.open(tar_path, "w") as tar:
        info = tarfile.TarInfo("../escaped.txt")
        info.size = len(DATA)
        tar.addfile(info, io.BytesIO(DATA))
    with pytest.raises(ValueError, match="would land outside"):
        get_file("evil.tar", tar_path.as_uri(), cache_dir=str(tmp_path), untar=True)
    assert not (tmp_path / "datasets" / "escaped.txt").exists()


def test_argument_errors(tmp_path, origin):
    with pytest.raises(ValueError, match='specify the "origin" argument'):
        get_file("x")
    with pytest.raises(ValueError, match="paths are not accepted as the `fname` argument"):
        get_file("a/b.txt", origin, cache_dir=str(tmp_path))
    with pytest.raises(ValueError, match="cannot infer a file name from origin"):
        get_file(origin="http://example.com/", cache_dir=str(tmp_path))
    with pytest.raises(ValueError, match="'hash_algorithm' must be 'auto', 'sha256' or 'md5'"):
        get_file("d", origin, cache_dir=str(tmp_path), hash_algorithm="sha1")
