"""Every way a save or load can be misused or a file can be damaged gives a typed error that
names the file, never an h5py or zipfile traceback."""
import json
import os
import zipfile

import pytest

import lamina
from lamina.saving import (CorruptFileError, FileFormatError, SavedFileExistsError,
                           SavedFileNotFoundError, SavingError, load_model, load_weights,
                           save_model, save_weights)

from .helpers import assert_identical, dense_bn, snapshot


@pytest.fixture
def saved(tmp_path):
    model = dense_bn()
    model.save(tmp_path / "good.keras")
    return tmp_path / "good.keras"


def test_save_needs_the_keras_extension(tmp_path):
    with pytest.raises(FileFormatError, match=r"must end in '\.keras'.*or '\.h5' / '\.hdf5'.*"
                                              r"filepath='.*m\.tf'"):
        dense_bn().save(tmp_path / "m.tf")
    with pytest.raises(ValueError, match=r"save_model: Invalid filepath extension for saving"):
        dense_bn().save(tmp_path / "m.png")
    # Keras 3: save_format with an extension that names no format is an error, not a warning
    with pytest.raises(FileFormatError, match=r"save_model: The `save_format` argument is "
                                              r"deprecated in Keras 3.*save_format=True"):
        dense_bn().save(tmp_path / "m.txt", save_format=True)
    # zipped=False writes a folder, whose name must not look like a .keras file
    with pytest.raises(FileFormatError, match=r"zipped=False.*should not end in `\.keras`"):
        dense_bn().save(tmp_path / "m.keras", zipped=False)
    assert not os.listdir(tmp_path)


def test_save_weights_needs_the_weights_h5_extension(tmp_path):
    with pytest.raises(FileFormatError, match=r"must end in `\.weights\.h5`.*w\.h5'\. Like "
                                              r"Keras 3, Lamina reads legacy \.h5 weight"):
        dense_bn().save_weights(tmp_path / "w.h5")
    with pytest.raises(FileFormatError, match=r"must end in `\.weights\.json` when "
                                              r"`max_shard_size` is specified"):
        dense_bn().save_weights(tmp_path / "w.h5", max_shard_size=5)


def test_load_extension_errors(saved, tmp_path):
    other = tmp_path / "model.pb"
    other.write_bytes(b"x")
    with pytest.raises(FileFormatError, match=r"load_model: File format not supported.*"
                                              r"model\.pb'.*end in '\.keras'"):
        load_model(other)
    with pytest.raises(FileFormatError, match=r"load_weights: File format not supported"):
        dense_bn().load_weights(other)
    # Keras checks the extension before looking for the file: a missing '.pkl' is a
    # format error too, a ValueError
    with pytest.raises(ValueError, match=r"load_model: File format not supported: "
                                         r"filepath='.*model\.pkl'"):
        load_model(tmp_path / "model.pkl")
    with pytest.raises(ValueError, match=r"load_weights: File format not supported: "
                                         r"filepath='.*w\.pkl'"):
        dense_bn().load_weights(tmp_path / "w.pkl")
    os.mkdir(tmp_path / "saved_model")
    with pytest.raises(FileFormatError, match=r"folder without config\.json.*SavedModel"):
        load_model(tmp_path / "saved_model")


def test_missing_files(tmp_path):
    with pytest.raises(SavedFileNotFoundError, match=r"load_model: File not found: no file "
                                                     r"or folder at '.*nope\.keras'"):
        load_model(tmp_path / "nope.keras")
    with pytest.raises(ValueError, match=r"File not found.*Please ensure the file is an "
                                         r"accessible `\.keras` zip file"):   # Keras's words
        load_model(tmp_path / "nope.keras")
    with pytest.raises(SavedFileNotFoundError,
                       match=r"load_weights: File not found: no file .*nope\.weights"):
        dense_bn().load_weights(tmp_path / "nope.weights.h5")
    with pytest.raises(SavedFileNotFoundError, match=r"the folder '.*missing' does not exist"):
        dense_bn().save(tmp_path / "missing" / "m.keras")


