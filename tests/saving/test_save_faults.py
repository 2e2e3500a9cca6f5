"""Saving onto a hostile disk: full, too small a file size limit, read-only, a path through a
file, long names, and the temporary files of killed writers. Every save fails with a
FileWriteError naming the user's path and the cause, leaves no temporary file and keeps the
previous file."""
import errno
import os
import pathlib
import subprocess
import sys

import numpy as np
import pytest

from lamina.saving import load_model
from lamina.saving.atomic import is_temporary_for, name_max, temporary_name
from lamina.saving.errors import FileWriteError

from .helpers import dense_bn, snapshot

WRITER = pathlib.Path(__file__).with_name("fault_writer.py")
ROOT = pathlib.Path(__file__).resolve().parents[2]
SAVES = {".weights.h5": lambda model, path: model.save_weights(path),
         ".h5": lambda model, path: model.save(path),
         ".keras": lambda model, path: model.save(path),
         ".graph.h5": lambda model, path: model.export(path)}


def _run_writer(folder, mode: str) -> None:
    env = {**os.environ, "PYTHONPATH": str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", "")}
    result = subprocess.run([sys.executable, str(WRITER), str(folder), mode], env=env,
                            capture_output=True, text=True, timeout=300)
    # Before saves were built in memory, HDF5 died with SIGSEGV here (exit status -11).
    assert result.returncode == 0, (result.returncode, result.stderr[-3000:])
    assert result.stdout.split()[0] == "ok", result.stdout


def test_file_size_limit_fails_every_save_cleanly(tmp_path):
    """RLIMIT_FSIZE at six sizes from 1 kB to 900 kB, each format and a BackupAndRestore;
    then a double_checkpoint copy to ``.bkp`` that hits the limit."""
    _run_writer(tmp_path, "fsize")
    assert sorted(os.listdir(tmp_path)) == ["double", "m.graph.h5", "m.h5", "m.keras",
                                            "m.weights.h5"]
    assert sorted(os.listdir(tmp_path / "double")) == [
        "latest.weights.h5", "latest.weights.h5.bkp", "training_metadata.json",
        "training_metadata.json.bkp"]


@pytest.fixture
def tmpfs(tmp_path):
    """A 1.6 MB tmpfs at tmp_path/disk (needs root and permission to mount)."""
    disk = tmp_path / "disk"
    disk.mkdir()
    if os.geteuid() != 0:
        pytest.skip("mounting a tmpfs needs root")
    done = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=1600k", "tmpfs", str(disk)],
                          capture_output=True, text=True)
    if done.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs here: {done.stderr.strip()}")
    try:
        yield disk
    finally:
        subprocess.run(["umount", "-l", str(disk)], capture_output=True)


def test_full_disk_fails_every_save_cleanly(tmpfs):
    _run_writer(tmpfs, "full")
    assert sorted(os.listdir(tmpfs)) == ["m.graph.h5", "m.h5", "m.keras", "m.weights.h5"]


@pytest.fixture
def read_only_folder(tmp_path):
    """A folder the process cannot write, with a model saved in it before: a tmpfs
    remounted read-only for root (who ignores permissions), chmod 555 otherwise."""
    folder = tmp_path / "ro"
    folder.mkdir()
    model = dense_bn()
    mounted = False
    if os.geteuid() == 0:
        done = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=4m", "tmpfs", str(folder)],
                              capture_output=True, text=True)
        if done.returncode != 0:
            pytest.skip(f"root ignores permissions and cannot mount a tmpfs here: "
                        f"{done.stderr.strip()}")
        mounted = True
    for suffix, save in SAVES.items():
        save(model, str(folder / f"m{suffix}"))
    try:
        if mounted:
            done = subprocess.run(["mount", "-o", "remount,ro", str(folder)],
                                  capture_output=True, text=True)
            if done.returncode != 0:
                pytest.skip(f"cannot remount the tmpfs read-only: {done.stderr.strip()}")
        else:
            folder.chmod(0o555)
        yield folder
    finally:
        if mounted:
            subprocess.run(["umount", "-l", str(folder)], capture_output=True)
        else:
            folder.chmod(0o755)


@pytest.mark.parametrize("suffix", list(SAVES))
def test_read_only_folder(read_only_folder, suffix):
    path = str(read_only_folder / f"m{suffix}")
    before = {n: (read_only_folder / n).read_bytes() for n in os.listdir(read_only_folder)}
    model = dense_bn()
    with pytest.raises(FileWriteError, match=rf"cannot write '{path}': (the file system is "
                                             rf"read-only|permission denied)") as caught:
        SAVES[suffix](model, path)
    assert caught.value.errno in (errno.EROFS, errno.EACCES) and caught.value.filename == path
    assert {n: (read_only_folder / n).read_bytes()
            for n in os.listdir(read_only_folder)} == before


