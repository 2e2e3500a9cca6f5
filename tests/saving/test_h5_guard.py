"""Hostile HDF5 files (issue 10, items 1 and 3).

Item 1: a dataset replaced by one whose data lives elsewhere (HDF5 external storage of a
host file, an external link, a soft link, a virtual dataset) is refused by every reader,
with an error naming the file and the dataset, and nothing is loaded. Each crafted dataset
has the shape and dtype of the kernel it replaces, so the old readers loaded the host
file's bytes into the model.

Item 3: what Lamina writes carries Fletcher-32 checksums; a flipped byte is refused.
"""
import io
import os
import re
import shutil
import zipfile
import zlib

import h5py
import numpy as np
import pytest

import lamina
from lamina import layers
from lamina.callbacks import BackupAndRestore
from lamina.graph import load_exported
from lamina import h5_guard
from lamina.h5_guard import H5ChecksumError, H5FileError, UnsafeH5FileError
from lamina.saving import describe

SECRET = 7.25                  # what the host file holds: a loaded model would show it


def model():
    lamina.utils.set_random_seed(3)
    m = lamina.Sequential([lamina.Input((4,)), layers.Dense(3), layers.Dense(2)])
    m.compile(optimizer="adam", loss="mse")
    return m


def kernel_dataset(h5: h5py.File) -> str:
    """The path of the first 2-D float dataset: a Dense kernel, shape (4, 3)."""
    found = []
    h5.visititems(lambda name, obj: found.append(name) if isinstance(obj, h5py.Dataset)
                  and obj.shape == (4, 3) and obj.dtype.kind == "f" else None)
    assert found, "no (4, 3) kernel in the file"
    return found[0]


def _other_file(tmp_path, shape, dtype) -> str:
    path = str(tmp_path / "elsewhere.h5")
    with h5py.File(path, "w") as f:
        f.create_dataset("data", data=np.full(shape, SECRET, dtype))
    return path


def craft(h5path, kind: str, tmp_path) -> str:
    """Replace the kernel of the h5 file at ``h5path`` by a dataset of the same shape and
    dtype whose data is not in the file; returns the replaced dataset's path."""
    with h5py.File(h5path, "a") as f:
        name = kernel_dataset(f)
        shape, dtype = f[name].shape, f[name].dtype
        del f[name]
        if kind == "external_storage":
            host = tmp_path / "host_file.bin"          # any file of the machine
            host.write_bytes(np.full(shape, SECRET, dtype).tobytes())
            f.create_dataset(name, shape=shape, dtype=dtype,
                             external=[(str(host), 0, int(np.prod(shape)) * dtype.itemsize)])
        elif kind == "external_link":
            f[name] = h5py.ExternalLink(_other_file(tmp_path, shape, dtype), "/data")
        elif kind == "soft_link":
            f.create_dataset("copy", data=np.full(shape, SECRET, dtype))
            f[name] = h5py.SoftLink("/copy")
        elif kind == "soft_link_out":                   # a soft link through an external one
            f["outside"] = h5py.ExternalLink(_other_file(tmp_path, shape, dtype), "/")
            f[name] = h5py.SoftLink("/outside/data")
        elif kind == "virtual":
            layout = h5py.VirtualLayout(shape=shape, dtype=dtype)
            layout[...] = h5py.VirtualSource(_other_file(tmp_path, shape, dtype), "data",
                                             shape=shape)
            f.create_virtual_dataset(name, layout)
        else:
            raise AssertionError(kind)
    return name


KINDS = ["external_storage", "external_link", "soft_link", "soft_link_out", "virtual"]
WHAT = {"external_storage": "external storage: '.*host_file.bin'",
        "external_link": "is an external link \\(h5py.ExternalLink\\) to '/data' in the file "
                         "'.*elsewhere.h5'",
        "soft_link": "is a soft link \\(h5py.SoftLink\\) to '/copy'",
        "soft_link_out": "(external|soft) link",
        "virtual": "is a virtual dataset"}


def refused(path, name, kind):
    entry = "/outside" if kind == "soft_link_out" else f"/{name}"
    pattern = rf"'{re.escape(str(path))}': the (dataset|link) '({re.escape(entry)}|/" \
              rf"{re.escape(name)})' (.|\n)*{WHAT[kind]}(.|\n)*Not allowed: H5 file with " \
              rf"external Dataset"
    return pytest.raises(UnsafeH5FileError, match=pattern)