@pytest.mark.parametrize("damage", ["empty", "truncated", "garbage"])
def test_damaged_archives(saved, tmp_path, damage):
    data = saved.read_bytes()
    bad = tmp_path / "bad.keras"
    bad.write_bytes({"empty": b"", "truncated": data[: len(data) // 2],
                     "garbage": os.urandom(2000)}[damage])
    with pytest.raises(CorruptFileError, match=r"'.*bad\.keras' is not a \.keras model: it "
                                               r"is not a zip file"):
        load_model(bad)
    model = dense_bn()
    before = snapshot(model)
    with pytest.raises(CorruptFileError, match=r"bad\.keras"):
        model.load_weights(bad)
    assert_identical(snapshot(model), before)


def test_archive_with_damaged_members(saved, tmp_path):
    with zipfile.ZipFile(saved) as zf:
        members = {name: zf.read(name) for name in zf.namelist()}
    cases = {"noconfig.keras": {k: v for k, v in members.items() if k != "config.json"},
             "badjson.keras": {**members, "config.json": b"{not json"},
             "badweights.keras": {**members, "model.weights.h5": b"\x89HDF\r\n" + b"0" * 50}}
    for name, entries in cases.items():
        with zipfile.ZipFile(tmp_path / name, "w") as zf:
            for member, data in entries.items():
                zf.writestr(member, data)
    with pytest.raises(CorruptFileError, match=r"noconfig\.keras' is not a complete \.keras "
                                               r"model: it has no 'config\.json'"):
        load_model(tmp_path / "noconfig.keras")
    with pytest.raises(CorruptFileError, match=r"badjson\.keras': config\.json is not valid"):
        load_model(tmp_path / "badjson.keras")
    with pytest.raises(CorruptFileError, match=r"cannot read weights from '.*badweights"):
        load_model(tmp_path / "badweights.keras")


def test_flipped_byte_in_stored_weights_is_caught_by_the_crc(saved, tmp_path):
    data = bytearray(saved.read_bytes())
    with zipfile.ZipFile(saved) as zf:
        info = zf.getinfo("model.weights.h5")
    data[info.header_offset + 30 + len(info.filename) + info.file_size - 10] ^= 0xFF
    (tmp_path / "flipped.keras").write_bytes(bytes(data))
    with pytest.raises(CorruptFileError, match=r"flipped\.keras'.*BadZipFile.*CRC"):
        load_model(tmp_path / "flipped.keras")


def test_overwrite_false_keeps_the_file(saved):
    before = saved.read_bytes()
    with pytest.raises(SavedFileExistsError, match=r"'.*good\.keras' already exists and "
                                                   r"overwrite=False"):
        save_model(dense_bn(), saved, overwrite=False)
    assert saved.read_bytes() == before


def test_argument_errors(saved, tmp_path):
    model = dense_bn()
    with pytest.raises(ValueError, match=r"save_model: The following argument\(s\) are not "
                                         r"supported: \['format'\]"):
        model.save(tmp_path / "m.keras", format="keras")
    with pytest.raises(TypeError, match=r"load_model: argument 'custom_objects' must be a dict"):
        load_model(saved, custom_objects=["Dense"])
    with pytest.raises(TypeError, match=r"load_model: argument 'compile' must be True or "
                                        r"False; received 'yes'"):
        load_model(saved, compile="yes")
    with pytest.raises(TypeError, match=r"argument 'filepath' must be a str or os\.PathLike; "
                                        r"received 3"):
        save_weights(model, 3)
    with pytest.raises(TypeError, match=r"'by_name' exists only for legacy \.h5 files"):
        load_weights(model, saved, by_name=True)
    with pytest.raises(TypeError, match=r"argument 'model' must be a lamina Model; received "
                                        r"Dense"):
        save_model(lamina.layers.Dense(2), tmp_path / "d.keras")


def test_save_format_is_deprecated(tmp_path):
    with pytest.warns(UserWarning, match=r"'save_format' is deprecated in Keras 3"):
        dense_bn().save(tmp_path / "m.keras", save_format="keras")


def test_lambda_code_in_a_file_is_never_run(tmp_path):
    config = {"module": "keras", "class_name": "Sequential", "registered_name": None,
              "config": {"name": "s", "layers": [
                  {"module": "keras.layers", "class_name": "InputLayer", "registered_name": None,
                   "config": {"batch_shape": [None, 2], "dtype": "float32", "name": "i"}},
                  {"module": "keras.layers", "class_name": "Lambda", "registered_name": None,
                   "config": {"name": "l", "function": {
                       "class_name": "__lambda__",
                       "config": {"code": "4wAAAA==", "defaults": None, "closure": None}}}}]}}
    with zipfile.ZipFile(tmp_path / "lambda.keras", "w") as zf:
        zf.writestr("config.json", json.dumps(config))
        zf.writestr("model.weights.h5", b"")
    for safe_mode in (True, False):
        with pytest.raises(ValueError, match=r"lambda\.keras'.*never runs code"):
            load_model(tmp_path / "lambda.keras", safe_mode=safe_mode)


def test_model_from_json_errors():
    with pytest.raises(SavingError, match=r"model_from_json: argument 'json_string' is not "
                                          r"valid JSON"):
        lamina.saving.model_from_json("{oops")
