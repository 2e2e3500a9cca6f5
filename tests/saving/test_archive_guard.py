"""Hostile .keras archives: duplicated or escaping entry names, zip bombs and entries past
their caps, deeply nested JSON. Each is refused with a Lamina error naming the file and the
entry; legitimate files still load."""
import bz2  # noqa: F401  (ZIP_BZIP2 needs it)
import json
import os
import re
import struct
import threading
import time
import tracemalloc
import warnings
import zipfile
import zlib

import h5py
import numpy as np
import pytest

import lamina
from lamina import layers
from lamina.saving import archive_guard
from lamina.saving.archive_guard import UnsafeArchiveError
from lamina.saving.errors import CorruptFileError, SavingError
from lamina.backend import numba_chain

MiB = 1 << 20


def _model():
    model = lamina.Sequential([lamina.Input((3,)), layers.Dense(4), layers.Dense(2)])
    model.compile(optimizer="adam", loss="mse")
    model.fit(np.ones((4, 3), "float32"), np.zeros((4, 2), "float32"), epochs=1, verbose=0)
    return model


@pytest.fixture(scope="module")
def saved(tmp_path_factory):
    """A legit Lamina .keras file, its model and its three entries."""
    model = _model()
    path = str(tmp_path_factory.mktemp("archive") / "good.keras")
    model.save(path)
    with zipfile.ZipFile(path) as zf:
        entries = {name: zf.read(name) for name in zf.namelist()}
    return model, path, entries


