"""Issue 24 item 8: a root user who forgets OpenMPI's two consent variables gets Lamina's
message naming both (from the launcher, and from DataParallel's advice to use mpirun)."""
import os
import subprocess
import sys

import pytest

import lamina
from lamina.distribution import launch

pytestmark = pytest.mark.skipif(not hasattr(os, "geteuid"), reason="POSIX users only")


def _clear(monkeypatch):
    for name in launch.ROOT_VARIABLES:
        monkeypatch.delenv(name, raising=False)


def test_root_without_the_variables_is_told_which_two_to_set(monkeypatch):
    _clear(monkeypatch)
    monkeypatch.setattr(os, "geteuid", lambda: 0)
    monkeypatch.setenv("OMPI_ALLOW_RUN_AS_ROOT", "1")
    with pytest.raises(launch.LaunchError, match=r"mpirun refuses to run as root unless both "
                                                 r"OMPI_ALLOW_RUN_AS_ROOT=1 and "
                                                 r"OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 are set "
                                                 r"\(missing: OMPI_ALLOW_RUN_AS_ROOT_CONFIRM\)"):
        launch.command(2, "train.py", [])


def test_with_the_variables_or_not_root_the_command_is_mpirun(monkeypatch):
    monkeypatch.setattr(launch.shutil, "which", lambda name: "/opt/bin/mpirun")
    monkeypatch.setattr(os, "geteuid", lambda: 1000)
    _clear(monkeypatch)
    assert launch.command(2, "train.py", ["--epochs", "3"]) == \
        ["/opt/bin/mpirun", "-n", "2", sys.executable, "train.py", "--epochs", "3"]
    monkeypatch.setattr(os, "geteuid", lambda: 0)
    for name in launch.ROOT_VARIABLES:
        monkeypatch.setenv(name, "1")
    assert launch.root_hint() == ""


def test_no_mpirun_names_the_extra(monkeypatch):
    monkeypatch.setattr(launch.shutil, "which", lambda name: None)
    with pytest.raises(launch.LaunchError, match=r'pip install "lamina\[distributed\]"'):
        launch.command(2, "train.py", [])


def test_the_launcher_prints_the_message_and_exits_2(tmp_path):
    env = {k: v for k, v in os.environ.items() if k not in launch.ROOT_VARIABLES}
    result = subprocess.run([sys.executable, "-m", "lamina.distribution.launch", "-n", "2",
                             str(tmp_path / "x.py")], env=env, capture_output=True, text=True,
                            timeout=60)
    if os.geteuid() == 0:
        assert result.returncode == 2
        assert "export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1" in \
            result.stderr
    else:
        assert "OMPI_ALLOW_RUN_AS_ROOT" not in result.stderr


def test_data_parallel_s_mpirun_advice_carries_the_root_hint(monkeypatch):
    _clear(monkeypatch)
    monkeypatch.setattr(os, "geteuid", lambda: 0)
    devices = lamina.distribution.list_devices() * 2
    with pytest.raises(ValueError, match=r"start them with mpirun -n 2 .*export "
                                         r"OMPI_ALLOW_RUN_AS_ROOT=1 "
                                         r"OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1"):
        lamina.distribution.DataParallel(devices=devices)

