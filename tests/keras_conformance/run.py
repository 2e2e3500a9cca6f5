"""Run Keras 3.15.1's own tests of some areas against Lamina, in a child pytest process with
the import shim, and return {test id: [outcome, detail]}."""
import json
import os
import subprocess
import sys
import tempfile

from .shim import keras_source_root

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))


def load_json(name: str) -> dict:
    with open(os.path.join(HERE, "fixtures", name)) as f:
        return json.load(f)


def run_lamina(areas, workers: int = 0, selection=None, quiet=True, ignore=()) -> dict:
    """``areas``: folders under keras/src (``ops``, ``layers/core``...); ``selection``: test
    ids to run instead (``keras/src/...::C::t``)."""
    root = keras_source_root()
    targets = [os.path.join(root, t) for t in selection] if selection else \
        [os.path.join(root, "keras", "src", area) for area in areas]
    with tempfile.TemporaryDirectory() as scratch:
        out = os.path.join(scratch, "results.json")
        env = dict(os.environ, LAMINA_CONFORMANCE_OUT=out, PYTHONPATH=os.pathsep.join(
            [REPO, HERE, os.path.join(HERE, "support"), os.environ.get("PYTHONPATH", "")]))
        command = [sys.executable, "-m", "pytest", "-q" if quiet else "-v", "-p", "outcomes",
                   "-p", "lamina_shim", "-p", "keras_markers", "-p", "no:cacheprovider",
                   "--continue-on-collection-errors", "--rootdir", root, "-c", os.devnull,
                   "-o", "addopts=", "-W", "ignore", "--tb=line", "-rN"]
        command += [f"--ignore={os.path.join(root, 'keras', 'src', path)}" for path in ignore]
        if workers:
            command += ["-n", str(workers), "-p", "xdist"]
        subprocess.call(command + targets, cwd=scratch, env=env,
                        stdout=subprocess.DEVNULL if quiet else None)
        if not os.path.exists(out):
            raise RuntimeError("the conformance run wrote no results (pytest did not finish)")
        with open(out) as f:
            return json.load(f)