def _write(path, entries, compression=zipfile.ZIP_STORED):
    """A zip of ``entries`` (a list of (name, bytes), duplicates allowed)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")          # zipfile warns on a duplicate name
        with zipfile.ZipFile(path, "w", compression=compression) as zf:
            for name, data in entries:
                zf.writestr(name, data)
    return str(path)


# ---------------------------------------------------------------------------- names
@pytest.mark.parametrize("name", ["config.json", "model.weights.h5", "metadata.json"])
def test_duplicate_entry_is_refused(saved, tmp_path, name):
    _, _, entries = saved
    items = list(entries.items())
    other = b"{}" if name.endswith(".json") else entries[name]
    path = _write(tmp_path / "dup.keras", items + [(name, other)])
    with zipfile.ZipFile(path) as zf:
        assert [i.filename for i in zf.infolist()].count(name) == 2
    with pytest.raises(UnsafeArchiveError,
                       match=re.escape(f"'{path}': refusing the .keras archive: it holds two "
                                       f"entries named '{name}'")):
        lamina.saving.load_model(path)


@pytest.mark.parametrize("name, why", [
    ("../../x", "climbs out of the archive with '..'"),
    ("assets/../../etc/passwd", "climbs out of the archive with '..'"),
    ("/tmp/x", "it is an absolute path"),
    ("assets\\..\\..\\x", "it contains a backslash"),
    ("C:x", "it names a drive"),
    ("c:/windows/x", "it names a drive"),
])
def test_escaping_entry_name_is_refused(saved, tmp_path, name, why):
    _, _, entries = saved
    path = _write(tmp_path / "escape.keras", list(entries.items()) + [(name, b"x")])
    with zipfile.ZipFile(path) as zf:          # zipfile keeps the name as written
        assert zf.infolist()[-1].filename == name
    message = re.escape(f"'{path}': refusing the .keras archive: its entry {name!r} is not a "
                        f"plain name inside it (") + ".*" + re.escape(why)
    with pytest.raises(UnsafeArchiveError, match=message):
        lamina.saving.load_model(path)
    with pytest.raises(UnsafeArchiveError, match=message):
        lamina.saving.describe(path, print_fn=None)
    model = _model()
    with pytest.raises(UnsafeArchiveError, match=message):
        model.load_weights(path)
    assert not os.path.exists(tmp_path / "x") and sorted(os.listdir(tmp_path)) == \
        ["escape.keras"]                       # nothing was extracted


# ---------------------------------------------------------------------------- sizes
def _deflate_bomb(path, entries, name, mib):
    """A zip whose entry ``name`` is ``mib`` MiB of spaces, deflated (about 1 KB per MiB),
    built from one compressed block repeated, so the test stays fast and small."""
    chunk = b" " * MiB
    compressor = zlib.compressobj(9, zlib.DEFLATED, -15)
    block = compressor.compress(chunk) + compressor.flush(zlib.Z_FULL_FLUSH)
    stream = block * mib + compressor.flush(zlib.Z_FINISH)
    crc = 0
    for _ in range(mib):
        crc = zlib.crc32(chunk, crc)
    _write(path, list(entries.items()) + [(name, stream)])
    # The stream went in stored: make its headers say deflated, with the real CRC and size.
    raw = bytearray(open(path, "rb").read())
    with zipfile.ZipFile(path) as zf:
        info = zf.getinfo(name)
    local = info.header_offset
    central = raw.rindex(b"PK\x01\x02", 0, raw.rindex(b"PK\x05\x06"))
    while raw[central + 46:central + 46 + len(name)] != name.encode():
        central = raw.rindex(b"PK\x01\x02", 0, central)
    for method_at, crc_at in ((local + 8, local + 14), (central + 10, central + 16)):
        raw[method_at:method_at + 2] = struct.pack("<H", zipfile.ZIP_DEFLATED)
        raw[crc_at:crc_at + 12] = struct.pack("<III", crc, len(stream), mib * MiB)
    open(path, "wb").write(bytes(raw))
    return str(path)


@pytest.fixture(scope="module")
def bomb(saved, tmp_path_factory):
    _, _, entries = saved
    others = {k: v for k, v in entries.items() if k != "config.json"}
    path = tmp_path_factory.mktemp("bomb") / "bomb.keras"
    return _deflate_bomb(path, others, "config.json", 1536)


def test_config_bomb_is_refused_at_once(bomb):
    assert os.path.getsize(bomb) < 2 * MiB
    with zipfile.ZipFile(bomb) as zf:
        info = zf.getinfo("config.json")
        assert info.file_size == 1536 * MiB and info.compress_type == zipfile.ZIP_DEFLATED
        with zf.open(info) as stream:          # a well-formed deflate stream of spaces
            assert stream.read(10) == b" " * 10
    numba_chain.wait_for_compiles(120)   # a compile on the worker thread allocates too
    tracemalloc.start()
    start = time.perf_counter()
    with pytest.raises(UnsafeArchiveError, match=re.escape(
            f"'{bomb}': refusing entry 'config.json': it inflates to {1536 * MiB} bytes, "
            f"more than the {64 * MiB} bytes Lamina reads for it")):
        lamina.saving.load_model(bomb)
    elapsed = time.perf_counter() - start
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    assert elapsed < 2.0 and peak < 16 * MiB, (elapsed, peak)
    with pytest.raises(UnsafeArchiveError, match="refusing entry 'config.json'"):
        lamina.saving.describe(bomb, print_fn=None)


def test_config_below_cap_but_bomb_ratio_is_refused(saved, tmp_path):
    _, _, entries = saved
    others = {k: v for k, v in entries.items() if k != "config.json"}
    path = _deflate_bomb(tmp_path / "ratio.keras", others, "config.json", 8)
    with pytest.raises(UnsafeArchiveError, match=re.escape(
            f"'{path}': refusing entry 'config.json': it inflates ") + r"10\d\d times .*"
            + re.escape(f"-> {8 * MiB} bytes), more than the 500 times Lamina accepts "
                        f"(a zip bomb)")):
        lamina.saving.load_model(path)


def test_weights_past_the_models_budget_are_refused(saved, tmp_path):
    model, _, entries = saved
    others = {k: v for k, v in entries.items() if k != "model.weights.h5"}
    path = _deflate_bomb(tmp_path / "weights.keras", others, "model.weights.h5", 80)
    cap = archive_guard.weights_cap(model)
    assert cap == 6 * 4 * (3 * 4 + 4 + 4 * 2 + 2) + 64 * MiB
    message = re.escape(f"'{path}': refusing entry 'model.weights.h5': it inflates to "
                        f"{80 * MiB} bytes, more than the {cap} bytes Lamina reads for it")
    with pytest.raises(UnsafeArchiveError, match=message):
        lamina.saving.load_model(path)
    with pytest.raises(UnsafeArchiveError, match=message):
        _model().load_weights(path)


def test_bzip2_weights_past_any_deflate_ratio_are_refused(saved, tmp_path):
    _, _, entries = saved
    items = [(k, v) for k, v in entries.items() if k != "model.weights.h5"]
    path = _write(tmp_path / "bz.keras", items + [("model.weights.h5", bytes(32 * MiB))],
                  compression=zipfile.ZIP_BZIP2)
    with pytest.raises(UnsafeArchiveError, match=re.escape(
            f"'{path}': refusing entry 'model.weights.h5': it inflates ") + r"\d+ times .*"
            + re.escape("more than the 1100 times Lamina accepts (a zip bomb)")):
        lamina.saving.load_model(path)


def test_folder_entry_past_its_cap_is_refused(saved, tmp_path):
    _, _, entries = saved
    folder = tmp_path / "model_folder"
    folder.mkdir()
    for name, data in entries.items():
        (folder / name).write_bytes(data)
    with open(folder / "metadata.json", "ab") as f:
        f.write(b" " * (2 * MiB))
    with pytest.raises(UnsafeArchiveError, match=re.escape(
            f"'{folder}': refusing entry 'metadata.json': it inflates to "
            f"{2 * MiB + len(entries['metadata.json'])} "
            f"bytes, more than the {MiB} bytes Lamina reads for it")):
        lamina.saving.describe(str(folder), print_fn=None)


def test_reading_stops_at_the_cap_whatever_the_size_says(tmp_path):
    """A FIFO reports no size: the count is enforced while reading, in chunks."""
    fifo = str(tmp_path / "config.json")
    os.mkfifo(fifo)
    written = []

    def writer():
        try:
            with open(fifo, "wb") as f:
                for _ in range(64):
                    f.write(b" " * MiB)
                    written.append(1)
        except BrokenPipeError:
            pass

    thread = threading.Thread(target=writer, daemon=True)
    thread.start()
    with pytest.raises(UnsafeArchiveError, match=re.escape(
            f"'{tmp_path}': refusing entry 'config.json': it inflates to more than "
            f"{2 * MiB} bytes, more than the {2 * MiB} bytes Lamina reads for it")):
        archive_guard.read_folder_file(fifo, str(tmp_path), "config.json", 2 * MiB)
    thread.join(5)
    assert not thread.is_alive() and len(written) < 8


# --------------------------------------------------------------------------- nesting
def test_deeply_nested_config_is_refused_naming_the_file(saved, tmp_path):
    _, _, entries = saved
    deep = b"[" * 100000 + b"]" * 100000
    items = [(k, v) for k, v in entries.items() if k != "config.json"]
    path = _write(tmp_path / "deep.keras", items + [("config.json", deep)])
    message = re.escape(f"'{path}': config.json nests 100000 levels deep, more than the "
                        f"512 Lamina reads")
    with pytest.raises(CorruptFileError, match=message):
        lamina.saving.load_model(path)
    with pytest.raises(CorruptFileError, match=message):
        lamina.saving.describe(path, print_fn=None)


def test_deeply_nested_json_elsewhere_is_refused(saved, tmp_path):
    model, _, _ = saved
    deep = "[" * 100000 + "]" * 100000
    with pytest.raises(SavingError, match=re.escape(
            "model_from_json: argument 'json_string' nests 100000 levels deep, more than "
            "the 512 Lamina reads")):
        lamina.saving.model_from_json(deep)
    path = str(tmp_path / "deep.h5")
    model.save(path)
    with h5py.File(path, "a") as f:
        f.attrs["model_config"] = deep
    with pytest.raises(CorruptFileError, match=re.escape(
            f"'{path}': the 'model_config' attribute nests 100000 levels deep")):
        lamina.saving.load_model(path)


def test_json_depth_ignores_brackets_in_strings():
    text = json.dumps({"a": "[" * 1000 + '\\"[{', "b": [[1, {"c": []}]]}).encode()
    assert archive_guard.json_depth(text) == 5
    assert archive_guard.json_depth(b"[" * 600 + b"]" * 600) == 600
    assert archive_guard.loads(b"[" * 512 + b"]" * 512, "f", "x") is not None


def test_parser_recursion_is_reported_naming_the_file(monkeypatch):
    monkeypatch.setattr(archive_guard, "MAX_JSON_DEPTH", 10 ** 6)
    with pytest.raises(CorruptFileError, match=re.escape(
            "'m.keras': config.json nests too deeply for Python's JSON parser")):
        archive_guard.loads(b"[" * 100000 + b"]" * 100000, "m.keras", "config.json")


# ------------------------------------------------------------------------ legit files
def test_legit_archives_still_load(saved, tmp_path):
    model, path, entries = saved
    x = np.arange(6, dtype="float32").reshape(2, 3)
    expected = model.predict(x, verbose=0)
    deflated = _write(tmp_path / "deflated.keras", list(entries.items()),
                      compression=zipfile.ZIP_DEFLATED)
    with_assets = _write(tmp_path / "assets.keras", list(entries.items())
                         + [("assets/vocab/words.txt", b"a\nb\n")])
    for source in (path, deflated, with_assets):
        restored = lamina.saving.load_model(source)
        np.testing.assert_allclose(restored.predict(x, verbose=0), expected, rtol=1e-6)
    other = _model()
    other.load_weights(deflated)
    np.testing.assert_allclose(other.predict(x, verbose=0), expected, rtol=1e-6)
    assert "Dense" in str(lamina.saving.describe(deflated, print_fn=None))


def test_the_refusal_and_write_errors_are_public_in_lamina_saving():
    """A user catching a refused file or a failed save needs the types by a public name."""
    import lamina.saving as saving
    from lamina.errors import LaminaError
    for name in ("FileWriteError", "H5FileError", "H5ChecksumError", "UnsafeH5FileError",
                 "UnsafeArchiveError", "WeightBudgetError", "CorruptFileError"):
        assert name in saving.__all__
        assert issubclass(getattr(saving, name), LaminaError)
    assert issubclass(saving.FileWriteError, OSError)