@pytest.mark.parametrize("suffix", list(SAVES))
def test_parent_that_is_a_file(tmp_path, suffix):
    (tmp_path / "afile").write_bytes(b"x")
    path = str(tmp_path / "afile" / "sub" / f"m{suffix}")
    with pytest.raises(FileWriteError, match=rf"cannot write '{path}': a part of the path "
                                             rf"is a file, not a folder") as caught:
        SAVES[suffix](dense_bn(), path)
    assert isinstance(caught.value, OSError) and caught.value.errno == errno.ENOTDIR
    assert os.listdir(tmp_path) == ["afile"]


@pytest.mark.parametrize("suffix", list(SAVES))
def test_name_longer_than_the_file_system_takes(tmp_path, suffix):
    limit = name_max(str(tmp_path))
    path = str(tmp_path / ("n" * (limit + 1 - len(suffix)) + suffix))
    with pytest.raises(FileWriteError, match=rf"cannot write '{path}': the name is too long "
                                             rf"for the file system \({limit + 1} bytes; "
                                             rf"this file system takes at most {limit}\)"):
        SAVES[suffix](dense_bn(), path)
    assert os.listdir(tmp_path) == []


@pytest.mark.parametrize("length", [240, 250, 255])
def test_long_legal_names_save_and_load(tmp_path, length):
    if name_max(str(tmp_path)) < length:
        pytest.skip(f"this file system takes names of at most {name_max(str(tmp_path))} bytes")
    model = dense_bn()
    x = np.random.default_rng(0).normal(size=(3, 10)).astype("float32")
    expected = model.predict(x, verbose=0)
    for suffix in (".keras", ".h5"):
        path = str(tmp_path / ("k" * (length - len(suffix)) + suffix))
        model.save(path)
        np.testing.assert_allclose(load_model(path).predict(x, verbose=0), expected,
                                   rtol=1e-6, atol=1e-6)
    path = str(tmp_path / ("w" * (length - len(".weights.h5")) + ".weights.h5"))
    model.save_weights(path)
    other = dense_bn()
    other.load_weights(path)
    assert all(np.array_equal(a, b) for a, b in zip(snapshot(other), snapshot(model)))
    path = str(tmp_path / ("g" * (length - len(".h5")) + ".h5"))
    model.export(path)
    assert os.path.getsize(path) > 0
    assert sorted(len(n) for n in os.listdir(tmp_path)) == [length] * 4


def test_temporary_names_fit_and_are_recognised(tmp_path):
    limit = name_max(str(tmp_path))
    for length in (1, 200, 231, 232, 240, limit):
        target = str(tmp_path / ("é" * (length // 2) + "x" * (length % 2)))
        name = os.path.basename(temporary_name(target))
        assert len(os.fsencode(name)) <= limit
        assert is_temporary_for(target, name)
        assert not is_temporary_for(target + "y", name)
        staged = os.path.basename(temporary_name(target, reserve=11))
        assert len(os.fsencode(staged)) + 11 <= limit


def _dead_pid() -> int:
    child = subprocess.Popen([sys.executable, "-c", "pass"])
    child.wait()
    return child.pid


def test_temporary_files_of_dead_writers_are_removed_on_the_next_save(tmp_path):
    dead = _dead_pid()
    sleeper = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    try:
        stale = [f".m.keras.{dead}.0123abcd.tmp", f".other.weights.h5.{dead}.89abcdef.tmp"]
        kept = [f".m.keras.{sleeper.pid}.0123abcd.tmp",        # its writer still runs
                f".m.keras.{os.getpid()}.fedcba98.tmp",         # ours
                f".m.keras.{dead}.0123abcd.tmp.bak",            # not the pattern exactly
                f".m.keras.{dead}.0123ABCD.tmp",
                f"m.keras.{dead}.0123abcd.tmp",
                f".m.keras.{dead}.012345.tmp", "notes.txt"]
        for name in stale + kept:
            (tmp_path / name).write_bytes(b"partial")
        (tmp_path / f".d.{dead}.00000000.tmp").mkdir()          # a folder save's old copy
        kept.append(f".d.{dead}.00000000.tmp")
        dense_bn().save(tmp_path / "m.keras")
        assert sorted(os.listdir(tmp_path)) == sorted(kept + ["m.keras"])
        os.remove(tmp_path / "m.keras")
        os.remove(tmp_path / f".m.keras.{os.getpid()}.fedcba98.tmp")
    finally:
        sleeper.kill()
        sleeper.wait()
    dense_bn().save_weights(tmp_path / "w.weights.h5")             # now the sleeper is dead
    assert sorted(os.listdir(tmp_path)) == sorted(
        n for n in kept + ["w.weights.h5"] if str(sleeper.pid) not in n
        and str(os.getpid()) not in n)