def kernel_values(m) -> np.ndarray:
    return m.layers[0].kernel.numpy()


# ------------------------------------------------------------------ every reading path
@pytest.mark.parametrize("kind", KINDS)
def test_weights_h5_refuses_data_outside_the_file(kind, tmp_path):
    path = tmp_path / "m.weights.h5"
    model().save_weights(path)
    name = craft(path, kind, tmp_path)
    target = model()
    before = kernel_values(target)
    with refused(path, name, kind):
        target.load_weights(path)
    np.testing.assert_array_equal(kernel_values(target), before)   # nothing assigned
    with refused(path, name, kind):
        describe(path, print_fn=None)


@pytest.mark.parametrize("kind", KINDS)
def test_legacy_h5_refuses_data_outside_the_file(kind, tmp_path):
    path = tmp_path / "m.h5"
    model().save(path)
    name = craft(path, kind, tmp_path)
    with refused(path, name, kind):
        lamina.saving.load_model(path)
    target = model()
    before = kernel_values(target)
    with refused(path, name, kind):
        target.load_weights(path)
    np.testing.assert_array_equal(kernel_values(target), before)
    with refused(path, name, kind):
        describe(path, print_fn=None)


def _craft_in_archive(path, kind, tmp_path) -> str:
    inner = tmp_path / "inner.h5"
    with zipfile.ZipFile(path) as zf:
        entries = {n: zf.read(n) for n in zf.namelist()}
    inner.write_bytes(entries["model.weights.h5"])
    name = craft(inner, kind, tmp_path)
    entries["model.weights.h5"] = inner.read_bytes()
    with zipfile.ZipFile(path, "w") as zf:
        for n, data in entries.items():
            zf.writestr(n, data)
    return name


@pytest.mark.parametrize("kind", KINDS)
def test_keras_archive_refuses_data_outside_its_weights_file(kind, tmp_path):
    path = tmp_path / "m.keras"
    model().save(path)
    name = _craft_in_archive(path, kind, tmp_path)
    with refused(path, name, kind):
        lamina.saving.load_model(path)
    target = model()
    with refused(path, name, kind):
        target.load_weights(path)
    with pytest.raises(UnsafeH5FileError, match=re.escape(f"'{path}/model.weights.h5'")):
        describe(path, print_fn=None)


@pytest.mark.parametrize("kind", KINDS)
def test_exported_graph_refuses_data_outside_the_file(kind, tmp_path):
    path = tmp_path / "m.lamina_graph.h5"
    model().export(path, x=np.zeros((2, 4), "float32"))
    name = craft(path, kind, tmp_path)
    with refused(path, name, kind):
        load_exported(path)


def _fit(m, backup_dir, epochs=1):
    x = np.linspace(-1, 1, 32, dtype="float32").reshape(8, 4)
    y = np.ones((8, 2), "float32")
    m.fit(x, y, epochs=epochs, batch_size=4, verbose=0,
          callbacks=[BackupAndRestore(str(backup_dir), delete_checkpoint=False)])


@pytest.mark.parametrize("kind", KINDS)
def test_backup_and_restore_refuses_data_outside_the_backup(kind, tmp_path):
    backup = tmp_path / "backup"
    _fit(model(), backup)
    path = backup / "latest.weights.h5"
    name = craft(path, kind, tmp_path)
    with refused(path, name, kind):
        _fit(model(), backup, epochs=2)


def test_a_hostile_latest_backup_falls_back_to_the_previous_one(tmp_path):
    """double_checkpoint: the refused latest backup is replaced by the one before it, so
    the run ends as one resumed from that previous backup does."""
    x = np.linspace(-1, 1, 32, dtype="float32").reshape(8, 4)
    y = np.ones((8, 2), "float32")

    def resume(backup):
        m = model()
        m.fit(x, y, epochs=3, batch_size=4, verbose=0, callbacks=[BackupAndRestore(
            str(backup), delete_checkpoint=False, double_checkpoint=True)])
        return kernel_values(m)

    backup, reference = tmp_path / "backup", tmp_path / "reference"
    model().fit(x, y, epochs=2, batch_size=4, verbose=0, callbacks=[BackupAndRestore(
        str(backup), delete_checkpoint=False, double_checkpoint=True)])
    shutil.copytree(backup, reference)
    for name in ("latest.weights.h5", "training_metadata.json"):
        if os.path.exists(reference / (name + ".bkp")):
            shutil.copyfile(reference / (name + ".bkp"), reference / name)
    craft(backup / "latest.weights.h5", "external_storage", tmp_path)
    np.testing.assert_array_equal(resume(backup), resume(reference))


