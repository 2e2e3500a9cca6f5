"""Files are replaced atomically: a failed or killed save leaves the previous file whole."""
import os
import signal
import subprocess
import sys
import textwrap
import time

import numpy as np
import pytest

from lamina.saving import SavedFileNotFoundError, load_model
from lamina.saving.atomic import atomic_folder, atomic_path, is_temporary_for

from .helpers import dense_bn, snapshot


def test_atomic_path_replaces_on_success_and_uses_the_umask(tmp_path):
    target = tmp_path / "f.bin"
    target.write_bytes(b"old")
    previous = os.umask(0o022)
    try:
        with atomic_path(str(target)) as temporary:
            assert os.path.dirname(temporary) == str(tmp_path)
            with open(temporary, "wb") as f:
                f.write(b"new")
            assert target.read_bytes() == b"old"         # nothing visible until the end
    finally:
        os.umask(previous)
    assert target.read_bytes() == b"new"
    assert os.stat(target).st_mode & 0o777 == 0o644
    assert os.listdir(tmp_path) == ["f.bin"]


def test_atomic_path_failure_keeps_the_old_file_and_removes_the_temporary(tmp_path):
    target = tmp_path / "f.bin"
    target.write_bytes(b"old")
    with pytest.raises(RuntimeError, match="disk on fire"):
        with atomic_path(str(target)) as temporary:
            with open(temporary, "wb") as f:
                f.write(b"half")
            raise RuntimeError("disk on fire")
    assert target.read_bytes() == b"old"
    assert os.listdir(tmp_path) == ["f.bin"]


def test_atomic_folder_swaps_folders_and_restores_on_failure(tmp_path):
    target = tmp_path / "d"
    with atomic_folder(str(target)) as folder:
        (open(os.path.join(folder, "a"), "w")).close()
    with pytest.raises(KeyError):
        with atomic_folder(str(target)) as folder:
            (open(os.path.join(folder, "b"), "w")).close()
            raise KeyError("stop")
    assert os.listdir(target) == ["a"]
    with atomic_folder(str(target)) as folder:
        (open(os.path.join(folder, "b"), "w")).close()
    assert os.listdir(target) == ["b"] and os.listdir(tmp_path) == ["d"]


def test_missing_folder_is_a_typed_error(tmp_path):
    with pytest.raises(SavedFileNotFoundError, match=r"cannot write '.*/no/f': the folder "
                                                     r"'.*/no' does not exist"):
        with atomic_path(str(tmp_path / "no" / "f")):
            pass


def test_error_while_saving_a_model_keeps_the_previous_file(tmp_path, monkeypatch):
    import h5py
    model = dense_bn()
    model.save(tmp_path / "m.keras")
    model.save_weights(tmp_path / "m.weights.h5")
    before = {p: (tmp_path / p).read_bytes() for p in ("m.keras", "m.weights.h5")}
    for v in model.weights:
        v.assign(np.ones(v.shape, "float32"))
    create_dataset = h5py.Group.create_dataset
    calls = {"n": 0}

    def disk_full_at_the_fourth_array(self, *args, **kwargs):
        calls["n"] += 1
        if calls["n"] % 4 == 0:
            raise OSError("No space left on device")
        return create_dataset(self, *args, **kwargs)
    monkeypatch.setattr(h5py.Group, "create_dataset", disk_full_at_the_fourth_array)
    with pytest.raises(OSError, match="No space left"):
        model.save(tmp_path / "m.keras")
    with pytest.raises(OSError, match="No space left"):
        model.save_weights(tmp_path / "m.weights.h5")
    assert calls["n"] == 8
    assert {p: (tmp_path / p).read_bytes() for p in before} == before
    assert sorted(os.listdir(tmp_path)) == ["m.keras", "m.weights.h5"]


WRITER = textwrap.dedent("""
    import sys
    import numpy as np
    import lamina
    from lamina import layers
    from lamina.saving import save_model, save_weights
    path, kind = sys.argv[1], sys.argv[2]
    model = lamina.Sequential([lamina.Input((1000,)), layers.Dense(1000), layers.Dense(1000),
                               layers.Dense(1000)])
    version = 0
    while True:
        version += 1
        for v in model.weights:
            v.assign(np.full(v.shape, float(version), "float32"))
        (save_model if kind == "keras" else save_weights)(model, path)
        if version == 1:
            print("saved", flush=True)
""")


def _kill_mid_write(path: str, kind: str, tmp_path) -> bool:
    """Start a writer that saves again and again; SIGKILL it while a write is under way.
    Returns whether a temporary file was left behind (the kill hit a write)."""
    env = {**os.environ, "PYTHONPATH": os.getcwd() + os.pathsep +
           os.environ.get("PYTHONPATH", "")}
    process = subprocess.Popen([sys.executable, "-c", WRITER, path, kind],
                               stdout=subprocess.PIPE, env=env)
    try:
        assert process.stdout.readline().strip() == b"saved"
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            if any(is_temporary_for(path, n) for n in os.listdir(tmp_path)):
                os.kill(process.pid, signal.SIGKILL)
                break
            time.sleep(0.0005)
    finally:
        process.kill()
        process.wait()
    return any(is_temporary_for(path, n) for n in os.listdir(tmp_path))


@pytest.mark.parametrize("kind", ["keras", "weights"])
def test_process_killed_mid_write_leaves_a_loadable_file(kind, tmp_path):
    name = "big.keras" if kind == "keras" else "big.weights.h5"
    path = str(tmp_path / name)
    for _ in range(5):                       # the kill can land between two writes: retry
        if _kill_mid_write(path, kind, tmp_path):
            break
        for n in os.listdir(tmp_path):
            os.remove(tmp_path / n)
    else:
        pytest.fail("never caught the writer in the middle of a write")
    if kind == "keras":
        model = load_model(path)
    else:
        import lamina
        from lamina import layers
        model = lamina.Sequential([lamina.Input((1000,)), layers.Dense(1000),
                                   layers.Dense(1000), layers.Dense(1000)])
        model.load_weights(path)
    values = {float(a.flat[0]) for a in snapshot(model)}
    assert len(values) == 1 and values.pop() >= 1.0     # one whole version, never a mix
    assert all(np.all(a == a.flat[0]) for a in snapshot(model))
