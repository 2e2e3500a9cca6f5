"""keras.datasets' fashion_mnist, cifar100, imdb, reuters, boston_housing and
california_housing: Lamina reads the same files as Keras and returns exactly what Keras
3.15.1 returned for them (keras_dataset_reference.json, made by
tests/fixtures/make_dataset_references.py), and without a file and without network it says
where to put the file."""
import json
import os
import urllib.request

import numpy as np
import pytest

from lamina.datasets import (DatasetUnavailableError, UnsafePickleError, boston_housing,
                             california_housing, cifar100, fashion_mnist, imdb, reuters)
from tests.datasets import synthetic_files as sf

with open(os.path.join(os.path.dirname(__file__), "keras_dataset_reference.json")) as _f:
    REFERENCE = json.load(_f)


def assert_matches(result, name):
    expected = REFERENCE[name]["result"]
    got = sf.to_jsonable(result)
    for pair_e, pair_g in zip(expected, got):
        for e, g in zip(pair_e, pair_g):
            assert (g["dtype"], g["shape"]) == (e["dtype"], e["shape"]), name
            if e["dtype"].startswith("float"):
                np.testing.assert_array_equal(np.array(g["values"]), np.array(e["values"]))
            else:
                assert g["values"] == e["values"], name


@pytest.mark.parametrize("name", ["imdb_default", "imdb_limits", "imdb_no_oov"])
def test_imdb_equals_keras(tmp_path, name):
    path = sf.write_imdb(str(tmp_path))
    assert_matches(imdb.load_data(path=path, **REFERENCE[name]["kwargs"]), name)


@pytest.mark.parametrize("name", ["reuters_default", "reuters_limits"])
def test_reuters_equals_keras(tmp_path, name):
    path = sf.write_reuters(str(tmp_path))
    assert_matches(reuters.load_data(path=path, **REFERENCE[name]["kwargs"]), name)
    assert len(reuters.get_label_names()) == 46 and reuters.get_label_names()[3] == "earn"


def test_housing_equals_keras(tmp_path):
    path = sf.write_boston(str(tmp_path))
    assert_matches(boston_housing.load_data(path=path, test_split=0.25, seed=5),
                   "boston_housing")
    path = sf.write_california(str(tmp_path))
    assert_matches(california_housing.load_data(path=path), "california_housing")
    (x, _), (xt, _) = california_housing.load_data(version="small", path=path)
    assert len(x) + len(xt) == 17                  # fewer than 600 samples: all of them


def test_fashion_mnist_equals_keras(tmp_path):
    folder = sf.write_fashion_mnist(str(tmp_path / "fashion-mnist"))
    assert_matches(fashion_mnist.load_data(path=folder), "fashion_mnist")


@pytest.mark.parametrize("mode", ["fine", "coarse"])
def test_cifar100_equals_keras_from_folder_and_archive(tmp_path, mode):
    inner = sf.write_cifar100(str(tmp_path))
    assert_matches(cifar100.load_data(mode, path=inner), f"cifar100_{mode}")
    assert_matches(cifar100.load_data(mode, path=str(tmp_path / "cifar-100-python.tar.gz")),
                   f"cifar100_{mode}")


def test_the_cache_folder_is_used_by_default(tmp_path, monkeypatch):
    monkeypatch.setenv("LAMINA_HOME", str(tmp_path))
    cache = tmp_path / "datasets"
    cache.mkdir()
    sf.write_imdb(str(cache))
    sf.write_fashion_mnist(str(cache / "fashion-mnist"))
    sf.write_word_index(str(cache), "imdb_word_index.json")
    assert_matches(imdb.load_data(), "imdb_default")
    assert_matches(fashion_mnist.load_data(), "fashion_mnist")
    assert imdb.get_word_index() == {"the": 1, "and": 2, "movie": 3}


def _offline(*args, **kwargs):
    raise OSError("network is unreachable")


@pytest.mark.parametrize("load, file", [
    (lambda: imdb.load_data(), "imdb.npz"),
    (lambda: reuters.load_data(), "reuters.npz"),
    (lambda: boston_housing.load_data(), "boston_housing.npz"),
    (lambda: california_housing.load_data(), "california_housing.npz"),
    (lambda: fashion_mnist.load_data(), "train-images-idx3-ubyte.gz"),
    (lambda: cifar100.load_data(), "cifar-100-python.tar.gz"),
    (lambda: reuters.get_word_index(), "reuters_word_index.json"),
])
def test_without_file_or_network_the_error_says_where_to_put_it(tmp_path, monkeypatch, load,
                                                                file):
    monkeypatch.setenv("LAMINA_HOME", str(tmp_path))
    monkeypatch.setattr(urllib.request, "urlopen", _offline)
    with pytest.raises(DatasetUnavailableError) as info:
        load()
    message = str(info.value)
    assert file in message and str(tmp_path) in message
    assert "could not be downloaded" in message and "network is unreachable" in message
    assert "load_data(path=...)" in message or "get_word_index(path=...)" in message


def test_a_missing_explicit_path_is_an_error_naming_it(tmp_path):
    with pytest.raises(DatasetUnavailableError, match=r"imdb: argument 'path' must name an "
                                                      r"existing file or folder; received"):
        imdb.load_data(path=str(tmp_path / "nowhere" / "imdb.npz"))


class _Evil:
    def __reduce__(self):
        return (os.system, ("echo pwned",))


def test_an_object_array_holding_code_is_refused(tmp_path):
    x = np.empty(2, dtype=object)
    x[:] = [[1, 2], _Evil()]
    path = tmp_path / "imdb.npz"
    np.savez(path, x_train=x, y_train=np.zeros(2, int), x_test=x, y_test=np.zeros(2, int))
    with pytest.raises(UnsafePickleError, match=r"imdb: .*x_train\]: refusing to unpickle "
                                                r"global '(posix|os|nt)\.system'"):
        imdb.load_data(path=str(path))


def test_bad_arguments_are_refused_as_keras_does(tmp_path):
    with pytest.raises(ValueError, match=r"cifar100.load_data: argument 'label_mode' must be "
                                         r"one of 'fine', 'coarse'; received 'medium'"):
        cifar100.load_data("medium")
    with pytest.raises(ValueError, match=r"argument 'test_split' must be in \[0, 1\); "
                                         r"received 1.0"):
        boston_housing.load_data(test_split=1.0)
    with pytest.raises(ValueError, match=r"argument 'version' must be one of 'small', "
                                         r"'large'; received 'huge'"):
        california_housing.load_data(version="huge")
    path = sf.write_imdb(str(tmp_path))
    with pytest.raises(ValueError, match=r"imdb.load_data: no sequence is shorter than "
                                         r"maxlen=2"):
        imdb.load_data(path=path, maxlen=2)