def test_unsafe_links_deeper_than_the_datasets_read_are_refused_too(tmp_path):
    """The whole file is walked, not only the datasets a reader asks for."""
    path = tmp_path / "m.weights.h5"
    model().save_weights(path)
    with h5py.File(path, "a") as f:
        f.create_group("unused/deeper")["x"] = h5py.ExternalLink("/etc/hostname", "/")
    with pytest.raises(UnsafeH5FileError, match=r"the link '/unused/deeper/x' is an "
                                                r"external link \(h5py\.ExternalLink\) to '/' in the file "
                                                r"'/etc/hostname'"):
        model().load_weights(path)


def test_a_group_hard_linked_into_itself_is_walked_once(tmp_path):
    path = tmp_path / "m.weights.h5"
    saved = model()
    saved.save_weights(path)
    with h5py.File(path, "a") as f:
        f["layers/loop"] = f["layers"]                # a hard link cycle: still in the file
    loaded = model()
    loaded.load_weights(path)
    np.testing.assert_array_equal(kernel_values(loaded), kernel_values(saved))


# ------------------------------------------------------------------ Fletcher-32 checksums
def _datasets(h5) -> dict:
    found = {}
    h5.visititems(lambda name, obj: found.__setitem__(name, obj)
                  if isinstance(obj, h5py.Dataset) else None)
    return found


def _checksummed(h5) -> dict:
    """``{dataset: has Fletcher-32}`` for every numeric non-scalar dataset."""
    return {name: d.fletcher32 for name, d in _datasets(h5).items()
            if d.shape != () and d.dtype.kind in "biuf"}


def test_every_array_lamina_writes_carries_a_fletcher32_checksum(tmp_path):
    m = model()
    m.fit(np.ones((4, 4), "float32"), np.ones((4, 2), "float32"), verbose=0)
    m.save_weights(tmp_path / "m.weights.h5")
    m.save(tmp_path / "m.h5")
    m.save(tmp_path / "m.keras")
    m.export(tmp_path / "g.h5", x=np.zeros((2, 4), "float32"))
    with zipfile.ZipFile(tmp_path / "m.keras") as zf:
        inner = io.BytesIO(zf.read("model.weights.h5"))
    for source in (tmp_path / "m.weights.h5", tmp_path / "m.h5", inner, tmp_path / "g.h5"):
        with h5py.File(source, "r") as f:
            flags = _checksummed(f)
        assert len(flags) >= 4 and all(flags.values()), (source, flags)


def flip_byte_of(path, array: np.ndarray) -> None:
    data = bytearray(path.read_bytes())
    at = data.find(array.tobytes())
    assert at > 0 and data.find(array.tobytes(), at + 1) == -1, "kernel bytes not unique"
    data[at + 5] ^= 0x10
    path.write_bytes(bytes(data))


def test_a_flipped_byte_in_a_weights_file_is_refused_naming_the_dataset(tmp_path):
    path = tmp_path / "m.weights.h5"
    saved = model()
    saved.save_weights(path)
    flip_byte_of(path, kernel_values(saved))
    target = model()
    before = kernel_values(target)
    with pytest.raises(H5ChecksumError, match=rf"'{re.escape(str(path))}': the dataset "
                                              rf"'/layers/dense/vars/0' fails its "
                                              rf"Fletcher-32 checksum"):
        target.load_weights(path)
    np.testing.assert_array_equal(kernel_values(target), before)


def test_a_flipped_byte_in_a_legacy_h5_file_is_refused_naming_the_dataset(tmp_path):
    path = tmp_path / "m.h5"
    saved = model()
    saved.save(path)
    flip_byte_of(path, kernel_values(saved))
    pattern = rf"'{re.escape(str(path))}': the dataset '/model_weights/dense\w*/.*kernel' " \
              rf"fails its Fletcher-32 checksum"
    with pytest.raises(H5ChecksumError, match=pattern):
        lamina.saving.load_model(path)
    with pytest.raises(H5ChecksumError, match=pattern):
        model().load_weights(path)


