"""Run as a script by test_save_faults.py: saves a model in every format into a folder that
cannot take it (``fsize``: RLIMIT_FSIZE; ``full``: a folder on a tiny tmpfs) and checks each
failure. Prints ``ok <count>`` when every save failed cleanly; a crash (SIGSEGV inside HDF5,
as before saves were built in memory) shows in the exit status."""
import errno
import os
import resource
import sys

import numpy as np

import lamina
from lamina import layers
from lamina.callbacks import BackupAndRestore
from lamina.saving.errors import FileWriteError

SAVES = {"m.weights.h5": lambda model, path: model.save_weights(path),
         "m.h5": lambda model, path: model.save(path),
         "m.keras": lambda model, path: model.save(path),
         "m.graph.h5": lambda model, path: model.export(path)}
CAUSES = {"fsize": (errno.EFBIG, "RLIMIT_FSIZE"), "full": (errno.ENOSPC, "the disk is full")}


def model(units: int):
    built = lamina.Sequential([lamina.Input((units,)), layers.Dense(units),
                               layers.BatchNormalization(), layers.Dense(units)])
    built.compile(optimizer="adam", loss="mse")
    data = np.ones((4, units), "float32")
    built.fit(data, data, verbose=0)
    return built


def check(error, path: str, mode: str) -> None:
    code, cause = CAUSES[mode]
    assert isinstance(error, FileWriteError), repr(error)
    assert error.errno == code and error.filename == path, (error.errno, error.filename)
    assert f"cannot write '{path}'" in str(error) and cause in str(error), str(error)


def main(folder: str, mode: str) -> None:
    small, big = model(8), model(500)          # big: 2 MB of weights, 6 MB with Adam's
    for name, save in SAVES.items():
        save(small, os.path.join(folder, name))
    before = {name: open(os.path.join(folder, name), "rb").read() for name in SAVES}
    limits = [1_000, 5_000, 40_000, 150_000, 400_000, 900_000] if mode == "fsize" else [None]
    failures = 0
    for limit in limits:
        if limit is not None:
            resource.setrlimit(resource.RLIMIT_FSIZE, (limit, resource.RLIM_INFINITY))
        for name, save in SAVES.items():
            path = os.path.join(folder, name)
            try:
                save(big, path)
            except OSError as error:
                check(error, path, mode)
                failures += 1
            else:
                raise AssertionError(f"saving {path} under {mode} {limit} succeeded")
            assert sorted(os.listdir(folder)) == sorted(SAVES), os.listdir(folder)
            assert open(path, "rb").read() == before[name], f"{path} changed"
        backup = os.path.join(folder, "backup")
        try:
            big.fit(np.ones((4, 500), "float32"), np.ones((4, 500), "float32"), epochs=2,
                    verbose=0, callbacks=[BackupAndRestore(backup)])
        except OSError as error:
            check(error, os.path.join(backup, "latest.weights.h5"), mode)
            failures += 1
        else:
            raise AssertionError(f"BackupAndRestore under {mode} {limit} succeeded")
        assert os.listdir(backup) == [], os.listdir(backup)
        os.rmdir(backup)
        resource.setrlimit(resource.RLIMIT_FSIZE, (resource.RLIM_INFINITY,) * 2)
    if mode == "fsize":
        failures += double_checkpoint(big, os.path.join(folder, "double"))
    print("ok", failures, flush=True)


def double_checkpoint(model, backup: str) -> int:
    """A backup whose copy to ``.bkp`` (double_checkpoint) hits the limit keeps both files."""
    data = np.ones((4, 500), "float32")
    model.fit(data, data, epochs=2, verbose=0,
              callbacks=[BackupAndRestore(backup, double_checkpoint=True,
                                          delete_checkpoint=False)])
    names = sorted(os.listdir(backup))
    before = {name: open(os.path.join(backup, name), "rb").read() for name in names}
    resource.setrlimit(resource.RLIMIT_FSIZE, (1_000_000, resource.RLIM_INFINITY))
    try:
        model.fit(data, data, epochs=4, verbose=0,
                  callbacks=[BackupAndRestore(backup, double_checkpoint=True)])
    except OSError as error:
        check(error, os.path.join(backup, "latest.weights.h5.bkp"), "fsize")
    else:
        raise AssertionError("a double checkpoint beyond RLIMIT_FSIZE succeeded")
    finally:
        resource.setrlimit(resource.RLIMIT_FSIZE, (resource.RLIM_INFINITY,) * 2)
    assert sorted(os.listdir(backup)) == names, os.listdir(backup)
    for name in names:
        assert open(os.path.join(backup, name), "rb").read() == before[name], name
    return 1


if __name__ == "__main__":
    main(*sys.argv[1:3])