def test_a_flipped_byte_in_an_exported_graph_is_refused_naming_the_dataset(tmp_path):
    path = tmp_path / "g.h5"
    saved = model()
    saved.export(path, x=np.zeros((2, 4), "float32"))
    flip_byte_of(path, kernel_values(saved))
    with pytest.raises(H5ChecksumError, match=rf"'{re.escape(str(path))}': the dataset "
                                              rf"'/variables/\d+' fails its Fletcher-32"):
        load_exported(path)


def test_a_flipped_byte_in_the_backed_up_training_state_is_refused(tmp_path):
    backup = tmp_path / "backup"
    _fit(model(), backup)
    path = backup / "latest.weights.h5"
    with h5py.File(path, "r") as f:
        arrays = _datasets(f["training_state/arrays"])
        name, array = max(((n, d[()]) for n, d in arrays.items() if d.shape != ()),
                          key=lambda item: item[1].nbytes)
        assert arrays[name].fletcher32
    flip_byte_of(path, array)
    with pytest.raises(H5ChecksumError, match=rf"'{re.escape(str(path))}': the dataset "
                                              rf"'/training_state/arrays/{name}' fails"):
        _fit(model(), backup, epochs=2)


def test_files_lamina_writes_still_load_bit_for_bit(tmp_path):
    saved = model()
    saved.fit(np.ones((4, 4), "float32"), np.ones((4, 2), "float32"), verbose=0)
    x = np.linspace(-1, 1, 12, dtype="float32").reshape(3, 4)
    for name in ("m.keras", "m.h5"):
        saved.save(tmp_path / name)
        np.testing.assert_array_equal(lamina.saving.load_model(tmp_path / name).predict(
            x, verbose=0), saved.predict(x, verbose=0))
    saved.save_weights(tmp_path / "m.weights.h5")
    loaded = model()
    loaded.load_weights(tmp_path / "m.weights.h5")
    for a, b in zip(loaded.get_weights(), saved.get_weights()):
        np.testing.assert_array_equal(a, b)
    assert "layers/dense/vars/0" in str(describe(tmp_path / "m.weights.h5", print_fn=None))


def test_an_unknown_link_type_is_refused(tmp_path, monkeypatch):
    """h5py cannot write a user-defined link; it reads one as "Unknown link type"."""
    path = tmp_path / "m.weights.h5"
    model().save_weights(path)
    get = h5py.Group.get

    def user_defined(self, name, *args, getlink=False, **kwargs):
        if getlink and name == "vars" and "dense_1" in self.name:
            raise TypeError("Unknown link type")
        return get(self, name, *args, getlink=getlink, **kwargs)
    monkeypatch.setattr(h5py.Group, "get", user_defined)
    # HDF5's own link visit reports the link's type: a user-defined one is not hard
    odd_links = h5_guard._odd_links
    monkeypatch.setattr(h5_guard, "_odd_links", lambda f: odd_links(f) or [
        "/layers/dense_1/vars"])
    with pytest.raises(UnsafeH5FileError, match=r"the link '/layers/dense_1/vars' is a "
                                                r"user-defined HDF5 link"):
        model().load_weights(path)


def test_a_damaged_dataset_without_checksum_is_refused_naming_it(tmp_path):
    """Keras's files have no checksums; a compressed dataset that no longer inflates is
    still named, not reported as a bare h5py OSError."""
    path = tmp_path / "m.weights.h5"
    saved = model()
    saved.save_weights(path)
    kernel = kernel_values(saved)
    with h5py.File(path, "a") as f:
        del f["layers/dense/vars/0"]
        f.create_dataset("layers/dense/vars/0", data=kernel, chunks=kernel.shape,
                         compression="gzip", compression_opts=4)
    data = bytearray(path.read_bytes())
    at = data.find(zlib.compress(kernel.tobytes(), 4)[:16])
    assert at > 0
    data[at + 4:at + 12] = b"\xff" * 8
    path.write_bytes(bytes(data))
    with pytest.raises(H5FileError, match=rf"'{re.escape(str(path))}': cannot read the "
                                          rf"dataset '/layers/dense/vars/0': the file is "
                                          rf"damaged \(OSError"):
        model().load_weights(path)
